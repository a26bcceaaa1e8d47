// `make bench`: serves the built site and measures it. Prints a table, writes the figures
// to bench/results/bench.json, and updates docs/measurements.md (the latest run and a
// line in its history). Never a test: figures, with targets beside. Each section's figures
// are saved to bench/results/partial.json as it ends; after a failure,
// `BENCH_RESUME=1 make bench` measures only the sections missing (bench/sections.mjs).
//
// - Lighthouse 12.8 (system Chromium) for every route, mobile and desktop presets.
// - Sizes: the .wasm gzipped (gzip -9), and everything the landing page loads, gzipped.
// - The background in Chromium: microseconds per step (25 shapes), main-thread ms per
//   animation frame (step + draw), and the core's cold start (fetch + instantiate).
// - The form with 1 MB pasted into the message: the input event and a validating submit.
// - The servers: lathe-site beside nginx (deploy/nginx) under wrk, in turns, and
//   lathe-site's memory (servers.mjs).
// - The waitlist: sign-ups stored per second and p99, SQLite and PostgreSQL (signups.mjs),
//   and confirmation emails delivered per second through the outbox (confirmations.mjs).
// - The line at a million entries: a place read, crediting confirmations, referred
//   sign-ups and a wave in place order (line.mjs, server/examples/line.rs).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium as playwright } from "@playwright/test";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import chromium from "../tests/chromium.json" with { type: "json" };
import { benchBackground } from "./background.mjs";
import { benchPainter } from "./painter.mjs";
import { benchServers } from "./servers.mjs";
import { benchSignUps } from "./signups.mjs";
import { benchProofs } from "./proofs.mjs";
import { benchConfirmations } from "./confirmations.mjs";
import { benchWebhooks } from "./webhooks.mjs";
import { benchLine } from "./line.mjs";
import { report, writeMeasurements } from "./report.mjs";
import { pbkdf2Seconds, runSections, startRun } from "./sections.mjs";
import { floorSite, serveSite, siteRoutes } from "./site.mjs";
import { median } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "web", "dist");
const executablePath = process.env.CHROMIUM;
if (!executablePath) throw new Error("Set CHROMIUM to a Chromium executable, or run make bench");
const chromeFlags = ["--headless=new", ...chromium.args];
// BENCH_ROUTES="/" and BENCH_PRESETS=mobile narrow the Lighthouse runs while iterating.
const list = (/** @type {string | undefined} */ value, /** @type {string[]} */ all) =>
  value ? value.split(",").map((v) => v.trim()) : all;
const routes = siteRoutes(dist);
const presets = list(process.env.BENCH_PRESETS, ["mobile", "desktop"]);

const site = await serveSite({ root, dist });
const { origin } = site;

const out = join(root, "bench", "results");
mkdirSync(out, { recursive: true });
const partial = join(out, "partial.json");
/** Where each section's figures are saved as it ends, and the machine's speed as it starts. */
const saving = { file: partial, probe: pbkdf2Seconds };
const results = startRun({
  file: partial,
  // The commit the run measures, read as it starts: one made while it runs is not what it built.
  commit: currentCommit(),
  resume: process.env.BENCH_RESUME === "1",
});
await runSections(results, [["lighthouse", benchLighthouse]], saving);
const browser = await playwright.launch({ executablePath, args: chromium.args });
await runSections(
  results,
  [
    ["sizes", () => benchSizes(browser)],
    ["background", () => benchBackground(browser, origin, dist)],
    ["painter", () => benchPainter(browser, origin, dist)],
    ["form", () => benchForm(browser)],
    ["proofs", () => benchProofs(browser, { root })],
  ],
  saving,
);
// Closed before the servers are measured, so that it takes no turns of the two cores.
await browser.close();
await runSections(
  results,
  [
    ["servers", () => benchServers({ root, dist, origin, pid: Number(site.child.pid) })],
    ["signUps", () => benchSignUps({ root, dist })],
    ["confirmations", () => benchConfirmations({ root, dist })],
    ["webhooks", () => benchWebhooks({ root, dist })],
    ["line", () => benchLine({ root })],
  ],
  saving,
);

