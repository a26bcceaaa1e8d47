import { useEffect, useRef } from "react";
import { BackgroundRenderer } from "../canvas/renderer";
import type { Variant } from "../core";
import { chrome } from "../content/site";
import { useCore } from "../hooks/useCore";
import { useHydrated } from "../hooks/useHydrated";
import { useMotion } from "../hooks/motion";
import { useMediaQuery } from "../hooks/useMediaQuery";

/**
 * The decorative canvas behind every page, drawn from the core's simulation, and the
 * page's control to pause its animations, this one and the hero's demo (WCAG 2.2.2).
 * Under reduced motion both are still and the control is not needed.
 */
export function AnimatedBackground({ variant }: { readonly variant: Variant }) {
  const status = useCore();
  const canvas = useRef<HTMLCanvasElement>(null);
  const renderer = useRef<BackgroundRenderer | null>(null);
  const { paused, setPaused } = useMotion();
  const hydrated = useHydrated();
  const reducedMotion = useMediaQuery("(prefers-reduced-motion: reduce)");
  const core = status.state === "ready" ? status.core : null;

  useEffect(() => {
    if (!core || !canvas.current) return;
    const r = BackgroundRenderer.create(canvas.current, core, variant);
    if (!r) return;
    renderer.current = r;
    return () => {
      renderer.current = null;
      r.destroy();
    };
  }, [core, variant]);

  // A renderer made anew (another page, the core arriving) starts as the visitor left it.
  useEffect(() => {
    renderer.current?.setPaused(paused);
  }, [paused, core, variant]);

  return (
    <>
      <canvas ref={canvas} className="background-canvas" aria-hidden="true" />
      {hydrated && !reducedMotion && (
        <button
          type="button"
          className="background-toggle"
          aria-label={paused ? chrome.playAnimations : chrome.pauseAnimations}
          title={paused ? chrome.playAnimations : chrome.pauseAnimations}
          onClick={() => {
            // Tell the renderer at once: no frame may follow the click.
            renderer.current?.setPaused(!paused);
            setPaused(!paused);
          }}
        >
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            {paused ? (
              <path d="M4 2.5v11l9-5.5z" fill="currentColor" />
            ) : (
              <path d="M4 2.5h3v11H4zM9 2.5h3v11H9z" fill="currentColor" />
            )}
          </svg>
        </button>
      )}
    </>
  );
}
