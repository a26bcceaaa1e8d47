// make bench's sections, each one's figures saved as it ends. A run takes about an hour,
// and its report is written only at the end: before this, a section that failed late (the
// line, after 40 minutes) lost every figure measured before it. Now they stay in the
// partial file, and `BENCH_RESUME=1 make bench` measures only what the file lacks, if it
// was written for the same commit.
import { pbkdf2Sync } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";

/**
 * The run's figures to start from: a new run's date and commit, or with `resume` the
 * partial file's figures when they were measured at `commit`.
 * @param {{ file: string, commit: string, resume: boolean, log?: (line: string) => void }} options
 * @returns {Record<string, unknown> & { date: string, commit: string }}
 */
export function startRun({ file, commit, resume, log = console.log }) {
  const fresh = { date: new Date().toISOString(), commit };
  if (!resume) return fresh;
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    log(`BENCH_RESUME: nothing to resume in ${file} (${String(error)}); measuring everything`);
    return fresh;
  }
  if (saved?.commit !== commit) {
    log(
      `BENCH_RESUME: ${file} holds figures of ${String(saved?.commit)}, not ${commit}; measuring everything`,
    );
    return fresh;
  }
  return saved;
}

/**
 * Measures each `[name, measure]` in turn into `results[name]`, and saves `results` to
 * `file` after each (written whole to a neighbour, then renamed over it, so a run stopped
 * while saving leaves the last complete file). A section `results` has already is kept.
 * With `probe`, its figure as each section starts goes into `results.probes[name]`.
 * @param {Record<string, unknown> & { probes?: Record<string, number> }} results
 * @param {Array<[string, () => Promise<unknown>]>} sections
 * @param {{ file: string, probe?: () => number, log?: (line: string) => void }} options
 */
export async function runSections(results, sections, { file, probe, log = console.log }) {
  for (const [name, measure] of sections) {
    if (Object.hasOwn(results, name)) {
      log(`${name}: taken from ${file} (BENCH_RESUME)`);
      continue;
    }
    if (probe) results.probes = { ...results.probes, [name]: probe() };
    results[name] = await measure();
    writeFileSync(`${file}.new`, JSON.stringify(results, null, 2) + "\n");
    renameSync(`${file}.new`, file);
  }
}

/**
 * How fast the machine is now: seconds of one core for 1,000,000 rounds of PBKDF2-SHA256
 * (Node's OpenSSL), the probe the sessions' notes have used for this machine's speed. It
 * ran from about 0.16 s to 0.5 s on this 2-core machine, whose speed varies by the hour;
 * every figure of a run that depends on the CPU moves with it.
 * @returns {number}
 */
export function pbkdf2Seconds() {
  const start = performance.now();
  pbkdf2Sync("lathe", "make bench", 1_000_000, 32, "sha256");
  return Number(((performance.now() - start) / 1000).toFixed(3));
}
