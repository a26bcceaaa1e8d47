import { type ReactNode, useEffect, useRef } from "react";
import { useLocation } from "wouter";
import { chrome } from "../content/site";
import { AnimatedBackground } from "./AnimatedBackground";
import { Footer } from "./Footer";
import { Header } from "./Header";

/** Every page: skip link, header, main content, footer, and the background behind. */
export function Layout({ children }: { readonly children: ReactNode }) {
  const [pathname] = useLocation();
  const main = useRef<HTMLElement>(null);

  // After each client-side navigation (a link, even to the page already shown, or back
  // and forward), start at the top, at once, and move focus to the new page, as a full
  // page load would. The router announces its navigations as `pushState` events; in-page
  // anchors are left to the browser.
  useEffect(() => {
    const navigated = () => {
      if (window.location.hash) return;
      window.scrollTo({ top: 0, left: 0, behavior: "instant" });
      main.current?.focus({ preventScroll: true });
    };
    for (const type of ["pushState", "popstate"]) addEventListener(type, navigated);
    return () => {
      for (const type of ["pushState", "popstate"]) removeEventListener(type, navigated);
    };
  }, []);

  return (
    <>
      <a className="skip-link" href="#main">
        {chrome.skipLink}
      </a>
      <AnimatedBackground variant={pathname === "/" ? "landing" : "page"} />
      <Header />
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
      <Footer />
    </>
  );
}
