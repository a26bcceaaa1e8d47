import { chrome } from "../content/site";
import { useHydrated } from "../hooks/useHydrated";
import { useTheme } from "../hooks/useTheme";

/** Switches between light and dark and saves the choice; disabled until hydrated. */
export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  const hydrated = useHydrated();
  const label = theme === "dark" ? chrome.themeToLight : chrome.themeToDark;
  return (
    <button type="button" className="theme-toggle" onClick={toggle} disabled={!hydrated}>
      <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" focusable="false">
        {theme === "dark" ? (
          <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
            <circle cx="10" cy="10" r="3.5" />
            <path d="M10 1.5v2M10 16.5v2M1.5 10h2M16.5 10h2M4 4l1.4 1.4M14.6 14.6 16 16M4 16l1.4-1.4M14.6 5.4 16 4" />
          </g>
        ) : (
          <path d="M16.5 12.5A7 7 0 0 1 7.5 3.5a7 7 0 1 0 9 9z" fill="currentColor" />
        )}
      </svg>
      <span>{label}</span>
    </button>
  );
}
