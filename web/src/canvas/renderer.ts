import { type BackgroundHandle, type Core, type Variant, constants } from "../core";
import type { Theme } from "../content/theme";
import { drawShape } from "./drawShape";

/** How strongly shapes show in each theme: decoration, never competing with text. */
const ink: Record<Theme, { fill: number; stroke: number }> = {
  light: { fill: 0.1, stroke: 0.32 },
  dark: { fill: 0.14, stroke: 0.42 },
};

/** The same shapes on every visit: the background is part of the design. */
const SEED = 2025;
/** Beyond 2, extra pixels cost time and show nothing at this opacity. */
const MAX_PIXEL_RATIO = 2;

/**
 * Draws the core's background simulation on a canvas. Runs only while it should: not
 * when paused, under reduced motion (one still frame instead), with the tab hidden or
 * the canvas off-screen. Owns its background handle; `destroy()` disposes of it.
 */
export class BackgroundRenderer {
  readonly #canvas: HTMLCanvasElement;
  readonly #ctx: CanvasRenderingContext2D;
  readonly #background: BackgroundHandle;
  /** Fill and stroke styles per theme and palette index, made once. */
  readonly #styles: Record<Theme, { fill: string[]; stroke: string[] }>;
  readonly #cleanups: (() => void)[] = [];
  #frame = 0;
  #last: number | null = null;
  #paused = false;
  #reducedMotion: boolean;
  #onScreen = true;
  #pixelRatio = 1;
  /** Each shape's last drawn box (x, y, w, h in device pixels), to clear only those. */
  #drawn: Float32Array;
  /** True when the whole canvas must be cleared: first frame, resize, theme change. */
  #clearAll = true;

  /** A renderer, or null where the canvas cannot draw: the page does without. */
  static create(canvas: HTMLCanvasElement, core: Core, variant: Variant) {
    const ctx = canvas.getContext("2d");
    return ctx ? new BackgroundRenderer(canvas, ctx, core, variant) : null;
  }

