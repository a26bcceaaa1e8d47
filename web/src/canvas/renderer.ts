import type { BackgroundHandle, Core, Variant } from "../core";
import type { Theme } from "../content/theme";

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
 * Runs the core's background on a canvas, which the core draws itself (from Rust, timed
 * beside a TypeScript renderer by `make bench`: the same within its resolution, and the
 * core's needs no drawing code here). Runs only while it should: not when paused, under
 * reduced motion (one still frame instead), with the tab hidden or the canvas off-screen.
 * Owns its background handle; `destroy()` disposes of it.
 */
export class BackgroundRenderer {
  readonly #background: BackgroundHandle;
  readonly #cleanups: (() => void)[] = [];
  #frame = 0;
  #last: number | null = null;
  #paused = false;
  #reducedMotion: boolean;
  #onScreen = true;
  #pixelRatio = pixelRatio();

  /** A renderer, or null where the canvas cannot draw: the page does without. */
  static create(canvas: HTMLCanvasElement, core: Core, variant: Variant) {
    const background = core.createBackground(variant, innerWidth, innerHeight, SEED);
    // Attaching draws the first frame: a still one, whatever happens next.
    if (!background.attach(canvas, pixelRatio())) {
      background.dispose();
      return null;
    }
    return new BackgroundRenderer(canvas, background);
  }

  private constructor(canvas: HTMLCanvasElement, background: BackgroundHandle) {
    this.#background = background;
    this.#ink();
    canvas.dataset.shapeCount = String(background.count);

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
      this.#resize(canvas);
    });
    const themeObserver = new MutationObserver(() => {
      this.#ink();
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
    this.#update();
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
    this.#background.frame(this.#last === null ? 0 : now - this.#last);
    this.#last = now;
    this.#frame = requestAnimationFrame(this.#tick);
  };

  /** The theme's ink; the core redraws. */
  #ink() {
    const theme: Theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    this.#background.setInk(ink[theme].fill, ink[theme].stroke);
  }

  /** Follows the viewport (and a new pixel ratio, after a zoom); the core redraws. */
  #resize(canvas: HTMLCanvasElement) {
    this.#background.resize(innerWidth, innerHeight);
    const ratio = pixelRatio();
    if (ratio !== this.#pixelRatio) {
      this.#pixelRatio = ratio;
      this.#background.attach(canvas, ratio);
      this.#ink();
    }
  }
}

/** Device pixels per CSS pixel, capped. */
function pixelRatio() {
  return Math.min(devicePixelRatio || 1, MAX_PIXEL_RATIO);
}
