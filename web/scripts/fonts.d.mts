/** The web font's file, as the package names it. */
export const fontFile: string;
/** Names the font file and its version: the value of the note that it is cached. */
export const fontId: string;
/** The web font's family name. */
export const fontFamily: string;
/** The @font-face rules and --font-brand. */
export function fontCss(): string;
