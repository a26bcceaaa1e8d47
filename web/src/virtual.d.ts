/** The web font (web/scripts/fonts.mjs), as vite.config.ts makes it known to the app. */
declare module "virtual:web-font" {
  /** The family name pages ask for (`--font-brand`). */
  export const fontFamily: string;
  /** Names the font file: a copy kept for another font is not taken for this one. */
  export const fontId: string;
  /** The font file, as the build copies it into assets/. */
  export const fontUrl: string;
}
