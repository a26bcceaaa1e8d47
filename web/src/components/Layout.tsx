import { useEffect, useRef } from "react";
import { Outlet, useLocation } from "react-router";
import { chrome } from "../content/site";
import { AnimatedBackground } from "./AnimatedBackground";
import { Footer } from "./Footer";
import { Header } from "./Header";

/**
 * The key React Router gives the history entry the document was loaded with (it keeps
 * it in `history.state`, "default" for a fresh entry): read when the app starts, before
 * any navigation, so a link clicked while the page hydrates is still a navigation.
 */
const loadedKey =
  typeof window === "undefined"
    ? "default"
    : ((window.history.state as { key?: string } | null)?.key ?? "default");

/** Every page: skip link, header, main content, footer, and the background behind. */
export function Layout() {
  const { pathname, hash, key } = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  // After each client-side navigation (even to the page already shown), start at the
  // top, at once, and move focus to the new page, as a full page load would. In-page
  // anchors are left to the browser.
  useEffect(() => {
    const first = firstRender.current;
    firstRender.current = false;
    if ((first && key === loadedKey) || hash) return;
    window.scrollTo({ top: 0, left: 0, behavior: "instant" });
    main.current?.focus({ preventScroll: true });
  }, [key, hash]);

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
