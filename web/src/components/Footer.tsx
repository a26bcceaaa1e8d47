import { Link } from "wouter";
import { pageEndId } from "../browserState";
import { chrome, footerLinks } from "../content/site";
import { Logo } from "./Logo";
import { ThemeToggle } from "./ThemeToggle";

export function Footer() {
  return (
    // The first paint waits for it to arrive (src/inline/theme.ts).
    <footer id={pageEndId} className="site-footer">
      <div className="container site-footer-inner">
        <div className="footer-brand">
          <Logo />
          <p>{chrome.tagline}</p>
        </div>
        <nav aria-label={chrome.footerNav}>
          <ul className="footer-links">
            {footerLinks.map((link) => (
              <li key={link.label}>
                <Link to={link.to}>{link.label}</Link>
              </li>
            ))}
            <li>
              {/* Support has no destination yet (spec §2): a link that goes nowhere. The
                  click is stopped by the inlined src/inline/theme.ts, before and after
                  hydration. */}
              <a href="#" aria-describedby="support-note">
                {chrome.support}
              </a>
              <span id="support-note" className="visually-hidden">
                {chrome.supportNote}
              </span>
            </li>
          </ul>
        </nav>
        <div className="footer-meta">
          <ThemeToggle />
          <p>
            {chrome.copyright} {chrome.registration}
          </p>
        </div>
      </div>
    </footer>
  );
}
