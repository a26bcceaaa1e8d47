import { Link } from "wouter";
import { chrome } from "../content/site";
import { Logo } from "./Logo";

export function Header() {
  return (
    <header className="site-header">
      <div className="container site-header-inner">
        <Link to="/" className="logo-link" aria-label={chrome.homeLink}>
          <Logo />
        </Link>
      </div>
    </header>
  );
}
