/** The web font's file, as the package names it. */
export const fontFile: string;
/** The @font-face rules and --font-brand. */
export function fontCss(): string;
