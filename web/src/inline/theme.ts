// Inlined into every page's <head> by the build (see vite.config.ts), and run before the
// first paint: no flash of the wrong theme, links to nowhere stay put before the app has
// loaded, and the page's errors are recorded (./errors.ts). It imports only constants, so
// the inlined script stays well under a kilobyte.
import {
  type Theme,
  fontStorageKey,
  systemDarkQuery,
  themeStorageKey,
  themes,
} from "../browserState";
import "./errors";

declare const __FONT_ID__: string;

function savedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(themeStorageKey);
    return themes.find((theme) => theme === value) ?? null;
  } catch {
    return null; // storage refused: the system's preference it is
  }
}

const theme: Theme = savedTheme() ?? (matchMedia(systemDarkQuery).matches ? "dark" : "light");
document.documentElement.dataset.theme = theme;
document.documentElement.style.colorScheme = theme;

// The web font, where this browser has already downloaded it (src/webFont.ts): from the
// cache it is ready for the first paint. Elsewhere the metric-matched fallback is used.
try {
  if (localStorage.getItem(fontStorageKey) === __FONT_ID__)
    document.documentElement.dataset.font = "";
} catch {
  // storage refused: the fallback it is
}

// A browser the app cannot run in (no WebAssembly, or older than the ES2022 the app is
// built for: findLast came with Chrome 97, Firefox 104, Safari 15.4) is told so by the
// form at once (CSS shows the prerendered note), instead of a button that never wakes.
if (typeof WebAssembly !== "object" || !("findLast" in Array.prototype)) {
  document.documentElement.dataset.unsupported = "";
}

// Links that go nowhere yet (href="#", the footer's Support) stay where they are.
document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest('a[href="#"]')) {
    event.preventDefault();
  }
});
