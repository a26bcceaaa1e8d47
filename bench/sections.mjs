// make bench's sections, each one's figures saved as it ends. A run takes about an hour,
// and its report is written only at the end: before this, a section that failed late (the
// line, after 40 minutes) lost every figure measured before it. Now they stay in the
// partial file, and `BENCH_RESUME=1 make bench` measures only what the file lacks, if it
// was written for the same commit.
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
 * @param {Record<string, unknown>} results
 * @param {Array<[string, () => Promise<unknown>]>} sections
 * @param {{ file: string, log?: (line: string) => void }} options
 */
export async function runSections(results, sections, { file, log = console.log }) {
  for (const [name, measure] of sections) {
    if (Object.hasOwn(results, name)) {
      log(`${name}: taken from ${file} (BENCH_RESUME)`);
      continue;
    }
    results[name] = await measure();
    writeFileSync(`${file}.new`, JSON.stringify(results, null, 2) + "\n");
    renameSync(`${file}.new`, file);
  }
}
