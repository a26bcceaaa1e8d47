// The site's copy of its web font in local storage: the font's id (web/scripts/fonts.mjs),
// a comma, then the font file in base64. The app writes it once the font has downloaded
// after a first page's paint (src/webFont.ts); the pre-paint script (src/inline/theme.ts)
// reads it, so that later pages have the font before their first paint without asking the
// network for it: a font the page had to fetch would hold back its first paint, whatever
// the HTTP cache has evicted since. Kept apart from both so that both share one format.

/** The note for `id` holding `bytes`. */
export function fontNote(id: string, bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let binary = "";
  // In slices: String.fromCharCode takes its characters as arguments, which are limited.
  for (let start = 0; start < view.length; start += 0x8000) {
    binary += String.fromCharCode(...view.subarray(start, start + 0x8000));
  }
  return `${id},${btoa(binary)}`;
}

/** The font's bytes from `note`, if it holds the font `id` (another font's note is stale). */
export function fontFromNote(note: string | null, id: string): Uint8Array<ArrayBuffer> | null {
  const prefix = `${id},`;
  if (note === null || note.slice(0, prefix.length) !== prefix) return null;
  const binary = atob(note.slice(prefix.length));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The web font as a face from its bytes: Geist's one file holds every weight. */
export function webFontFace(family: string, bytes: BufferSource): FontFace {
  return new FontFace(family, bytes, { weight: "100 900" });
}
