import { product } from "../content/company";

/** The product mark and name. Decorative mark; the name is the text. */
export function Logo() {
  return (
    <span className="logo">
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" fill="var(--accent)" />
        <path
          d="M10 8v16h12"
          fill="none"
          stroke="var(--on-accent)"
          strokeWidth="3.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
        <circle cx="22" cy="11" r="3" fill="var(--on-accent)" opacity="0.7" />
      </svg>
      <span className="logo-name">{product.name}</span>
    </span>
  );
}