writeFileSync(join(out, "bench.json"), JSON.stringify(results, null, 2) + "\n");
rmSync(partial);
// Every section has run (or was taken from the partial file): the run is whole, though
// runSections, which fills it section by section, types it as a record of anything.
const run = /** @type {import("./results.js").Results} */ (/** @type {unknown} */ (results));
const table = report(run);
console.log(table);
writeMeasurements(run, table, join(root, "docs", "measurements.md"));
console.log("\nWritten to bench/results/bench.json and docs/measurements.md");
await site.stop();

/**
 * Lighthouse on every route and preset, one fresh Chromium per run, two ways: a new
 * visitor (a new browser), and a returning one (the same browser, after Lighthouse has
 * opened `/`). Lighthouse clears the HTTP cache before each page, as it always does, and
 * keeps local storage: the later page finds what `/` left in the browser (the theme, the
 * web font's copy) but must fetch its files anew, as a phone whose small cache has been
 * emptied since must. And the floor: a page with one heading and one paragraph (the home
 * page's), served the same way, which no page can beat. Each row is the median of
 * BENCH_RUNS runs (7 unless set: on this 2-core machine one page's simulated mobile FCP
 * spans about 100 ms from run to run, wider than the 1.10 target, and Lighthouse advises
 * medians), run in rounds, and its scores the lowest of them.
 */
async function benchLighthouse() {
  const floor = await floorSite({ root, dist });
  const times = Number(process.env.BENCH_RUNS ?? 7);
  /** @typedef {import("./results.js").LighthouseRow} Row */
  /** @typedef {(values: (number | null | undefined)[]) => number | null} Combine */
  /** @type {Combine} */
  const medianKnown = (values) => {
    const known = values.filter((v) => v != null);
    return known.length ? median(known) : null;
  };
  /** @returns {[number, number] | null} */
  const range = (/** @type {(number | null)[]} */ values) => {
    const known = values.filter((v) => v != null);
    return known.length ? [Math.min(...known), Math.max(...known)] : null;
  };
  /** @type {Combine} */
  const lowest = (values) =>
    values.some((v) => v == null) ? null : Math.min(.../** @type {number[]} */ (values));
  // One row's runs combined: the median of each figure, the lowest of each score.
  /** @returns {Row} */
  const combined = (/** @type {Row[]} */ runs) => {
    const [first] = runs;
    if (!first) throw new Error("a Lighthouse row with no runs");
    /** @typedef {"performance" | "accessibility" | "bestPractices" | "seo" | "fcpMs" | "lcpMs" | "tbtMs" | "cls" | "transferKB" | "benchmarkIndex"} Figure */
    const pick = (/** @type {Figure} */ key, /** @type {Combine} */ combine) =>
      combine(runs.map((r) => r[key]));
    return {
      ...first,
      runs: runs.length,
      performance: pick("performance", lowest),
      accessibility: pick("accessibility", lowest),
      bestPractices: pick("bestPractices", lowest),
      seo: pick("seo", lowest),
      fcpMs: pick("fcpMs", medianKnown),
      lcpMs: pick("lcpMs", medianKnown),
      tbtMs: pick("tbtMs", medianKnown),
      cls: pick("cls", (values) => Math.max(...values.map((v) => v ?? 0))),
      transferKB: pick("transferKB", medianKnown),
      benchmarkIndex: pick("benchmarkIndex", medianKnown),
      fcpRange: range(runs.map((r) => r.fcpMs)),
      lcpRange: range(runs.map((r) => r.lcpMs)),
      error: runs.map((r) => r.error).find(Boolean) ?? null,
      shifts: runs.flatMap((r, i) => r.shifts.map((shift) => `run ${String(i + 1)} ${shift}`)),
    };
  };
  const rowsToRun = presets.flatMap((preset) => [
    { url: floor.origin + "/", route: "floor", preset },
    ...routes.map((route) => ({ url: origin + route, route, preset })),
    ...routes.map((route) => ({ url: origin + route, route, preset, after: origin + "/" })),
  ]);
  try {
    // In rounds, every row once a round: whatever else the machine does meanwhile falls
    // on the floor and on the pages alike, not on the rows that happened to run then.
    /** @type {Row[][]} */
    const runs = rowsToRun.map(() => []);
    for (let round = 1; round <= times; round++) {
      for (const [i, options] of rowsToRun.entries()) runs[i]?.push(await lighthouseRun(options));
      // A round takes minutes: say how far it has come.
      console.log(
        `lighthouse round ${String(round)} of ${String(times)}: FCP ${runs.map((r) => r.at(-1)?.fcpMs).join(" ")}`,
      );
    }
    return runs.map(combined);
  } finally {
    await floor.stop();
  }
}

