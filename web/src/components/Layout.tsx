import { type ReactNode, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useLocation } from "wouter";
import { chrome } from "../content/site";
import { MotionContext } from "../hooks/motion";
import { applyWebFontIfDownloaded } from "../webFont";
import { AnimatedBackground } from "./AnimatedBackground";
import { Footer } from "./Footer";
import { Header } from "./Header";

/** Every page: skip link, header, main content, footer, and the background behind. */
export function Layout({ children }: { readonly children: ReactNode }) {
  const [pathname] = useLocation();
  const main = useRef<HTMLElement>(null);
  const [paused, setPaused] = useState(false);
  const motion = useMemo(() => ({ paused, setPaused }), [paused]);

  // After each client-side navigation (a link, even to the page already shown, or back
  // and forward), start at the top, at once, and move focus to the new page, as a full
  // page load would; a link to a part of a page (the header's Features and FAQ) scrolls
  // to that part once it is shown. The router announces its navigations as `pushState`
  // events; the browser handles the in-page anchors and history's own fragments.
  // Listening from the commit that hydrates the page (a layout effect), not from a passive
  // effect, which React may run later: a link clicked in between navigated without
  // coming back to the top (seen once in five full runs of the browser tests: the footer's
  // Contact link clicked right after /terms loaded left /contact at 1432 px).
  useLayoutEffect(() => {
    const navigated = (event: Event) => {
      const target = window.location.hash.slice(1);
      if (target && event.type !== "pushState") return;
      applyWebFontIfDownloaded();
      main.current?.focus({ preventScroll: true });
      if (target) {
        requestAnimationFrame(() => {
          document.getElementById(decodeURIComponent(target))?.scrollIntoView();
        });
      } else window.scrollTo({ top: 0, left: 0, behavior: "instant" });
    };
    for (const type of ["pushState", "popstate"]) addEventListener(type, navigated);
    return () => {
      for (const type of ["pushState", "popstate"]) removeEventListener(type, navigated);
    };
  }, []);

  return (
    <MotionContext value={motion}>
      <a className="skip-link" href="#main">
        {chrome.skipLink}
      </a>
      <AnimatedBackground variant={pathname === "/" ? "landing" : "page"} />
      <Header />
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
      <Footer />
    </MotionContext>
  );
}
