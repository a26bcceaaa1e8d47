// make bench, the background's painter in Chromium at DPR 1: the core moving and drawing
// its shapes on a canvas from Rust (`Background.attach`, then `frame` each animation
// frame, through web-sys), as the site runs it: the landing page's 25 shapes on a
// 1280 × 800 canvas, in the light theme, with and without the fade behind a text column.
// A frame's main-thread time is the step and the drawing, timed inside
// requestAnimationFrame (in batches).
import constants from "../pkg/constants.json" with { type: "json" };
import { wasmAssets } from "./site.mjs";

/** Frames measured per case, after as many again to warm up. */
const FRAMES = 300;
/**
 * Frames drawn back to back in each animation frame: the browser's clock is coarsened to
 * 0.1 ms (no cross-origin isolation), so a batch is timed and divided.
 */
const BATCH = 10;
/** The site's text column at 1280 px: the header's container. */
const COLUMN = { left: 88, right: 1192 };

/**
 * @param {import("@playwright/test").Browser} browser
 * @param {string} origin the built site, served
 * @param {string} dist its folder
 * @returns {Promise<Record<"plain" | "faded", { frames: number, medianMs: number, p95Ms: number }>>}
 */
export async function benchPainter(browser, origin, dist) {
  const core = wasmAssets(dist, "lathe_core");
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  await page.goto(`${origin}/robots.txt`);
  /** @type {Partial<Awaited<ReturnType<typeof benchPainter>>>} */
  const result = {};
  for (const fade of [null, COLUMN]) {
    const frames = await page.evaluate(measure, {
      ...core,
      fade,
      n: FRAMES,
      batch: BATCH,
      frameMs: constants.background.frameMs,
    });
    frames.sort((a, b) => a - b);
    const pick = (/** @type {number} */ q) =>
      frames[Math.min(frames.length - 1, Math.floor(q * frames.length))] ?? 0;
    result[fade ? "faded" : "plain"] = {
      frames: frames.length,
      medianMs: Number(pick(0.5).toFixed(3)),
      p95Ms: Number(pick(0.95).toFixed(3)),
    };
  }
  await context.close();
  const { plain, faded } = result;
  if (!plain || !faded) throw new Error("the painter was not timed both ways");
  return { plain, faded };
}

/**
 * Runs in the page: draws 2n frames, returns the last n frames' ms.
 * @param {{ url: string, wasm: string, fade: { left: number, right: number } | null, n: number, batch: number, frameMs: number }} options
 * @returns {Promise<number[]>}
 */
async function measure({ url, wasm, fade, n, batch, frameMs }) {
  const m = await import(url);
  await m.default({ module_or_path: wasm });
  const canvas = document.createElement("canvas");
  canvas.style.cssText = "position:fixed;inset:0;width:1280px;height:800px";
  document.body.append(canvas);
  const bg = new m.Background("landing", 1280, 800, 2025);
  bg.attach(canvas, 1);
  if (fade) bg.setFade(fade.left, fade.right);
  /** @type {number[]} */
  const times = [];
  await /** @type {Promise<void>} */ (
    new Promise((resolve) => {
      /** @type {number | null} */
      let last = null;
      const tick = (/** @type {number} */ now) => {
        // Each call a drawn frame: at least the core's frameMs apart in its time.
        const dt = Math.max(last === null ? 0 : (now - last) / batch, frameMs);
        const start = performance.now();
        for (let i = 0; i < batch; i++) bg.frame(dt);
        times.push((performance.now() - start) / batch);
        last = now;
        if (times.length < 2 * n) requestAnimationFrame(tick);
        else resolve();
      };
      requestAnimationFrame(tick);
    })
  );
  bg.free();
  canvas.remove();
  return times.slice(n);
}