/**
 * One Lighthouse run of `url` with `preset`; with `after`, in a browser that has first
 * opened `after` (Lighthouse's own reset between: HTTP cache cleared, local storage kept).
 * @param {{ url: string, route: string, preset: string, after?: string }} row
 * @returns {Promise<import("./results.js").LighthouseRow>}
 */
async function lighthouseRun({ url, route, preset, after }) {
  const config = preset === "desktop" ? desktopConfig : undefined;
  /** @type {import("lighthouse").Flags} */
  const flags = { output: "json", logLevel: "error" };
  // A fresh Chromium sometimes fails to record the first trace (NO_NAVSTART): retry.
  /** @type {import("lighthouse").RunnerResult | undefined} */
  let run;
  for (let attempt = 0; attempt < 3 && !(run && !run.lhr.runtimeError); attempt++) {
    const chrome = await chromeLauncher.launch({ chromePath: executablePath, chromeFlags });
    try {
      if (after) await lighthouse(after, { ...flags, port: chrome.port }, config);
      run = await lighthouse(url, { ...flags, port: chrome.port }, config);
    } finally {
      await chrome.kill();
    }
  }
  if (!run) throw new Error(`Lighthouse gave no result for ${url}`);
  const { categories, audits, runtimeError, environment } = run.lhr;
  const metric = (/** @type {string} */ id, digits = 0) => {
    const value = audits[id]?.numericValue;
    return typeof value === "number" ? Number(value.toFixed(digits)) : null;
  };
  const score = (/** @type {string} */ id) => {
    const value = categories[id]?.score;
    return value == null ? null : Math.round(value * 100);
  };
  return {
    route,
    preset,
    visit: after ? "after /" : "new",
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    fcpMs: metric("first-contentful-paint"),
    lcpMs: metric("largest-contentful-paint"),
    tbtMs: metric("total-blocking-time"),
    cls: metric("cumulative-layout-shift", 3),
    transferKB: audits["total-byte-weight"]?.numericValue
      ? Number((audits["total-byte-weight"].numericValue / 1000).toFixed(1))
      : null,
    shifts: layoutShifts(run),
    benchmarkIndex:
      typeof environment?.benchmarkIndex === "number"
        ? Math.round(environment.benchmarkIndex)
        : null,
    error: runtimeError?.message ?? audits["cumulative-layout-shift"]?.errorMessage ?? null,
  };
}

/**
 * The layout shifts of one Lighthouse run, if any: when each happened (ms after the
 * navigation began, from the trace) and its score, and the elements Lighthouse says moved
 * most, with the causes it suspects. CLS must be 0; a run where it is not says why here.
 * @param {import("lighthouse").RunnerResult} run
 */
