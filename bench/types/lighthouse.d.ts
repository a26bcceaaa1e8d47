// The part of Lighthouse's API that bench/run.mjs uses, for its type check: Lighthouse is
// installed for make bench only (bench/package.json), and make lint checks bench/ without
// it (bench/tsconfig.json maps the package's name here).

/** Lighthouse's options, those the bench sets. */
export interface Flags {
  port?: number;
  output?: "json" | "html" | "csv";
  logLevel?: "silent" | "error" | "warn" | "info" | "verbose";
}

/** A configuration, such as the desktop preset's: passed on as it is. */
export type Config = object;

/** One audit's result. */
export interface Audit {
  numericValue?: number;
  errorMessage?: string;
  details?: {
    items?: {
      score: number;
      node?: { selector?: string; snippet?: string };
      subItems?: { items?: { cause?: unknown }[] };
    }[];
  };
}

/** A trace event, the fields the bench reads. */
export interface TraceEvent {
  name: string;
  ts: number;
  args?: { data?: { isLoadingMainFrame?: boolean; weighted_score_delta?: number } };
}

/** What one run answers. */
export interface RunnerResult {
  lhr: {
    categories: Record<string, { score: number | null } | undefined>;
    audits: Record<string, Audit | undefined>;
    runtimeError?: { message: string };
    environment?: { benchmarkIndex?: number };
  };
  artifacts: { Trace: { traceEvents: TraceEvent[] } };
}

/** Runs Lighthouse on `url` in the Chrome at `flags.port`. */
export default function lighthouse(
  url: string,
  flags?: Flags,
  config?: Config,
): Promise<RunnerResult | undefined>;
