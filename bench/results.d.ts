// What `make bench` records in bench/results/bench.json (and, section by section, in
// partial.json), and what bench/report.mjs reads back: the figures of one run. Fields
// marked optional are missing from runs recorded before they were measured; the report
// still prints those runs (`make bench-report`).

export type { Line as SignUpLine } from "./signups.mjs";
export type { MailLine } from "./confirmations.mjs";
export type { LineFigures } from "./line.mjs";

/** One Lighthouse row: a route, a preset, a visit, the median of its runs. */
export interface LighthouseRow {
  route: string;
  preset: string;
  /** "new" (a new browser) or "after /" (the same browser, after Lighthouse on /). */
  visit: string;
  /** How many runs the row combines. */
  runs?: number;
  performance: number | null;
  accessibility: number | null;
  bestPractices: number | null;
  seo: number | null;
  fcpMs: number | null;
  lcpMs: number | null;
  tbtMs: number | null;
  cls: number | null;
  transferKB: number | null;
  benchmarkIndex?: number | null;
  fcpRange?: [number, number] | null;
  lcpRange?: [number, number] | null;
  /** Why a run has no figures, if one failed. */
  error: string | null;
  /** Each layout shift seen, described: CLS must be 0. */
  shifts: string[];
}

/** What the landing page loads, gzipped (gzip -9). */
export interface Sizes {
  wasmGzipBytes: number;
  landingGzipBytes: number;
  firstPaintGzipBytes: number;
  landingFiles: { path: string; gzip: number }[];
}

/** The form with a large message pasted in. */
export interface FormFigures {
  pastedBytes: number;
  inputMs: number;
  browserLayoutMs: number;
  submitMs: number;
}

/** A server's figures on one line: wrk's requests a second and p99. */
export interface Served {
  rps: number;
  p99Ms: number;
}

/** lathe-site beside nginx. */
export interface Servers {
  lines: { path: string; connections: number; lathe: Served; nginx: Served; ratio: number }[];
  memory: { idleKB: number; peakKB: number };
}

/** One run's figures, section by section. */
export interface Results {
  date: string;
  commit: string;
  lighthouse: LighthouseRow[];
  sizes: Sizes;
  background: Awaited<ReturnType<typeof import("./background.mjs").benchBackground>>;
  painter: Awaited<ReturnType<typeof import("./painter.mjs").benchPainter>>;
  form: FormFigures;
  proofs: Awaited<ReturnType<typeof import("./proofs.mjs").benchProofs>>;
  servers: Servers;
  signUps: Awaited<ReturnType<typeof import("./signups.mjs").benchSignUps>>;
  confirmations: import("./confirmations.mjs").MailLine[];
  webhooks: Awaited<ReturnType<typeof import("./webhooks.mjs").benchWebhooks>>;
  line: import("./line.mjs").LineFigures[];
  /** The machine's speed as each section started (bench/sections.mjs), seconds by section. */
  probes?: Record<string, number>;
}
