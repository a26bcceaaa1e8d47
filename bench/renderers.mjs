// make bench, the background's two renderers side by side, in Chromium at DPR 1: the
// core drawing itself on a canvas from Rust (`Background.attach` and `frame`, through
// web-sys), and a renderer in JavaScript reading the shapes in place from wasm memory
// (the package's typed-array view, drawn as the site drew them before the core could).
// Both draw the landing page's 25 shapes on a 1280 × 800 canvas; a frame's main-thread
// time is the step and the drawing, timed inside requestAnimationFrame (in batches).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

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
    // The JavaScript renderer, as the site had it: clear each shape's last box, then
    // draw each shape from its row, translated, scaled and rotated.
    canvas.width = 1280;
    canvas.height = 800;
    const ctx = canvas.getContext("2d");
    const { stride, offsets: o, palette, kinds } = background;
    const rgb = palette.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)).join(" "));
    const fills = rgb.map((c) => `rgb(${c} / 0.1)`);
    const strokes = rgb.map((c) => `rgb(${c} / 0.32)`);
    const drawn = new Float32Array(bg.count * 4);
    let view;
    const polygon = (sides, r) => {
      for (let i = 0; i < sides; i++) {
        const a = (i / sides) * Math.PI * 2 - Math.PI / 2;
        if (i === 0) ctx.moveTo(r * Math.cos(a), r * Math.sin(a));
        else ctx.lineTo(r * Math.cos(a), r * Math.sin(a));
      }
      ctx.closePath();
    };
    const shape = (kind, size) => {
      const r = size / 2;
      ctx.beginPath();
      if (kind === "block") ctx.roundRect(-r, -r, size, size, size * 0.18);
      else if (kind === "node") ctx.arc(0, 0, r, 0, Math.PI * 2);
      else if (kind === "triangle") polygon(3, r);
      else if (kind === "hexagon") polygon(6, r);
      else {
        const dot = size * 0.12;
        ctx.moveTo(-r + dot, 0);
        ctx.lineTo(r - dot, 0);
        ctx.stroke();
        ctx.beginPath();
        ctx.arc(-r + dot, 0, dot, 0, Math.PI * 2);
        ctx.moveTo(r, 0);
        ctx.arc(r - dot, 0, dot, 0, Math.PI * 2);
        ctx.fill();
        return;
      }
      ctx.fill();
      ctx.stroke();
    };
    frame = (dt) => {
      bg.step(dt);
      const memory = m.wasmMemory();
      if (view?.buffer !== memory.buffer) {
        view = new Float32Array(memory.buffer, bg.shapesPtr(), bg.count * stride);
      }
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      for (let i = 0; i < drawn.length; i += 4)
        ctx.clearRect(drawn[i], drawn[i + 1], drawn[i + 2], drawn[i + 3]);
      for (let row = 0, i = 0; row < view.length; row += stride, i += 4) {
        const reach = view[row + o.size] * 0.71 + 2;
        drawn[i] = view[row + o.x] - reach;
        drawn[i + 1] = view[row + o.y] - reach;
        drawn[i + 2] = drawn[i + 3] = reach * 2;
        ctx.clearRect(drawn[i], drawn[i + 1], reach * 2, reach * 2);
      }
      ctx.lineWidth = 1.5;
      for (let row = 0; row < view.length; row += stride) {
        ctx.setTransform(1, 0, 0, 1, view[row + o.x], view[row + o.y]);
        ctx.rotate(view[row + o.angle]);
        ctx.fillStyle = fills[view[row + o.colour]];
        ctx.strokeStyle = strokes[view[row + o.colour]];
        shape(kinds[view[row + o.kind]], view[row + o.size]);
      }
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
