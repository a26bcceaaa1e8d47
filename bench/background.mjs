// make bench, the background in Chromium as the landing page runs it: the core's own step
// (25 shapes), whole frames as the page draws them, and the core's cold start (fetch +
// instantiate).
import { coreFiles } from "./painter.mjs";

/**
 * The background: the core's own step, then whole frames as the page draws them. A
 * frame's figure is the main thread's own time in the animation-frame callback that drew
 * it (the `tdur` of its FireAnimationFrame in a trace): what the page costs the phone.
 * Its wall time is printed beside it: on two cores it also counts the moments the
 * browser's other threads (compositor, raster) and the harness took the core from it,
 * which made a p95 of 1.8 to 2.2 ms out of about 0.4 ms of the page's own work.
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
    let drew = false;
    Object.defineProperty(CanvasRenderingContext2D.prototype, "lineWidth", {
      ...line,
      set(value) {
        drew = true;
        line.set.call(this, value);
      },
    });
    const drawn = [];
    let waiting = null;
    // Resolves once `n` more drawing callbacks have run, with their ids and wall times.
    // Nothing polls meanwhile: on two cores, the harness waking to ask slows the very
    // frames it times.
    window.timeFrames = (n) =>
      new Promise((resolve) => {
        drawn.length = 0;
        waiting = { n, resolve };
      });
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => {
      const id = raf((time) => {
        drew = false;
        const start = performance.now();
        callback(time);
        if (drew) drawn.push([id, performance.now() - start]);
        if (waiting && drawn.length >= waiting.n) {
          waiting.resolve(drawn.splice(0));
          waiting = null;
        }
      });
      return id;
    };
  });
  const page = await context.newPage();
  const core = coreFiles(dist);
  await page.goto(origin + "/");
  await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
  // Start-up frames (compilation, first layout) are not the steady state: skip about a
  // second's worth, then take about three seconds' worth (30 drawn frames a second).
  await page.evaluate(() => window.timeFrames(30));
  await browser.startTracing(page, { categories: ["devtools.timeline"] });
  const drawn = await page.evaluate(() => window.timeFrames(90));
  const trace = JSON.parse((await browser.stopTracing()).toString());
  const fired = new Map(
    trace.traceEvents
      .filter((e) => e.name === "FireAnimationFrame" && e.ph === "X")
      .map((e) => [e.args.data.id, e]),
  );
  const own = drawn.map(([id]) => fired.get(id)?.tdur);
  if (own.some((us) => us === undefined))
    throw new Error("a drawn frame is missing from the trace, or has no thread time");
  const frames = own.map((us) => us / 1000);
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

  const pick = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return Number(
      (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(3),
    );
  };
  return {
    stepMicroseconds: Number(step.toFixed(2)),
    frames: frames.length,
    frameMedianMs: pick(frames, 0.5),
    frameP95Ms: pick(frames, 0.95),
    wallMedianMs: pick(walls, 0.5),
    wallP95Ms: pick(walls, 0.95),
    coreStartupMs: Number(startup.toFixed(1)),
  };
}
