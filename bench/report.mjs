// make bench's report: the table it prints from a run's figures (bench/results/bench.json),
// each line that misses its target marked, and docs/measurements.md written from it. No
// side effects on import, so that `node bench/report.mjs` prints the last run's report
// again (with --write, writes docs/measurements.md too: after a run whose report failed,
// say) and scripts/tests/bench-report.test.mjs checks it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lineReport } from "./line.mjs";
import { median } from "./stats.mjs";

/** @typedef {import("./results.js").Results} Results */

/** The targets the report marks lines against, each written once for its header and its check. */
export const targets = {
  /** A page's FCP and LCP, at most this many times the floor's (as printed, two decimals). */
  toFloor: 1.1,
  /** lathe-site's requests a second, at least this share of nginx's. */
  ofNginx: 0.8,
  /** lathe-site's p99 at 100 connections, under this many ms. */
  p99Ms: 10,
  /** Sign-ups a second with a proof of work each, at least this share of the line without. */
  proofShare: 0.9,
  /** The page's own main-thread time per drawn background frame, p95, at most this many ms. */
  frameP95Ms: 0.5,
  /** What RSA-2048 DKIM signing costs the outbox, under this many per cent. */
  dkimRsaPercent: 10,
  /** The core's .wasm, gzipped, at most this many bytes. */
  wasmGzipBytes: 40_000,
  /** What `/` needs before it can paint (its HTML with the CSS inline), gzipped: the first round trips. */
  firstPaintGzipBytes: 14_000,
  /** Everything `/` loads, gzipped, at most this many bytes. */
  landingGzipBytes: 160_000,
  /** The core's painter alone, step + draw, p95, at most this many ms. */
  painterP95Ms: 0.3,
};

/** " - OVER TARGET" when `value` is over `target`. */
const over = (/** @type {number} */ value, /** @type {number} */ target) =>
  value > target ? " - OVER TARGET" : "";

/**
 * How fast the machine ran Lighthouse: its benchmark index (Lighthouse's own measure of
 * the CPU, taken at the start of every run), the median of the rows' medians and their
 * range. The mobile preset's CPU slowed 4x stands for a mid-range phone on a machine of
 * about 1,533 (Lighthouse's throttling calculator), and under 1,000 Lighthouse warns that
 * the machine is slower than it expects (its core/gather/driver/environment.js). A
 * page's own work before its first paint scales with the machine and the floor's
 * simulated network does not, so on a slower machine every ratio to the floor rises:
 * read them beside this.
 * @param {{ benchmarkIndex?: number | null }[]} lh the Lighthouse rows
 */
function machineSpeed(lh) {
  const known = benchmarkIndexes(lh);
  if (!known.length) return [];
  return [
    `the machine: Lighthouse's benchmark index ${String(machineIndex(lh))} (rows ${String(Math.min(...known))}-${String(Math.max(...known))}); the mobile preset's CPU slowed 4x stands for a mid-range phone on a machine of about 1,533; under 1,000 Lighthouse warns that the machine is slower than it expects`,
  ];
}

/**
 * How fast the machine was as each section started (bench/sections.mjs's probe): none
 * from a bench.json written before they were kept.
 * @param {Record<string, number> | undefined} probes seconds, by section
 */
function machineProbes(probes) {
  if (!probes) return [];
  const each = Object.entries(probes).map(([name, seconds]) => `${name} ${seconds.toFixed(2)}`);
  return [
    `the machine as each section started, seconds of one core for 1,000,000 rounds of PBKDF2-SHA256 (lower is faster; every figure that needs the CPU moves with it): ${each.join(", ")}`,
  ];
}

/**
 * The rows' benchmark indexes: none from a bench.json written before they were kept.
 * @param {{ benchmarkIndex?: number | null }[]} lh the Lighthouse rows
 * @returns {number[]}
 */
function benchmarkIndexes(lh) {
  return lh.map((r) => r.benchmarkIndex).filter((v) => v != null);
}

/**
 * The machine's benchmark index for a run: the median of its rows', or "-" for a
 * bench.json written before they were kept.
 * @param {{ benchmarkIndex?: number | null }[]} lh the Lighthouse rows
 */
function machineIndex(lh) {
  const known = benchmarkIndexes(lh);
  return known.length ? median(known) : "-";
}

/** A count of bytes as the report writes them: 40,000. */
const bytes = (/** @type {number} */ n) => n.toLocaleString("en");

