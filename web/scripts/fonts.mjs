// The site's typeface, as CSS for the Vite module `virtual:fonts.css` (vite.config.ts): Geist (variable weight, from
// the @fontsource-variable/geist package, Latin subset only, served by the site itself) and
// a fallback face whose metrics are matched to Geist's (capsize computes the overrides
// from both fonts' published metrics), so the fallback looks and measures like Geist.
// `font-display: optional`: the font is used only if it arrives within the browser's
// short block period (about 100 ms), else the fallback stays for that page; nothing ever
// swaps, so nothing shifts (CLS 0). The next page finds it cached. The family names go
// to CSS as --font-brand (tokens.css).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createFontStack } from "@capsizecss/core";
import arial from "@capsizecss/metrics/arial";
import geist from "@capsizecss/metrics/geist";

const require = createRequire(import.meta.url);

/** The one subset the site's words need. */
const subset = "latin";
const packageName = "@fontsource-variable/geist";
/** The file Vite copies into assets/ (hashed) and every page asks for. */
export const fontFile = `${packageName}/files/geist-${subset}-wght-normal.woff2`;

/** Fonts with Arial's metrics under the names each system knows them by. */
const arialLike = ["Arial", "ArialMT", "Arimo", "Liberation Sans", "Helvetica Neue", "Helvetica"];

/** The CSS: the web font, its matched fallback, and the custom property naming both. */
export function fontCss() {
  const unicode = JSON.parse(readFileSync(require.resolve(`${packageName}/unicode.json`), "utf8"));
  const range = unicode[subset];
  if (!range) throw new Error(`${packageName} has no ${subset} subset`);
  const { fontFamily, fontFaces } = createFontStack([geist, arial], {
    fontFaceFormat: "styleObject",
  });
  const [fallback] = fontFaces;
  if (!fallback) throw new Error("capsize made no fallback face");
  const face = fallback["@font-face"];
  const fallbackFace = {
    "font-family": face.fontFamily,
    src: arialLike.map((name) => `local("${name}")`).join(", "),
    "ascent-override": face.ascentOverride,
    "descent-override": face.descentOverride,
    "line-gap-override": face.lineGapOverride,
    "size-adjust": face.sizeAdjust,
  };
  const block = (props) =>
    Object.entries(props)
      .map(([name, value]) => `  ${name}: ${value};`)
      .join("\n");
  return `@font-face {
  font-family: "${geist.familyName}";
  font-style: normal;
  font-weight: 100 900;
  font-display: optional;
  src: url("${fontFile}") format("woff2");
  unicode-range: ${range};
}
@font-face {
${block(fallbackFace)}
}
:root {
  --font-brand: ${fontFamily};
}
`;
}
