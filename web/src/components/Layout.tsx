import { useEffect, useRef } from "react";
import { Outlet, useLocation } from "react-router";
import { chrome } from "../content/site";
import { AnimatedBackground } from "./AnimatedBackground";
import { Footer } from "./Footer";
import { Header } from "./Header";

/** Every page: skip link, header, main content, footer, and the background behind. */
export function Layout() {
  const { pathname, hash } = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  // After a client-side navigation, start at the top and move focus to the new page,
  // as a full page load would; in-page anchors are left to the browser.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    if (hash) return;
    window.scrollTo(0, 0);
    main.current?.focus({ preventScroll: true });
  }, [pathname, hash]);

  return (
    <>
      <a className="skip-link" href="#main">
        {chrome.skipLink}
      </a>
      <AnimatedBackground variant={pathname === "/" ? "landing" : "page"} />
      <Header />
      <main id="main" ref={main} tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
    </>
  );
}
