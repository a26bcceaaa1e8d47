// The site's typeface: Geist, variable weight, from @fontsource-variable/geist, Latin
// subset only, served by the site itself; and, as CSS for the Vite module
// `virtual:fonts.css` (vite.config.ts), a fallback whose metrics are matched to Geist's,
// regular and bold (capsize computes the overrides from both fonts' published metrics).
//
// Text never waits for the font and never moves when it arrives. A first visit draws in
// the fallback and downloads the font once the page has painted (src/webFont.ts), keeping
// a copy in local storage; pages shown after that, and later visits (the pre-paint script,
// src/inline/theme.ts, adds the font from the copy and sets data-font on <html>), use
// Geist from the first paint. No stylesheet names the font file: a page that had to fetch
// it would wait for it before painting.
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

/** Names the font file: the copy kept in local storage carries it, so a new font is fetched anew. */
export const fontId = `geist-${subset}-${version}`;
/** The file Vite copies into assets/ (hashed), which the app downloads (src/webFont.ts). */
export const fontFile = `${packageName}/files/geist-${subset}-wght-normal.woff2`;

/**
 * Faces with Arial's metrics, by the full names systems know them by, most common first:
 * Arial (Windows, macOS, iOS), Liberation Sans (most Linux desktops), Arimo (ChromeOS).
 * Each name a browser does not find is a lookup before the first paint: in a fresh
 * Chromium on Debian, /contact's style took about 10 ms less with the one name that is
 * there than with the six names this list had (ArialMT, Helvetica Neue and Helvetica too,
 * which only Apple systems have, and they have Arial).
 */
const arialLike = ["Arial", "Liberation Sans", "Arimo"];
const arialLikeBold = ["Arial Bold", "Liberation Sans Bold", "Arimo Bold"];

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
/** The web font's family, as the pages' CSS asks for it. */
export const fontFamily = metrics.geist.familyName;
const fallbackFamily = `${fontFamily} Fallback`;

const block = (props) =>
  Object.entries(props)
    .map(([name, value]) => `  ${name}: ${value};`)
    .join("\n");

/** The fallback faces and --font-brand, Geist first once data-font is set. */
export function fontCss() {
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
  return `${faces.map((face) => `@font-face {\n${face}\n}`).join("\n")}
:root {
  --font-brand: "${fallbackFamily}", Arial, sans-serif;
}
:root[data-font] {
  --font-brand: "${fontFamily}", "${fallbackFamily}", Arial, sans-serif;
}
`;
}