  private constructor(
    canvas: HTMLCanvasElement,
    ctx: CanvasRenderingContext2D,
    core: Core,
    variant: Variant,
  ) {
    this.#canvas = canvas;
    this.#ctx = ctx;
    this.#background = core.createBackground(variant, innerWidth, innerHeight, SEED);
    this.#styles = stylesFor(constants.background.palette);
    this.#drawn = new Float32Array(this.#background.count * 4);
    canvas.dataset.shapeCount = String(this.#background.count);

    const motion = matchMedia("(prefers-reduced-motion: reduce)");
    this.#reducedMotion = motion.matches;
    this.#listen(motion, "change", () => {
      this.#reducedMotion = motion.matches;
      this.#update();
    });
    this.#listen(document, "visibilitychange", () => {
      this.#update();
    });
    this.#listen(window, "resize", () => {
      this.#resize();
    });
    const themeObserver = new MutationObserver(() => {
      this.#clearAll = true;
      this.#draw();
    });
    themeObserver.observe(document.documentElement, { attributeFilter: ["data-theme"] });
    this.#cleanups.push(() => {
      themeObserver.disconnect();
    });
    if ("IntersectionObserver" in window) {
      const visibility = new IntersectionObserver(([entry]) => {
        this.#onScreen = entry?.isIntersecting ?? true;
        this.#update();
      });
      visibility.observe(canvas);
      this.#cleanups.push(() => {
        visibility.disconnect();
      });
    }
    // Running, the first frame draws: the effect that creates this stays short.
    this.#update();
    this.#resize();
  }

  /** Whether frames are being drawn. */
  get running(): boolean {
    return this.#frame !== 0;
  }

  setPaused(paused: boolean) {
    this.#paused = paused;
    this.#update();
  }

  destroy() {
    this.#stop();
    for (const cleanup of this.#cleanups) cleanup();
    this.#background.dispose();
  }

  #listen(target: EventTarget, type: string, handler: () => void) {
    target.addEventListener(type, handler);
    this.#cleanups.push(() => {
      target.removeEventListener(type, handler);
    });
  }

  #update() {
    const shouldRun = !this.#paused && !this.#reducedMotion && !document.hidden && this.#onScreen;
    if (shouldRun && !this.running) {
      this.#last = null;
      this.#frame = requestAnimationFrame(this.#tick);
    } else if (!shouldRun) {
      this.#stop();
    }
  }

  #stop() {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }

  readonly #tick = (now: number) => {
    // The first frame after a pause moves nothing: no jump, however long it was.
    this.#background.step(this.#last === null ? 0 : now - this.#last);
    this.#last = now;
    this.#draw();
    this.#frame = requestAnimationFrame(this.#tick);
  };

  #resize() {
    const ratio = Math.min(devicePixelRatio || 1, MAX_PIXEL_RATIO);
    const width = innerWidth;
    const height = innerHeight;
    this.#pixelRatio = ratio;
    this.#canvas.width = Math.round(width * ratio);
    this.#canvas.height = Math.round(height * ratio);
    this.#background.resize(width, height);
    this.#clearAll = true;
    // Resizing blanks the canvas; a running loop redraws it before the next paint.
    if (!this.running) this.#draw();
  }

  #draw() {
    const ctx = this.#ctx;
    const rows = this.#background.rows();
    const { stride, offsets, kinds } = constants.background;
    const theme: Theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    const styles = this.#styles[theme];
    const ratio = this.#pixelRatio;
    const drawn = this.#drawn;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    // Clear only where shapes were and will be: far fewer pixels than the whole canvas,
    // which matters where the canvas is drawn without a GPU. Every shape's area is
    // cleared before all are redrawn, so translucent shapes never build up.
    if (this.#clearAll) {
      ctx.clearRect(0, 0, this.#canvas.width, this.#canvas.height);
      this.#clearAll = false;
    } else {
      for (let i = 0; i < drawn.length; i += 4) {
        ctx.clearRect(drawn[i] ?? 0, drawn[i + 1] ?? 0, drawn[i + 2] ?? 0, drawn[i + 3] ?? 0);
      }
    }
    for (let row = 0, i = 0; row < rows.length; row += stride, i += 4) {
      // The rotated shape's reach, plus its stroke and antialiasing.
      const reach = ((rows[row + offsets.size] ?? 0) * 0.71 + 2) * ratio;
      const x = (rows[row + offsets.x] ?? 0) * ratio - reach;
      const y = (rows[row + offsets.y] ?? 0) * ratio - reach;
      ctx.clearRect(x, y, reach * 2, reach * 2);
      drawn[i] = x;
      drawn[i + 1] = y;
      drawn[i + 2] = reach * 2;
      drawn[i + 3] = reach * 2;
    }
    ctx.lineWidth = 1.5;
    for (let row = 0; row < rows.length; row += stride) {
      const kind = kinds[rows[row + offsets.kind] ?? 0] ?? "block";
      const colour = rows[row + offsets.colour] ?? 0;
      ctx.setTransform(
        ratio,
        0,
        0,
        ratio,
        (rows[row + offsets.x] ?? 0) * ratio,
        (rows[row + offsets.y] ?? 0) * ratio,
      );
      ctx.rotate(rows[row + offsets.angle] ?? 0);
      ctx.fillStyle = styles.fill[colour] ?? "transparent";
      ctx.strokeStyle = styles.stroke[colour] ?? "transparent";
      drawShape(ctx, kind, rows[row + offsets.size] ?? 0);
    }
  }
}

function stylesFor(
  palette: readonly string[],
): Record<Theme, { fill: string[]; stroke: string[] }> {
  const rgb = palette.map((hex) =>
    [1, 3, 5].map((i) => String(parseInt(hex.slice(i, i + 2), 16))).join(" "),
  );
  const themed = (theme: Theme) => ({
    fill: rgb.map((c) => `rgb(${c} / ${String(ink[theme].fill)})`),
    stroke: rgb.map((c) => `rgb(${c} / ${String(ink[theme].stroke)})`),
  });
  return { light: themed("light"), dark: themed("dark") };
}
