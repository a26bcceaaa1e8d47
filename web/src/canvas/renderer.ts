import { type BackgroundHandle, type Core, type Variant, constants } from "../core";
import type { Theme } from "../content/theme";
import { type Fade, type Styles, drawFrame, stylesFor } from "./drawShape";

/** How strongly shapes show in each theme: decoration, never competing with text. */
const ink: Record<Theme, { fill: number; stroke: number }> = {
  light: { fill: 0.1, stroke: 0.32 },
  dark: { fill: 0.14, stroke: 0.42 },
};

/** Behind the text column shapes show at this fraction of their ink, never at full strength. */
const BEHIND_TEXT = 0.4;
/** The page's text column: every page's header lays its content out in it. */
const COLUMN = ".site-header .container";

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
  readonly #styles: Record<Theme, Styles>;
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
  /** The text column, measured at start and on every resize. */
  #fade: Fade | undefined;

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
    const { palette } = constants.background;
    this.#styles = { light: stylesFor(palette, ink.light), dark: stylesFor(palette, ink.dark) };
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
    const column = document.querySelector(COLUMN)?.getBoundingClientRect();
    this.#fade = column && {
      left: column.left,
      right: column.right,
      edge: 64,
      strength: BEHIND_TEXT,
    };
    this.#clearAll = true;
    // Resizing blanks the canvas; a running loop redraws it before the next paint.
    if (!this.running) this.#draw();
  }

  #draw() {
    const theme: Theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    drawFrame(this.#ctx, {
      rows: this.#background.rows(),
      layout: constants.background,
      styles: this.#styles[theme],
      ratio: this.#pixelRatio,
      drawn: this.#drawn,
      clearAll: this.#clearAll,
      ...(this.#fade && { fade: this.#fade }),
    });
    this.#clearAll = false;
  }
}
