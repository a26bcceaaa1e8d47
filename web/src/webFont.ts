import { fontStorageKey } from "./browserState";

// Set by vite.config.ts from web/scripts/fonts.mjs.
declare const __FONT_ID__: string;
declare const __FONT_FAMILY__: string;

let downloaded = false;

/**
 * Downloads the web font after the first paint (main.tsx) where the page is not already
 * using it, and notes in local storage that this browser has it, for later visits.
 */
export async function loadWebFont(): Promise<void> {
  if (document.documentElement.dataset.font !== undefined) return;
  try {
    const faces = await document.fonts.load(`1em "${__FONT_FAMILY__}"`);
    if (faces.length === 0) return;
  } catch {
    return; // the page goes on in the fallback
  }
  downloaded = true;
  try {
    localStorage.setItem(fontStorageKey, __FONT_ID__);
  } catch {
    // storage refused: every visit starts in the fallback, and no harm done
  }
}

/** At a change of page, where nothing keeps its place anyway: the web font, once it is here. */
export function applyWebFontIfDownloaded(): void {
  if (downloaded) document.documentElement.dataset.font = "";
}
