// bench/report.mjs, make bench's report, from the figures of a recorded run
// (fixtures/bench.json: make bench at cc9a8fb, on the machine at a third of its speed).
// The report runs after an hour of measuring: a report that fails loses the run's table.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { LINE_TARGETS } from "../../bench/line.mjs";
import { report, targets, writeMeasurements } from "../../bench/report.mjs";

const fixture = () =>
  JSON.parse(readFileSync(new URL("fixtures/bench.json", import.meta.url), "utf8"));

/** The rows' benchmark indexes, sorted, and their median (the higher of two middles). */
function indexes(results) {
  const sorted = results.lighthouse.map((r) => r.benchmarkIndex).sort((a, b) => a - b);
  return { sorted, median: sorted[Math.floor(sorted.length / 2)] };
}

test("each Lighthouse row is marked exactly when its FCP or LCP is over 1.10 x the floor's", () => {
  const results = fixture();
  const lines = report(results).split("\n");
  let over = 0;
  for (const row of results.lighthouse.filter((r) => r.route !== "floor")) {
    const floor = results.lighthouse.find((r) => r.route === "floor" && r.preset === row.preset);
    const ratios = [row.fcpMs / floor.fcpMs, row.lcpMs / floor.lcpMs].map((x) => x.toFixed(2));
    const line = lines.find(
      (l) =>
        l.startsWith(`${row.preset.padEnd(8)} ${row.route.padEnd(9)} ${row.visit.padEnd(8)}`) &&
        l.includes(` ${ratios[0]} `),
    );
    assert.ok(line, `a line for ${row.preset} ${row.route} ${row.visit}`);
    const missed = ratios.some((x) => Number(x) > targets.toFloor);
    over += missed ? 1 : 0;
    assert.equal(line.endsWith(" - OVER TARGET"), missed, line);
  }
  // The fixture has both kinds, so both branches above were taken.
  assert.ok(over > 0 && over < results.lighthouse.length - 2);
});

test("the machine's benchmark index: the rows' median and range, and none from older figures", () => {
  const results = fixture();
  const { sorted, median } = indexes(results);
  const withIndex = report(results);
  const line = withIndex.split("\n").find((l) => l.startsWith("the machine: "));
  assert.ok(
    line?.includes(
      `benchmark index ${String(median)} (rows ${String(sorted[0])}-${String(sorted.at(-1))})`,
    ),
    line,
  );
  // A bench.json written before the index was kept: the same report, less that line.
  for (const row of results.lighthouse) delete row.benchmarkIndex;
  const without = report(results);
  assert.equal(without, withIndex.replace(`${line}\n`, ""));
});

test("a proof line's share is its rounds' median share when it has rounds, else of its medians", () => {
  const results = fixture();
  const row = (l) =>
    report(results)
      .split("\n")
      .find((r) =>
        r.startsWith(
          `${l.backend.padEnd(14)} ${"yes".padStart(5)} ${String(l.connections).padStart(7)} `,
        ),
      );
  const proofLines = results.signUps.lines.filter((l) => l.proof);
  assert.ok(proofLines.length > 0);
  for (const l of proofLines) {
    // Recorded before the rounds: the line's figure over the line without's.
    const without = results.signUps.lines.find(
      (w) => !w.proof && w.backend === l.backend && w.connections === l.connections,
    );
    const before = l.rps / without.rps;
    assert.ok(row(l).includes(` ${String(Math.round(before * 100))} %`), row(l));
    // With rounds: their median share, whatever the medians' ratio, and marked by it.
    for (const share of [targets.proofShare - 0.01, targets.proofShare]) {
      Object.assign(l, { share, shares: [share], rounds: [l.rps] });
      const line = row(l);
      assert.ok(line.includes(` ${String(Math.round(share * 100))} %`), line);
      assert.equal(line.endsWith(" - UNDER TARGET"), share < targets.proofShare, line);
    }
  }
});

