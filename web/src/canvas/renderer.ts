import type { BackgroundHandle, Core, Variant } from "../core";

/** The page's text column, behind which shapes fade: every page's header lays it out. */
const COLUMN = ".site-header .container";

/** The same shapes on every visit: the background is part of the design. */
const SEED = 2025;
/** Beyond 2, extra pixels cost time and show nothing at this opacity. */
const MAX_PIXEL_RATIO = 2;

/**
 * Runs the core's background on a canvas: the core moves and draws the shapes; this
 * decides when. Runs only while it should: not when paused, under reduced motion (one
 * still frame instead), with the tab hidden or the canvas off-screen. Owns its background
 * handle; `destroy()` disposes of it.
 */
export class BackgroundRenderer {
  readonly #background: BackgroundHandle;
  readonly #cleanups: (() => void)[] = [];
  #frame = 0;
  #last: number | null = null;
  #paused = false;
  #reducedMotion: boolean;
  #onScreen = true;

  /** A renderer, or null where the canvas cannot draw: the page does without. */
  static create(canvas: HTMLCanvasElement, core: Core, variant: Variant) {
    const background = core.createBackground(variant, innerWidth, innerHeight, SEED);
    if (!background.attach(canvas, pixelRatio())) {
      background.dispose();
      return null;
    }
    return new BackgroundRenderer(canvas, background);
  }

  private constructor(canvas: HTMLCanvasElement, background: BackgroundHandle) {
    this.#background = background;
    canvas.dataset.shapeCount = String(background.count);
    this.#followTheme();

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
      this.#followTheme();
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
    this.#fadeBehindText();
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
    // Every refresh tells the core the time; it draws the frames that are due. The first
    // refresh after a pause moves nothing: no jump, however long it was.
    this.#background.frame(this.#last === null ? 0 : now - this.#last);
    this.#last = now;
    this.#frame = requestAnimationFrame(this.#tick);
  };

  #resize() {
    // Resizing redraws the canvas at once: no blank frame.
    this.#background.resize(innerWidth, innerHeight, pixelRatio());
    this.#fadeBehindText();
  }

  #fadeBehindText() {
    const column = document.querySelector(COLUMN)?.getBoundingClientRect();
    this.#background.setFade(column ? { left: column.left, right: column.right } : null);
  }

  #followTheme() {
    this.#background.setTheme(document.documentElement.dataset.theme === "dark" ? "dark" : "light");
  }
}

/** Device pixels per CSS pixel, capped at MAX_PIXEL_RATIO. */
function pixelRatio() {
  return Math.min(devicePixelRatio || 1, MAX_PIXEL_RATIO);
}