function layoutShifts(run) {
  if (!((run.lhr.audits["cumulative-layout-shift"]?.numericValue ?? 0) > 0)) return [];
  const events = run.artifacts.Trace.traceEvents;
  const start = events.findLast(
    (e) => e.name === "navigationStart" && e.args?.data?.isLoadingMainFrame,
  )?.ts;
  const moved = (run.lhr.audits["layout-shifts"]?.details?.items ?? []).map(
    (item) =>
      `${item.node?.selector ?? item.node?.snippet ?? "?"} ${item.score.toFixed(4)}${(item.subItems?.items ?? []).map((sub) => ` (${String(sub.cause)})`).join("")}`,
  );
  const times = events
    .filter((e) => e.name === "LayoutShift")
    .map(
      (e) =>
        `${String(Math.round((e.ts - (start ?? e.ts)) / 1000))} ms: ${(e.args?.data?.weighted_score_delta ?? 0).toFixed(4)}`,
    );
  return [`at ${times.join(", ")}; moved: ${moved.join(", ")}`];
}

/**
 * What the landing page loads, each file gzipped at level 9.
 * @param {import("@playwright/test").Browser} browser
 * @returns {Promise<import("./results.js").Sizes>}
 */
async function benchSizes(browser) {
  const page = await browser.newPage();
  /** @type {Set<string>} */
  const loaded = new Set();
  page.on("requestfinished", (r) => loaded.add(new URL(r.url()).pathname));
  await page.goto(origin + "/", { waitUntil: "networkidle" });
  await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
  const files = [...loaded].map((path) => {
    const file = path === "/" ? "index.html" : path.slice(1);
    return { path, gzip: gzipSync(readFileSync(join(dist, file)), { level: 9 }).length };
  });
  const wasm = readdirSync(join(dist, "assets")).find((f) => f.endsWith(".wasm"));
  if (!wasm) throw new Error(`${dist}/assets has no .wasm: run make build`);
  await page.close();
  return {
    wasmGzipBytes: gzipSync(readFileSync(join(dist, "assets", wasm)), { level: 9 }).length,
    landingGzipBytes: files.reduce((sum, f) => sum + f.gzip, 0),
    // The page and its stylesheets: all the first paint waits for (the app loads after it).
    firstPaintGzipBytes: files
      .filter((f) => f.path === "/" || f.path.endsWith(".css"))
      .reduce((sum, f) => sum + f.gzip, 0),
    landingFiles: files,
  };
}

/**
 * The form with a 1 MB message pasted in: the input event, then a validating submit.
 * @param {import("@playwright/test").Browser} browser
 * @returns {Promise<import("./results.js").FormFigures>}
 */
async function benchForm(browser) {
  const page = await browser.newPage();
  await page.goto(origin + "/contact");
  await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
  const paste = await page.evaluate(() => {
    const textarea = document.querySelector("textarea");
    const form = document.querySelector("form");
    const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")?.set;
    if (!textarea || !form || !setValue) throw new Error("/contact has no form to paste into");
    const big = "Lathe ✨ שלום\n".repeat(80_000);
    const t0 = performance.now();
    setValue.call(textarea, big);
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
    const t1 = performance.now();
    // The browser's own layout of the text, apart, so the next figure is validation.
    void document.body.offsetHeight;
    const t2 = performance.now();
    form.requestSubmit();
    const t3 = performance.now();
    return {
      bytes: new TextEncoder().encode(big).length,
      inputMs: t1 - t0,
      layoutMs: t2 - t1,
      submitMs: t3 - t2,
    };
  });
  await page.close();
  return {
    pastedBytes: paste.bytes,
    inputMs: Number(paste.inputMs.toFixed(1)),
    browserLayoutMs: Number(paste.layoutMs.toFixed(0)),
    submitMs: Number(paste.submitMs.toFixed(1)),
  };
}

/** HEAD's short hash, or "uncommitted" outside a git checkout. */
function currentCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim();
  } catch {
    return "uncommitted";
  }
}
