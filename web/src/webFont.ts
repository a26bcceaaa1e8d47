import { fontFamily, fontId, fontUrl } from "virtual:web-font";
import { fontStorageKey } from "./browserState";
import { fontNote, webFontFace } from "./fontNote";

let downloaded = false;

/**
 * Downloads the web font after the first paint (main.tsx) where the page is not already
 * using it, adds it to the page's fonts, and keeps a copy in local storage (./fontNote.ts)
 * from which later pages take it before their first paint.
 */
export async function loadWebFont(): Promise<void> {
  if (document.documentElement.dataset.font !== undefined) return;
  let bytes: ArrayBuffer;
  try {
    const response = await fetch(fontUrl);
    if (!response.ok) return;
    bytes = await response.arrayBuffer();
    const face = webFontFace(fontFamily, bytes);
    document.fonts.add(await face.load());
  } catch {
    return; // the page goes on in the fallback
  }
  downloaded = true;
  try {
    localStorage.setItem(fontStorageKey, fontNote(fontId, bytes));
  } catch {
    // storage refused or full: every visit starts in the fallback, and no harm done
  }
}

/** At a change of page, where nothing keeps its place anyway: the web font, once it is here. */
export function applyWebFontIfDownloaded(): void {
  if (downloaded) document.documentElement.dataset.font = "";
}
