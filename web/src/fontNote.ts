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
  const base64 = note.slice(prefix.length);
  // This runs before a page's first paint: the browser's own decoder (Chrome 140, Firefox
  // 133, Safari 18.2) takes a fraction of a millisecond where the loop takes several.
  const native = Uint8Array as Partial<NativeBase64>;
  if (native.fromBase64) return native.fromBase64(base64);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 decoding built into Uint8Array (ES2026), not yet in TypeScript's library. */
interface NativeBase64 {
  fromBase64(base64: string): Uint8Array<ArrayBuffer>;
}

/** The web font as a face from its bytes: Geist's one file holds every weight. */
export function webFontFace(family: string, bytes: BufferSource): FontFace {
  return new FontFace(family, bytes, { weight: "100 900" });
}
