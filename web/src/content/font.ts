// The note that this browser has the site's web font (web/scripts/fonts.mjs): written to
// local storage once the font has downloaded, read before the first paint by the inlined
// src/inline/theme.ts. The privacy policy lists it (legal.ts, "Cookies").
export const fontStorageKey = "font";
