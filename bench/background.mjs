// make bench, the background in Chromium as the landing page runs it: the core's own step
// (25 shapes), whole frames as the page draws them, and the core's cold start (fetch +
// instantiate).
import { wasmAssets } from "./site.mjs";
import { quantile } from "./stats.mjs";

/** Drawn frames timed: about ten seconds' worth (30 a second), so that the p95 is the
 * 15th slowest, not the 5th (with 90, one run's p95 spanned 0.52 to 0.90 ms). */
const FRAMES = 300;

/**
 * The background: the core's own step, then whole frames as the page draws them. A
 * frame's figure is the main thread's own time in the animation-frame callback that drew
 * it (the `tdur` of its FireAnimationFrame in a trace), less the floor: the median thread
 * time of an empty callback (one that only asks for the next), traced the same way on a
 * page of the same origin under the same harness. That floor is the browser's and the
 * harness's, whatever the page does (0.12 to 0.14 ms on this machine, 0.11 without the
 * harness: a third of a drawn frame); what is left is the page's own work, which the target stands for. The callback's
 * thread time and its wall time are printed beside it: on two cores the wall time also
 * counts the moments the browser's other threads (compositor, raster) and the harness
 * took the core from it, which made a p95 of 1.8 to 2.2 ms out of about 0.4 ms.
 * @param {import("@playwright/test").Browser} browser
 * @param {string} origin the built site, served
 * @param {string} dist its folder
 */