/**
 * The report's table, every line that misses its target marked.
 * @param {Results} results
 */
export function report({
  lighthouse: lh,
  sizes,
  background: bg,
  painter,
  form,
  proofs,
  servers,
  signUps,
  confirmations,
  webhooks,
  line,
  probes,
}) {
  const pad = (/** @type {unknown} */ v, /** @type {number} */ n) => String(v).padStart(n);
  // The sign-up lines' rounds (none in a run recorded before they were kept).
  const rounds = signUps.lines[0]?.rounds?.length;
  const lines = [
    `Lighthouse 12.8, the median of ${String(lh[0]?.runs ?? 1)} runs a row (targets: 100 everywhere, CLS 0, TBT 0 ms; FCP and LCP within ${targets.toFloor.toFixed(2)} x the floor page's, a new visitor and one after /)`,
    "(after /: the same browser, after Lighthouse on /; HTTP cache cleared, local storage kept, as Lighthouse does between pages)",
    "preset   route      visit     perf a11y  bp  seo    FCP ms   LCP ms  FCP x  LCP x  TBT ms   CLS  transfer KB  FCP, LCP range ms",
    ...lh.map((r) => {
      const floor = lh.find((f) => f.route === "floor" && f.preset === r.preset);
      const ratio = (
        /** @type {number | null} */ value,
        /** @type {number | null | undefined} */ base,
      ) => (value == null || !base ? "-" : (value / base).toFixed(2));
      const over = [ratio(r.fcpMs, floor?.fcpMs), ratio(r.lcpMs, floor?.lcpMs)].some(
        (x) => Number(x) > targets.toFloor,
      );
      return `${r.preset.padEnd(8)} ${r.route.padEnd(9)} ${r.visit.padEnd(8)} ${pad(r.performance, 5)} ${pad(r.accessibility, 4)} ${pad(r.bestPractices, 3)} ${pad(r.seo, 4)} ${pad(r.fcpMs, 9)} ${pad(r.lcpMs, 8)} ${pad(ratio(r.fcpMs, floor?.fcpMs), 6)} ${pad(ratio(r.lcpMs, floor?.lcpMs), 6)} ${pad(r.tbtMs, 7)} ${pad(r.cls, 5)} ${pad(r.transferKB, 12)}  ${r.fcpRange ? `${r.fcpRange.join("-")}, ${r.lcpRange?.join("-") ?? "-"}` : "-"}${r.error ? `  (${r.error})` : ""}${over ? " - OVER TARGET" : ""}`;
    }),
    ...lh.flatMap((r) =>
      r.shifts.map((shift) => `layout shift, ${r.preset} ${r.route} ${r.visit}, ${shift}`),
    ),
    ...machineSpeed(lh),
    ...machineProbes(probes),
    "",
    "Sizes (gzip -9)",
    `  .wasm                        ${pad(sizes.wasmGzipBytes, 7)} bytes  (target <= ${bytes(targets.wasmGzipBytes)})${over(sizes.wasmGzipBytes, targets.wasmGzipBytes)}`,
    `  before / can paint (HTML, CSS) ${pad(sizes.firstPaintGzipBytes, 5)} bytes  (target <= ${bytes(targets.firstPaintGzipBytes)}: the first round trips)${over(sizes.firstPaintGzipBytes, targets.firstPaintGzipBytes)}`,
    `  everything / loads           ${pad(sizes.landingGzipBytes, 7)} bytes  (target <= ${bytes(targets.landingGzipBytes)}, the web font's ~29,400 fetched after the first paint included)${over(sizes.landingGzipBytes, targets.landingGzipBytes)}`,
    ...sizes.landingFiles.map((f) => `    ${f.path.padEnd(40)} ${pad(f.gzip, 7)}`),
    "",
    "Background, in Chromium",
    `  step, 25 shapes              ${pad(bg.stepMicroseconds, 7)} µs`,
    `  frame (step + draw), the page's own main-thread time, median ${pad(bg.frameMedianMs, 7)} ms   p95 ${String(bg.frameP95Ms)} ms over ${String(bg.frames)} frames (target p95 <= ${String(targets.frameP95Ms)} ms)${over(bg.frameP95Ms, targets.frameP95Ms)}`,
    `    the callback's thread time: median ${String(bg.threadMedianMs)} ms   p95 ${String(bg.threadP95Ms)} ms, less the floor: an empty callback's median ${String(bg.floorMedianMs)} ms (p95 ${String(bg.floorP95Ms)} ms)`,
    `    its wall time, other threads' turns on the two cores included: median ${String(bg.wallMedianMs)} ms   p95 ${String(bg.wallP95Ms)} ms (no target)`,
    `  core start (fetch + instantiate), cold ${String(bg.coreStartupMs)} ms`,
    `  the core's painter, 25 shapes on 1280 x 800 at DPR 1, step + draw (target p95 <= ${String(targets.painterP95Ms)} ms):`,
    ...Object.entries(painter).map(
      ([name, r]) =>
        `    ${name === "faded" ? "faded behind the text column" : "at full ink everywhere      "}  median ${pad(r.medianMs, 6)} ms   p95 ${pad(r.p95Ms, 6)} ms${over(r.p95Ms, targets.painterP95Ms)}`,
    ),
    "",
    `The form, ${form.pastedBytes.toLocaleString("en")} bytes pasted into the message`,
    `  input event (React + core)   ${pad(form.inputMs, 7)} ms   (a visible pause: ~100 ms)`,
    `  validating submit            ${pad(form.submitMs, 7)} ms`,
    `  the browser's text layout    ${pad(form.browserLayoutMs, 7)} ms   (Chromium's own, with or without this site)`,
    "",
    `The proof of work (--proof-of-work: PBKDF2/SHA-256, cost ${String(proofs.cost)}, the answer's counter median ${String(proofs.counters.median)}, p95 ${String(proofs.counters.p95)}), in Chromium, ${String(proofs.form.n)} each`,
    "(target: well inside the spec's 2,000 ms of Submitting..., the most a visitor who submits at once waits for it)",
    `  in the form, first change to solution  median ${pad(proofs.form.median, 5)} ms   p95 ${pad(proofs.form.p95, 5)} ms   (fetch, worker, solver, solve)`,
    `  the solve alone, CPU as it is          median ${pad(proofs.alone.x1.median, 5)} ms   p95 ${pad(proofs.alone.x1.p95, 5)} ms`,
    `  the solve alone, CPU slowed 4 x        median ${pad(proofs.alone.x4.median, 5)} ms   p95 ${pad(proofs.alone.x4.p95, 5)} ms   (a budget phone)`,
    "",
    `Servers, wrk, 3 s runs, the two in turns, 3 rounds: each side the median of its rounds, the ratio the median of the rounds' (targets: lathe-site >= ${String(targets.ofNginx * 100)} % of nginx's requests/s on every line; p99 < ${String(targets.p99Ms)} ms at 100 connections)`,
    "path                                   conns   lathe req/s  p99 ms   nginx req/s  p99 ms   lathe/nginx",
    ...servers.lines.map(
      (l) =>
        `${l.path.padEnd(38)} ${pad(l.connections, 5)} ${pad(l.lathe.rps, 13)} ${pad(l.lathe.p99Ms, 7)} ${pad(l.nginx.rps, 13)} ${pad(l.nginx.p99Ms, 7)} ${pad(`${String(Math.round(l.ratio * 100))} %`, 12)}${l.ratio < targets.ofNginx ? " - UNDER TARGET" : ""}${l.connections === 100 && l.lathe.p99Ms >= targets.p99Ms ? " - p99 OVER TARGET" : ""}`,
    ),
    `lathe-site memory: ${String(servers.memory.idleKB)} KB idle, ${String(servers.memory.peakKB)} KB at its peak under load`,
    "",
    `The waitlist: POST /api/waitlist, a new address each request, wrk 5 s${rounds ? `, the median of ${String(rounds)} rounds, the two modes in turns` : ""} (every answered sign-up stored; with a proof of work each: within ${String(Math.round((1 - targets.proofShare) * 100))} % of the same line without${rounds ? ", the median of the rounds' shares" : ""})`,
    "database       proof   conns   sign-ups/s  p99 ms   answered 2xx   refused   of without",
    ...signUps.lines.map((l) => {
      const without = signUps.lines.find(
        (w) => !w.proof && w.backend === l.backend && w.connections === l.connections,
      );
      // A run recorded before the rounds has no share of its own.
      const share = l.share ?? (l.proof && without ? l.rps / without.rps : undefined);
      const ratio = share === undefined ? "" : `${String(Math.round(share * 100))} %`;
      const under = share !== undefined && share < targets.proofShare ? " - UNDER TARGET" : "";
      return `${l.backend.padEnd(14)} ${(l.proof ? "yes" : "no").padStart(5)} ${pad(l.connections, 7)} ${pad(l.rps, 12)} ${pad(l.p99Ms, 7)} ${pad(l.requests - l.refused, 14)} ${pad(l.refused, 9)} ${pad(ratio, 12)}${under}`;
    }),
    ...Object.entries(signUps.stored).map(
      ([backend, { answered, rows }]) =>
        `${backend}: ${String(rows)} rows for ${String(answered)} answered sign-ups${rows >= answered ? " (the rest were under way when wrk stopped)" : " - SIGN-UPS LOST"}`,
    ),
    `SQLite's write-ahead log at its largest during the run: ${String(signUps.walBytes)} bytes (bound at 100 connections: about 5,000,000; docs/server.md, "Collecting sign-ups")`,
    "",
    "Confirmations through the outbox: 400 sign-ups with --smtp, 20 at a time, to aiosmtpd on loopback (no target; each email once)",
    "database       DKIM           emails   seconds   emails/s   sign-ups/s posted",
    ...confirmations.map(
      (l) =>
        `${l.backend.padEnd(14)} ${dkimLabel(l)} ${pad(l.emails, 8)} ${pad(l.seconds, 9)} ${pad(l.perSecond, 10)} ${pad(l.postsPerSecond, 12)}${l.emails === 400 ? "" : " - NOT EXACTLY ONCE"}`,
    ),
    "",
    "Invitations through the outbox: those 400 confirmed, then invited in one wave (no target; each email once)",
    "database       DKIM           invitations   seconds   invitations/s",
    ...confirmations.map(
      (l) =>
        `${l.backend.padEnd(14)} ${dkimLabel(l)} ${pad(l.invitations, 13)} ${pad(l.invitationSeconds, 9)} ${pad(l.invitationsPerSecond, 15)}${l.invitations === 400 ? "" : " - NOT EXACTLY ONCE"}`,
    ),
    ...dkimCost(confirmations),
    "",
    "Webhooks: 400 sign-ups without --smtp, each an entry.created event, to a receiver on loopback (no target; each event once)",
    "database       events   seconds   events/s",
    ...webhooks.map(
      (l) =>
        `${l.backend.padEnd(14)} ${pad(Math.abs(l.events), 6)} ${pad(l.seconds, 9)} ${pad(l.perSecond, 10)}${l.events === 400 ? "" : " - NOT EXACTLY ONCE"}`,
    ),
    "",
    ...lineReport(line),
  ];
  return lines.join("\n");
}

