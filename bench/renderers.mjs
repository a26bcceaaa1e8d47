// make bench, the background's two renderers side by side, in Chromium at DPR 1: the
// core drawing itself on a canvas from Rust (`Background.attach` and `frame`, through
// web-sys), and the site's own TypeScript renderer (web/src/canvas/drawShape.ts, bundled
// here as it is) reading the shapes in place from wasm memory.
// Both draw the landing page's 25 shapes on a 1280 × 800 canvas; a frame's main-thread
// time is the step and the drawing, timed inside requestAnimationFrame (in batches).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

/** Frames measured per renderer, after as many again to warm up. */
const FRAMES = 300;
/**
 * Frames drawn back to back in each animation frame: the browser's clock is coarsened to
 * 0.1 ms (no cross-origin isolation), so a batch is timed and divided.
 */
const BATCH = 10;

/**
 * @param {import("@playwright/test").Browser} browser
 * @param {string} origin the built site, served
 * @param {string} dist its folder
 */
export async function benchRenderers(browser, origin, dist) {
  const core = readdirSync(join(dist, "assets")).find((f) => /^lathe_core-.*\.js$/.test(f));
  const { background } = JSON.parse(
    readFileSync(new URL("../pkg/constants.json", import.meta.url), "utf8"),
  );
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  await page.goto(`${origin}/robots.txt`);
  // The site's drawing code, as the global `latheDraw` (drawFrame, stylesFor).
  const { output } = await build({
    input: fileURLToPath(new URL("../web/src/canvas/drawShape.ts", import.meta.url)),
    write: false,
    output: { format: "iife", name: "latheDraw" },
    logLevel: "warn",
  });
  await page.evaluate(output[0].code);
  const result = {};
  for (const renderer of ["rust", "js"]) {
    const frames = await page.evaluate(measure, {
      url: `/assets/${core}`,
      renderer,
      n: FRAMES,
      batch: BATCH,
      background,
    });
    frames.sort((a, b) => a - b);
    const pick = (q) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))] ?? 0;
    result[renderer] = {
      frames: frames.length,
      medianMs: Number(pick(0.5).toFixed(3)),
      p95Ms: Number(pick(0.95).toFixed(3)),
    };
  }
  await context.close();
  return result;
}

/** Runs in the page: draws 2n frames with one renderer, returns the last n frames' ms. */
async function measure({ url, renderer, n, batch, background }) {
  const m = await import(url);
  const canvas = document.createElement("canvas");
  canvas.style.cssText = "position:fixed;inset:0;width:1280px;height:800px";
  document.body.append(canvas);
  const bg = new m.Background("landing", 1280, 800, 2025);
  let frame;
  if (renderer === "rust") {
    bg.attach(canvas, 1);
    frame = (dt) => bg.frame(dt);
  } else {
    canvas.width = 1280;
    canvas.height = 800;
    const ctx = canvas.getContext("2d");
    // eslint-disable-next-line no-undef -- defined in the page by benchRenderers
    const { drawFrame, stylesFor } = latheDraw;
    const styles = stylesFor(background.palette, { fill: 0.1, stroke: 0.32 });
    const drawn = new Float32Array(bg.count * 4);
    let rows;
    let clearAll = true;
    frame = (dt) => {
      bg.step(dt);
      const memory = m.wasmMemory();
      if (rows?.buffer !== memory.buffer) {
        rows = new Float32Array(memory.buffer, bg.shapesPtr(), bg.count * background.stride);
      }
      drawFrame(ctx, { rows, layout: background, styles, ratio: 1, drawn, clearAll });
      clearAll = false;
    };
  }
  const times = [];
  await new Promise((resolve) => {
    let last = null;
    const tick = (now) => {
      const dt = last === null ? 0 : (now - last) / batch;
      const start = performance.now();
      for (let i = 0; i < batch; i++) frame(dt);
      times.push((performance.now() - start) / batch);
      last = now;
      if (times.length < 2 * n) requestAnimationFrame(tick);
      else resolve();
    };
    requestAnimationFrame(tick);
  });
  bg.free();
  canvas.remove();
  return times.slice(n);
}
