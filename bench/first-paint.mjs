// `make bench-paint`: where each page's main-thread time before its first contentful
// paint goes, beside the floor page's (site.mjs). Lighthouse's simulated FCP (make bench)
// is the network's time plus the page's first parse, first layout and first paint tasks,
// each twice its length if it laid out and four times if not (docs/architecture.md,
// "Measuring"), and those tasks are made of this work, printed by kind: it answers in
// about three minutes, not make bench's hour, which is what trying a change needs.
//
// Each page is opened BENCH_PAINT_RUNS times (15 unless set), each time in a fresh
// Chromium at Lighthouse's mobile size (412 x 823, DPR 1.75), in rounds (every page once
// a round), and traced; a kind's figure is the median over the runs of its self time (its
// own, less the other kinds inside it) on the page's main thread before the first
// contentful paint. A fresh browser is the point: a first visit pays for opening local
// storage and for finding and loading each font, and those costs are most of the gap.
// Beside them, "counted": the page's first parse, layout and paint tasks weighed as the
// model weighs them (in Lighthouse's own runs that sum follows its FCP almost one for
// one). Here each visit is a new browser's first page, whose tasks run longer than in
// Lighthouse's, so compare the pages with each other and with the floor, not with make
// bench's figures. Never a test: figures, with the floor beside.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import flags from "../tests/chromium.json" with { type: "json" };
import { floorSite, serveSite, siteRoutes } from "./site.mjs";
import { median } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "web", "dist");
const executablePath = process.env.CHROMIUM;
if (!executablePath)
  throw new Error("Set CHROMIUM to a Chromium executable, or run make bench-paint");
const runs = Number(process.env.BENCH_PAINT_RUNS ?? 15);
const routes = siteRoutes(dist);

/** @typedef {"parse" | "scripts" | "style" | "layout" | "paint" | "total" | "counted"} Column */

/** The trace events timed, each under the kind it is printed as. @type {Record<string, Column>} */
const kinds = {
  ParseHTML: "parse",
  EvaluateScript: "scripts",
  UpdateLayoutTree: "style",
  Layout: "layout",
  PrePaint: "paint",
  Paint: "paint",
};
/** @type {Column[]} */
const columns = ["parse", "scripts", "style", "layout", "paint", "total", "counted"];

/**
 * One visit to `url` in a fresh browser: each kind's self time (ms) on the page's main
 * thread before its first contentful paint, and their total.
 * @param {string} url
 * @returns {Promise<Record<Column, number>>}
 */
async function visit(url) {
  const browser = await chromium.launch({ executablePath, args: flags.args });
  try {
    const context = await browser.newContext({
      viewport: { width: 412, height: 823 },
      deviceScaleFactor: 1.75,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    /** @type {any[]} */
    const events = [];
    cdp.on("Tracing.dataCollected", ({ value }) => events.push(...value));
    const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
    await cdp.send("Tracing.start", {
      categories: "toplevel,devtools.timeline,disabled-by-default-devtools.timeline,loading",
      transferMode: "ReportEvents",
    });
    await page.goto(url, { waitUntil: "load" });
    const shown = page.url();
    await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length);
    await cdp.send("Tracing.end");
    await complete;
    const parse = events.find((e) => e.name === "ParseHTML" && e.args?.beginData?.url === shown);
    const fcp = events.find((e) => e.name === "firstContentfulPaint" && e.pid === parse?.pid);
    if (!parse || !fcp)
      throw new Error(`no first parse or first contentful paint in ${url}'s trace`);
    const timed = events.filter(
      (e) =>
        e.pid === parse.pid &&
        e.tid === parse.tid &&
        e.ph === "X" &&
        e.name in kinds &&
        e.ts < fcp.ts,
    );
    /** @typedef {{ ts: number, dur: number }} Span */
    const within = (/** @type {Span} */ inner, /** @type {Span} */ outer) =>
      inner !== outer && inner.ts >= outer.ts && inner.ts + inner.dur <= outer.ts + outer.dur;
    const times = /** @type {Record<Column, number>} */ (
      Object.fromEntries(columns.map((column) => [column, 0]))
    );
    for (const event of timed) {
      const nested = timed.filter((other) => within(other, event));
      const direct = nested.filter((inner) => !nested.some((outer) => within(inner, outer)));
      const self = event.dur - direct.reduce((sum, inner) => sum + inner.dur, 0);
      const kind = kinds[event.name];
      if (kind) times[kind] += self / 1000;
      times.total += self / 1000;
    }
    // What Lighthouse's model counts of it (docs/architecture.md, "Measuring"): the whole
    // of the first task that parses, the first that lays out and the first that paints,
    // twice its length if it laid out, four times if not (the mobile preset). The tasks
    // are the page's own, from its navigation on: a new tab's blank page parses and lays
    // out first.
    const start = events.findLast(
      (e) => e.name === "navigationStart" && e.pid === parse.pid && e.ts <= parse.ts,
    );
    const tasks = events.filter(
      (e) =>
        e.pid === parse.pid &&
        e.tid === parse.tid &&
        e.ph === "X" &&
        e.name === "RunTask" &&
        e.ts >= (start?.ts ?? parse.ts) &&
        e.ts < fcp.ts,
    );
    const holds = (/** @type {Span} */ task, /** @type {string} */ name) =>
      timed.some((e) => e.name === name && within(e, task));
    const firsts = new Set(
      ["ParseHTML", "Layout", "Paint"].map((name) => tasks.find((task) => holds(task, name))),
    );
    for (const task of firsts) {
      if (task) times.counted += (task.dur / 1000) * (holds(task, "Layout") ? 2 : 4);
    }
    return times;
  } finally {
    await browser.close();
  }
}

const site = await serveSite({ root, dist });
const floor = await floorSite({ root, dist });
try {
  const rows = [
    { name: "floor", url: `${floor.origin}/` },
    ...routes.map((route) => ({ name: route, url: `${site.origin}${route}` })),
  ];
  /** @type {Record<Column, number>[][]} */
  const results = rows.map(() => []);
  for (let round = 1; round <= runs; round++) {
    for (const [i, row] of rows.entries()) results[i]?.push(await visit(row.url));
    console.error(`round ${String(round)} of ${String(runs)}`);
  }
  const medians = results.map(
    (visits) =>
      /** @type {Record<Column, number>} */ (
        Object.fromEntries(columns.map((column) => [column, median(visits.map((v) => v[column]))]))
      ),
  );
  const [floorMedians] = medians;
  if (!floorMedians) throw new Error("no floor measured");
  console.log(
    `Main-thread ms before the first contentful paint, fresh Chromium at 412 x 823, the median of ${String(runs)} visits (self time by kind; counted: the first parse, layout and paint tasks as Lighthouse's mobile model weighs them)`,
  );
  console.log(
    `${"page".padEnd(10)}${columns.map((c) => c.padStart(9)).join("")}  over the floor: total, counted`,
  );
  /** @param {number} ms */
  const signed = (ms) => `${ms >= 0 ? "+" : ""}${ms.toFixed(1)}`;
  for (const [i, m] of medians.entries()) {
    const row = rows[i];
    if (!row) continue;
    const over = i
      ? `${signed(m.total - floorMedians.total)}, ${signed(m.counted - floorMedians.counted)}`
      : "-";
    console.log(
      `${row.name.padEnd(10)}${columns.map((c) => m[c].toFixed(1).padStart(9)).join("")}  ${over}`,
    );
  }
} finally {
  await site.stop();
  await floor.stop();
}
