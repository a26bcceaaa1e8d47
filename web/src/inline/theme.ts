// Inlined into every page's <head> by the build (see vite.config.ts), and run before the
// first paint: no flash of the wrong theme, no paint of half a page, links to nowhere stay
// put before the app has loaded, the web font is added from this browser's copy, and the
// page's errors are recorded (./errors.ts). It imports only constants and the font copy's reader, so the
// inlined script stays around a kilobyte.
import {
  type Theme,
  fontStorageKey,
  pageEndId,
  systemDarkQuery,
  themeStorageKey,
  themes,
} from "../browserState";
import { fontFromNote, webFontFace } from "../fontNote";
import "./errors";

declare const __FONT_ID__: string;
declare const __FONT_FAMILY__: string;

function savedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(themeStorageKey);
    return themes.find((theme) => theme === value) ?? null;
  } catch {
    return null; // storage refused: the system's preference it is
  }
}

// No paint until the main content has arrived, where the browser can hold it back (Chrome
// 124): painted from half a page, the page would move as the rest came in. Added here, not
// written in index.html, because the HTML checker does not know rel="expect" yet; added
// in the head, it counts all the same. (Chrome waits for the element to arrive, not to
// end: hence the footer, which comes after the main content.)
const expectMain = document.createElement("link");
expectMain.rel = "expect";
expectMain.href = `#${pageEndId}`;
expectMain.setAttribute("blocking", "render");
document.head.append(expectMain);

const theme: Theme = savedTheme() ?? (matchMedia(systemDarkQuery).matches ? "dark" : "light");
document.documentElement.dataset.theme = theme;
document.documentElement.style.colorScheme = theme;

// The web font, where this browser keeps a copy of it (src/fontNote.ts): added from the
// copy, it is there for the first paint without asking the network. Elsewhere the
// metric-matched fallback is used. A copy that is not a font is dropped.
try {
  const bytes = fontFromNote(localStorage.getItem(fontStorageKey), __FONT_ID__);
  if (bytes) {
    const face = webFontFace(__FONT_FAMILY__, bytes);
    face.loaded.catch(() => {
      localStorage.removeItem(fontStorageKey);
    });
    document.fonts.add(face);
    document.documentElement.dataset.font = "";
  }
} catch {
  // storage refused, or no FontFace: the fallback it is
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