/**
 * What DKIM signing costs: on SQLite, emails a second signed against unsigned in the same
 * round, for the invitations (the outbox alone) and the confirmations (with the sign-ups'
 * posts); the median of the rounds. Target: under 10 % at RSA 2048 (Ed25519 beside it).
 * @param {Results["confirmations"]} confirmations
 */
function dkimCost(confirmations) {
  const rounds = confirmations.filter((l) => l.round > 0);
  const plain = (/** @type {number} */ round) =>
    rounds.find((l) => l.round === round && l.signing === "none");
  return [
    "",
    `What DKIM signing costs on SQLite, emails a second signed against unsigned in the same round, the median of the rounds (target under ${String(targets.dkimRsaPercent)} % at RSA 2048)`,
    ...["RSA 2048", "Ed25519"].map((signing) => {
      const costs = rounds
        .filter((l) => l.signing === signing)
        .flatMap((l) => {
          // A round's cost needs its unsigned run beside it.
          const base = plain(l.round);
          if (!base) return [];
          return [
            {
              invitations: 100 * (1 - l.invitationsPerSecond / base.invitationsPerSecond),
              confirmations: 100 * (1 - l.perSecond / base.perSecond),
            },
          ];
        });
      const each = (/** @type {"invitations" | "confirmations"} */ what) =>
        costs.map((c) => String(Math.round(c[what]))).join(", ");
      const invitations = median(costs.map((c) => c.invitations));
      const confirmations = median(costs.map((c) => c.confirmations));
      const over =
        signing === "RSA 2048" && Math.max(invitations, confirmations) >= targets.dkimRsaPercent;
      return `${signing.padEnd(9)} invitations ${String(Math.round(invitations))} % (${each("invitations")}), confirmations ${String(Math.round(confirmations))} % (${each("confirmations")})${over ? " - OVER TARGET" : ""}`;
    }),
  ];
}

