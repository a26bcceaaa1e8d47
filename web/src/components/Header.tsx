import { type KeyboardEvent, type MouseEvent, useEffect, useRef } from "react";
import { Link, useLocation } from "wouter";
import { chrome, siteNav } from "../content/site";
import { Logo } from "./Logo";

/**
 * The logo, the site's links and the way in to the waitlist. On narrow screens the links
 * fold into a menu: a <details> disclosure, so it opens by keyboard and tells screen
 * readers whether it is open before the app has even started. Escape, a link or a click
 * elsewhere closes it.
 */
export function Header() {
  const menu = useRef<HTMLDetailsElement>(null);
  const [pathname] = useLocation();

  useEffect(() => {
    const closeOutside = (event: PointerEvent) => {
      const details = menu.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener("pointerdown", closeOutside);
    return () => {
      document.removeEventListener("pointerdown", closeOutside);
    };
  }, []);

  const closeOnLink = (event: MouseEvent) => {
    if (menu.current && (event.target as Element).closest("a")) menu.current.open = false;
  };
  const closeOnEscape = (event: KeyboardEvent) => {
    const details = menu.current;
    if (event.key !== "Escape" || !details?.open) return;
    details.open = false;
    details.querySelector("summary")?.focus();
  };

  const links = (
    <ul className="nav-links">
      {siteNav.links.map((link) => (
        <li key={link.label}>
          <Link to={link.to} aria-current={link.to === pathname ? "page" : undefined}>
            {link.label}
          </Link>
        </li>
      ))}
    </ul>
  );

  return (
    <header className="site-header">
      <div className="container site-header-inner">
        <Link to="/" className="logo-link" aria-label={chrome.homeLink}>
          <Logo />
        </Link>
        <nav className="site-nav" aria-label={siteNav.label}>
          {links}
        </nav>
        <Link to="/contact" className="button button-primary button-small header-cta">
          {siteNav.cta}
        </Link>
        <details className="menu" ref={menu} onKeyDown={closeOnEscape}>
          <summary className="menu-button">
            <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
              <path
                className="menu-icon-open"
                d="M3 5.5h14M3 10h14M3 14.5h14"
                stroke="currentColor"
                strokeWidth="1.8"
                strokeLinecap="round"
              />
              <path
                className="menu-icon-close"
                d="M5 5l10 10M15 5L5 15"
                stroke="currentColor"
                strokeWidth="1.8"
                strokeLinecap="round"
              />
            </svg>
            <span className="menu-label">{siteNav.menu}</span>
          </summary>
          {/* A click on one of its links closes the menu (the event bubbles here). */}
          <nav className="menu-panel" aria-label={siteNav.menu} onClick={closeOnLink}>
            {links}
          </nav>
        </details>
      </div>
    </header>
  );
}
