// The site's typeface, as CSS for the Vite module `virtual:fonts.css` (vite.config.ts):
// Geist, variable weight, from @fontsource-variable/geist, Latin subset only, served by
// the site itself, and a fallback whose metrics are matched to Geist's, regular and bold
// (capsize computes the overrides from both fonts' published metrics).
//
// Text never waits for the font and never moves when it arrives. A first visit draws in
// the fallback and downloads the font once the page has painted (src/webFont.ts); pages
// shown after that, and later visits (a note in local storage, read before the first
// paint by src/inline/theme.ts, sets data-font on <html>), use Geist from the start,
// with `font-display: optional`: from the cache it is there before the first paint.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createFontStack } from "@capsizecss/core";
import { entireMetricsCollection as metrics } from "@capsizecss/metrics/entireMetricsCollection";

const require = createRequire(import.meta.url);

/** The one subset the site's words need. */
const subset = "latin";
const packageName = "@fontsource-variable/geist";
const { version } = JSON.parse(
  readFileSync(require.resolve(`${packageName}/package.json`), "utf8"),
);

/** Names the font file: the note that it is cached holds this, so a new font is fetched anew. */
export const fontId = `geist-${subset}-${version}`;
/** The file Vite copies into assets/ (hashed) and every page asks for. */
export const fontFile = `${packageName}/files/geist-${subset}-wght-normal.woff2`;

/** Faces with Arial's metrics, under the names each system knows them by. */
const arialLike = ["Arial", "ArialMT", "Arimo", "Liberation Sans", "Helvetica Neue", "Helvetica"];
const arialLikeBold = [
  "Arial Bold",
  "Arial-BoldMT",
  "Arimo Bold",
  "Liberation Sans Bold",
  "Helvetica Neue Bold",
  "Helvetica Bold",
];

/** The fallback's two faces: the site's regular text, and its bold (600 and more). */
const fallbacks = [
  { weight: "100 549", geist: metrics.geist, arial: metrics.arial, local: arialLike },
  {
    weight: "550 900",
    geist: metrics.geist.variants["600"],
    arial: metrics.arial.variants["700"],
    local: arialLikeBold,
  },
];
/** The web font's family: the app asks the browser to download it (src/webFont.ts). */
export const fontFamily = metrics.geist.familyName;
const fallbackFamily = `${fontFamily} Fallback`;

const block = (props) =>
  Object.entries(props)
    .map(([name, value]) => `  ${name}: ${value};`)
    .join("\n");

/** The web font, its fallback faces and --font-brand, Geist first once data-font is set. */
export function fontCss() {
  const unicode = JSON.parse(readFileSync(require.resolve(`${packageName}/unicode.json`), "utf8"));
  const range = unicode[subset];
  if (!range) throw new Error(`${packageName} has no ${subset} subset`);
  const faces = fallbacks.map(({ weight, geist, arial, local }) => {
    const [face] = createFontStack([geist, arial], { fontFaceFormat: "styleObject" }).fontFaces;
    if (!face) throw new Error("capsize made no fallback face");
    const f = face["@font-face"];
    return block({
      "font-family": `"${fallbackFamily}"`,
      "font-weight": weight,
      src: local.map((name) => `local("${name}")`).join(", "),
      "ascent-override": f.ascentOverride,
      "descent-override": f.descentOverride,
      "line-gap-override": f.lineGapOverride,
      "size-adjust": f.sizeAdjust,
    });
  });
  const webFont = block({
    "font-family": `"${fontFamily}"`,
    "font-style": "normal",
    "font-weight": "100 900",
    "font-display": "optional",
    src: `url("${fontFile}") format("woff2")`,
    "unicode-range": range,
  });
  return `${[webFont, ...faces].map((face) => `@font-face {\n${face}\n}`).join("\n")}
:root {
  --font-brand: "${fallbackFamily}", Arial, sans-serif;
}
:root[data-font] {
  --font-brand: "${fontFamily}", "${fallbackFamily}", Arial, sans-serif;
}
`;
}