/**
 * A confirmations line's signing, and its round for DKIM's cost (none for the first runs).
 * @param {Results["confirmations"][number]} l
 */
function dkimLabel(l) {
  return (l.round > 0 ? `${l.signing} #${String(l.round)}` : l.signing).padEnd(12);
}

/**
 * The largest ratio of any route's FCP or LCP (either preset, either visit) to the floor
 * page's in the same preset: the figure issue "at the floor" asks to keep at 1.10 or less.
 * @param {Results["lighthouse"]} runs
 */
function worstToFloor(runs) {
  const ratios = runs
    .filter((r) => r.route !== "floor")
    .flatMap((r) => {
      const floor = runs.find((f) => f.route === "floor" && f.preset === r.preset);
      if (!floor?.fcpMs || !floor.lcpMs || r.fcpMs == null || r.lcpMs == null) return [];
      return [r.fcpMs / floor.fcpMs, r.lcpMs / floor.lcpMs];
    });
  return ratios.length ? Math.max(...ratios).toFixed(2) : "-";
}

/**
 * docs/measurements.md: the latest run in full, and one line per run in its history
 * (kept between the markers, newest first).
 * @param {Results} results
 * @param {string} table the report
 * @param {string} file docs/measurements.md
 */
export function writeMeasurements(results, table, file) {
  const start = "<!-- history: make bench adds a row here -->";
  const end = "<!-- end of history -->";
  /** @type {string[]} */
  let history = [];
  try {
    const old = readFileSync(file, "utf8");
    const from = old.indexOf(start);
    const to = old.indexOf(end);
    if (from >= 0 && to > from) {
      history = old
        .slice(from + start.length, to)
        .split("\n")
        .filter((line) => line.startsWith("| 2"));
    }
  } catch {
    // No page yet: this run starts its history.
  }
  const { commit } = results;
  const date = results.date.slice(0, 16).replace("T", " ");
  // The same run written again (make bench-report) replaces its row.
  history = history.filter((line) => !line.startsWith(`| ${date} | ${commit} |`));
  const mobileHome = results.lighthouse.find(
    (r) => r.preset === "mobile" && r.route === "/" && r.visit === "new",
  );
  const row = [
    date,
    commit,
    results.sizes.wasmGzipBytes,
    results.sizes.landingGzipBytes,
    mobileHome?.performance ?? "-",
    mobileHome?.fcpMs ?? "-",
    mobileHome?.lcpMs ?? "-",
    mobileHome?.tbtMs ?? "-",
    results.background.frameP95Ms,
    `${String(Math.round(Math.min(...results.servers.lines.map((l) => l.ratio)) * 100))} %`,
    worstToFloor(results.lighthouse),
    machineIndex(results.lighthouse),
  ].join(" | ");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `# Measurements

Written by \`make bench\` (bench/run.mjs) on every run: the latest run in full, then one
line per run. Figures come from this repository's 2-core machine and vary from run to run
by a few per cent (Lighthouse's simulated mobile timings more); compare runs on the same
machine. What each figure means and its target: docs/architecture.md, "Measuring".

## Latest run: ${results.date} (${commit})

\`\`\`
${table}
\`\`\`

## History

| date (UTC) | commit | .wasm gz | \`/\` gz | mobile \`/\` perf | FCP ms | LCP ms | TBT ms | frame p95 ms | lathe-site/nginx, worst | FCP, LCP / floor, worst | Lighthouse benchmark index |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${start}
${[`| ${row} |`, ...history].join("\n")}
${end}
`,
  );
}

// `node bench/report.mjs [--write]`: the last run's report, from its figures.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const figures = join(root, "bench", "results", "bench.json");
  if (!existsSync(figures)) {
    console.error(`No ${figures}: make bench writes it (the report is printed from it).`);
    process.exit(1);
  }
  const results = JSON.parse(readFileSync(figures, "utf8"));
  const table = report(results);
  console.log(table);
  if (process.argv.includes("--write")) {
    writeMeasurements(results, table, join(root, "docs", "measurements.md"));
    console.log("\nWritten to docs/measurements.md");
  }
}
