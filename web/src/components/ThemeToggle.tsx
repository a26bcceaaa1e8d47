import type { Theme } from "../browserState";
import { chrome } from "../content/site";
import { useHydrated } from "../hooks/useHydrated";
import { useTheme } from "../hooks/useTheme";

/** The toggle's face while `current` is in effect: it names and shows the other theme. */
function Face({ current }: { current: Theme }) {
  return (
    <span className={`theme-toggle-face theme-toggle-in-${current}`}>
      <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" focusable="false">
        {current === "dark" ? (
          <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
            <circle cx="10" cy="10" r="3.5" />
            <path d="M10 1.5v2M10 16.5v2M1.5 10h2M16.5 10h2M4 4l1.4 1.4M14.6 14.6 16 16M4 16l1.4-1.4M14.6 5.4 16 4" />
          </g>
        ) : (
          <path d="M16.5 12.5A7 7 0 0 1 7.5 3.5a7 7 0 1 0 9 9z" fill="currentColor" />
        )}
      </svg>
      <span>{current === "dark" ? chrome.themeToLight : chrome.themeToDark}</span>
    </span>
  );
}

/**
 * Switches between light and dark and saves the choice. The server cannot know the
 * visitor's theme, so the prerendered button holds both faces and CSS shows the one for
 * `<html data-theme>` (set before the first paint); once hydrated, React renders just
 * that one, and the button is enabled.
 */
export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  const hydrated = useHydrated();
  return (
    <button type="button" className="theme-toggle" onClick={toggle} disabled={!hydrated}>
      {hydrated ? (
        <Face current={theme} />
      ) : (
        <>
          <Face current="light" />
          <Face current="dark" />
        </>
      )}
    </button>
  );
}