test("docs/measurements.md: the run in full, and its history newest first, the index last", () => {
  const folder = mkdtempSync(join(tmpdir(), "bench-report-"));
  try {
    const file = join(folder, "measurements.md");
    const older = { ...fixture(), date: "2026-11-28T10:00:00.000Z", commit: "older00" };
    const newer = { ...fixture(), date: "2026-11-29T10:00:00.000Z", commit: "newer00" };
    writeFileSync(file, "");
    writeMeasurements(older, report(older), file);
    writeMeasurements(newer, report(newer), file);
    // make bench-report writes the same run again: its row is replaced, not repeated.
    writeMeasurements(newer, report(newer), file);
    const page = readFileSync(file, "utf8");
    assert.ok(page.includes("## Latest run: 2026-11-29T10:00:00.000Z (newer00)"));
    assert.ok(page.includes(report(newer)));
    const rows = page.split("\n").filter((l) => l.startsWith("| 2026-"));
    assert.deepEqual(
      rows.map((r) => r.split(" | ")[1]),
      ["newer00", "older00"],
    );
    const header = page.split("\n").find((l) => l.startsWith("| date (UTC)"));
    const columns = (l) => l.split(" | ").length;
    assert.equal(columns(rows[0]), columns(header));
    assert.ok(header.endsWith("| Lighthouse benchmark index |"));
    assert.ok(rows[0].endsWith(` | ${String(indexes(newer).median)} |`));
  } finally {
    rmSync(folder, { recursive: true });
  }
});

test("the machine's speed as each section started is printed when the run kept it", () => {
  const results = fixture();
  assert.equal(Object.hasOwn(results, "probes"), false);
  assert.doesNotMatch(report(results), /as each section started/);
  results.probes = { lighthouse: 0.412, signUps: 0.1594 };
  const line = report(results)
    .split("\n")
    .find((l) => l.includes("as each section started"));
  assert.equal(
    line,
    "the machine as each section started, seconds of one core for 1,000,000 rounds of PBKDF2-SHA256 (lower is faster; every figure that needs the CPU moves with it): lighthouse 0.41, signUps 0.16",
  );
});

test("sizes, the painter and the line are marked exactly when they miss their targets", () => {
  const marked = (/** @type {string} */ text, /** @type {string} */ start) =>
    text
      .split("\n")
      .filter((l) => l.trimStart().startsWith(start))
      .map((l) => / - (place p95 |wave )?OVER TARGET$/.test(l));
  const results = fixture();
  // The recorded run is within each of them.
  let text = report(results);
  for (const start of [".wasm", "before / can paint", "everything / loads"]) {
    assert.deepEqual(marked(text, start), [false], start);
  }
  assert.deepEqual(marked(text, "at full ink"), [false]);
  assert.deepEqual(marked(text, "faded behind"), [false]);
  const lineRows = (/** @type {string} */ t) =>
    t.split("\n").filter((l) => /^(SQLite|PostgreSQL) +\d+\.\d\d +\d+\.\d\d /.test(l));
  assert.deepEqual(
    lineRows(text).map((l) => l.includes("OVER TARGET")),
    [false, false],
  );
  // At each target, still within; one past it, marked.
  results.sizes.wasmGzipBytes = targets.wasmGzipBytes;
  results.sizes.firstPaintGzipBytes = targets.firstPaintGzipBytes + 1;
  results.sizes.landingGzipBytes = targets.landingGzipBytes + 1;
  results.painter.plain.p95Ms = targets.painterP95Ms;
  results.painter.faded.p95Ms = 0.31;
  results.line[0].placeP95Ms = LINE_TARGETS.placeP95Ms + 0.01;
  results.line[1].placeP95Ms = LINE_TARGETS.placeP95Ms;
  results.line[1].waveSeconds = LINE_TARGETS.waveSeconds + 0.01;
  text = report(results);
  assert.deepEqual(marked(text, ".wasm"), [false]);
  assert.deepEqual(marked(text, "before / can paint"), [true]);
  assert.deepEqual(marked(text, "everything / loads"), [true]);
  assert.deepEqual(marked(text, "at full ink"), [false]);
  assert.deepEqual(marked(text, "faded behind"), [true]);
  const rows = lineRows(text);
  assert.equal(rows.length, 2);
  assert.ok(rows[0].endsWith(" - place p95 OVER TARGET"), rows[0]);
  assert.ok(rows[1].endsWith(" - wave OVER TARGET"), rows[1]);
  assert.ok(!rows[1].includes("place p95"), rows[1]);
});
