// bench/sections.mjs: make bench keeps each section's figures as it ends, and resumes a
// run of the same commit where it stopped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { pbkdf2Seconds, runSections, startRun } from "../../bench/sections.mjs";

/** A scratch folder's partial file, and the lines logged. */
function scratch(t) {
  const folder = mkdtempSync(join(tmpdir(), "lathe-sections-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const logged = [];
  return { file: join(folder, "partial.json"), logged, log: (line) => logged.push(line) };
}

const saved = (file) => JSON.parse(readFileSync(file, "utf8"));

test("a section that fails leaves every figure measured before it saved", async (t) => {
  const { file, log } = scratch(t);
  const results = startRun({ file, commit: "abc1234", resume: false, log });
  await assert.rejects(
    runSections(
      results,
      [
        ["lighthouse", async () => [{ fcpMs: 650 }]],
        ["servers", async () => ({ rps: 30_000 })],
        [
          "line",
          async () => {
            throw new Error("ENOENT: target/baseline/examples/line");
          },
        ],
      ],
      { file, log },
    ),
    /ENOENT/,
  );
  const figures = saved(file);
  assert.equal(figures.commit, "abc1234");
  assert.deepEqual(figures.lighthouse, [{ fcpMs: 650 }]);
  assert.deepEqual(figures.servers, { rps: 30_000 });
  assert.equal(Object.hasOwn(figures, "line"), false);
});

test("a resumed run of the same commit measures only the sections not saved", async (t) => {
  const { file, logged, log } = scratch(t);
  writeFileSync(
    file,
    JSON.stringify({ date: "2026-11-29T14:15:56.490Z", commit: "abc1234", lighthouse: [1] }),
  );
  const results = startRun({ file, commit: "abc1234", resume: true, log });
  const measured = [];
  await runSections(
    results,
    [
      ["lighthouse", async () => measured.push("lighthouse")],
      ["line", async () => (measured.push("line"), { wave: 0.45 })],
    ],
    { file, log },
  );
  assert.deepEqual(measured, ["line"]);
  assert.deepEqual(saved(file), {
    date: "2026-11-29T14:15:56.490Z",
    commit: "abc1234",
    lighthouse: [1],
    line: { wave: 0.45 },
  });
  assert.deepEqual(logged, [`lighthouse: taken from ${file} (BENCH_RESUME)`]);
});

test("figures of another commit, or none, are not resumed", (t) => {
  const { file, logged, log } = scratch(t);
  const none = startRun({ file, commit: "abc1234", resume: true, log });
  assert.deepEqual(Object.keys(none), ["date", "commit"]);
  writeFileSync(file, JSON.stringify({ date: "then", commit: "0ld0ld0", lighthouse: [1] }));
  const other = startRun({ file, commit: "abc1234", resume: true, log });
  assert.deepEqual(Object.keys(other), ["date", "commit"]);
  assert.equal(other.commit, "abc1234");
  assert.match(logged[0], /^BENCH_RESUME: nothing to resume in .*partial\.json/);
  assert.equal(
    logged[1],
    `BENCH_RESUME: ${file} holds figures of 0ld0ld0, not abc1234; measuring everything`,
  );
  // Without BENCH_RESUME the file is not read at all.
  assert.deepEqual(Object.keys(startRun({ file, commit: "0ld0ld0", resume: false, log })), [
    "date",
    "commit",
  ]);
});

test("with a probe, each section measured has the machine's figure as it started", async (t) => {
  const { file, log } = scratch(t);
  writeFileSync(
    file,
    JSON.stringify({
      date: "then",
      commit: "abc1234",
      lighthouse: [1],
      probes: { lighthouse: 0.4 },
    }),
  );
  const results = startRun({ file, commit: "abc1234", resume: true, log });
  let probed = 0.15;
  await runSections(
    results,
    [
      ["lighthouse", async () => [2]],
      ["line", async () => ({})],
    ],
    {
      file,
      log,
      probe: () => (probed += 0.01),
    },
  );
  assert.deepEqual(saved(file).probes, { lighthouse: 0.4, line: 0.16 });
});

test("the probe is a positive number of seconds", () => {
  const seconds = pbkdf2Seconds();
  assert.ok(Number.isFinite(seconds) && seconds > 0, String(seconds));
});