export async function benchBackground(browser, origin, dist) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    // Note every animation-frame callback that draws, by its id (the trace's): the
    // renderer is the page's only user, and it draws about every second refresh (the
    // core's frameMs); the ones that only tell the core the time are not frames. The
    // painter sets the line width once a drawn frame: that says the callback drew.
    const line = Object.getOwnPropertyDescriptor(CanvasRenderingContext2D.prototype, "lineWidth");
    const setLine = line?.set;
    if (!setLine) throw new Error("this browser's canvas has no lineWidth setter");
    let drew = false;
    Object.defineProperty(CanvasRenderingContext2D.prototype, "lineWidth", {
      ...line,
      /** @this {CanvasRenderingContext2D} @param {number} value */
      set(value) {
        drew = true;
        setLine.call(this, value);
      },
    });
    /** @type {{ n: number, drawnOnly: boolean, seen: any[], resolve: (seen: any[]) => void } | null} */
    let waiting = null;
    // Resolves once `n` more drawing callbacks have run, with their ids and wall times;
    // `timeCallbacks`, once `n` more callbacks of any kind have, with their ids (the
    // floor's, on a page that draws nothing). Nothing polls meanwhile: on two cores, the
    // harness waking to ask slows the very frames it times.
    const until = (/** @type {number} */ n, /** @type {boolean} */ drawnOnly) =>
      new Promise((resolve) => {
        waiting = { n, drawnOnly, seen: [], resolve };
      });
    window.timeFrames = (n) => until(n, true);
    window.timeCallbacks = (n) => until(n, false);
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => {
      const id = raf((time) => {
        drew = false;
        const start = performance.now();
        callback(time);
        const ms = performance.now() - start;
        if (!waiting) return;
        if (!waiting.drawnOnly) waiting.seen.push(id);
        else if (drew) waiting.seen.push([id, ms]);
        if (waiting.seen.length >= waiting.n) {
          waiting.resolve(waiting.seen);
          waiting = null;
        }
      });
      return id;
    };
  });
  const page = await context.newPage();
  const core = wasmAssets(dist, "lathe_core");
  await page.goto(origin + "/");
  await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
  // Start-up frames (compilation, first layout) are not the steady state: skip about a
  // second's worth, then take FRAMES.
  await page.evaluate(() => window.timeFrames(30));
  await browser.startTracing(page, { categories: ["devtools.timeline"] });
  const drawn = await page.evaluate((n) => window.timeFrames(n), FRAMES);
  const fired = await firedAnimationFrames(browser);
  const threadTimes = drawn.map(([id]) =>
    timed(fired, id, "a drawn frame is missing from the trace, or has no thread time"),
  );
  const walls = drawn.map(([, ms]) => ms);
  const step = await page.evaluate(async ({ url, wasm }) => {
    const m = await import(url);
    await m.default({ module_or_path: wasm });
    const bg = new m.Background("landing", 1280, 800, 1);
    for (let i = 0; i < 1000; i++) bg.step(16);
    const n = 20000;
    const start = performance.now();
    for (let i = 0; i < n; i++) bg.step(16);
    const us = ((performance.now() - start) / n) * 1000;
    bg.free();
    return us;
  }, core);
  await page.close();

  // The floor: empty callbacks on a page of the same origin that draws nothing, under the
  // same harness (its wrapper runs around each), as many, traced the same way.
  const blank = await context.newPage();
  await blank.goto(origin + "/robots.txt");
  await blank.evaluate(() => {
    const next = () => requestAnimationFrame(next);
    next();
  });
  await blank.evaluate(() => window.timeCallbacks(30));
  await browser.startTracing(blank, { categories: ["devtools.timeline"] });
  const empty = await blank.evaluate((n) => window.timeCallbacks(n), FRAMES);
  const firedEmpty = await firedAnimationFrames(browser);
  const emptyTimes = empty.map((id) =>
    timed(firedEmpty, id, "an empty callback is missing from the trace, or has no thread time"),
  );
  const floor = pick(emptyTimes, 0.5);
  const frames = threadTimes.map((ms) => ms - floor);
  await context.close();

  const fresh = await browser.newContext();
  const cold = await fresh.newPage();
  await cold.goto(origin + "/robots.txt");
  const startup = await cold.evaluate(async ({ url, wasm }) => {
    const start = performance.now();
    const m = await import(url);
    await m.default({ module_or_path: wasm });
    new m.WaitlistForm().free();
    return performance.now() - start;
  }, core);
  await fresh.close();

  return {
    stepMicroseconds: Number(step.toFixed(2)),
    frames: frames.length,
    frameMedianMs: pick(frames, 0.5),
    frameP95Ms: pick(frames, 0.95),
    threadMedianMs: pick(threadTimes, 0.5),
    threadP95Ms: pick(threadTimes, 0.95),
    floorMedianMs: floor,
    floorP95Ms: pick(emptyTimes, 0.95),
    wallMedianMs: pick(walls, 0.5),
    wallP95Ms: pick(walls, 0.95),
    coreStartupMs: Number(startup.toFixed(1)),
  };
}

/**
 * Stops the trace under way: each animation-frame callback's thread time in ms, by id.
 * @param {import("@playwright/test").Browser} browser
 * @returns {Promise<Map<number, number>>}
 */
async function firedAnimationFrames(browser) {
  /** @type {{ traceEvents: { name: string, ph: string, tdur?: number, args: { data: { id: number } } }[] }} */
  const trace = JSON.parse((await browser.stopTracing()).toString());
  return new Map(
    trace.traceEvents.flatMap((e) =>
      e.name === "FireAnimationFrame" && e.ph === "X" && e.tdur !== undefined
        ? [[e.args.data.id, e.tdur / 1000]]
        : [],
    ),
  );
}

/**
 * The thread time the trace gave callback `id`; `missing` is thrown if it gave none.
 * @param {Map<number, number>} fired
 * @param {number} id
 * @param {string} missing
 */
function timed(fired, id, missing) {
  const ms = fired.get(id);
  if (ms === undefined) throw new Error(missing);
  return ms;
}

/**
 * The value at quantile `q` of `values`, to the microsecond.
 * @param {number[]} values
 * @param {number} q
 */
function pick(values, q) {
  return Number(quantile(values, q).toFixed(3));
}
