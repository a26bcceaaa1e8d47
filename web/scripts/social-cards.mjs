// The image a shared link shows: one PNG per page, 1200 x 630, made at build time by
// headless Chromium from the page's title in the site's own style (its font, dark theme,
// logo and background palette). Chromium is the one the tests use: CHROMIUM, which the
// Makefile sets (`make setup` installs it).
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { chromium } from "playwright-core";
import { fontFamily, fontFile } from "./fonts.mjs";
import { escapeHtml as escape } from "./html.mjs";

const require = createRequire(import.meta.url);

/** The card's size: what Open Graph and X show at full width. */
export const cardSize = { width: 1200, height: 630 };

/** Five outlines in the background's palette, as the site's canvas draws them. */
function shapes(palette) {
  const colour = (i) => palette[i % palette.length];
  return `<svg class="shapes" viewBox="0 0 1200 630" aria-hidden="true">
    <rect x="960" y="70" width="120" height="120" rx="22" transform="rotate(14 1020 130)" fill="${colour(0)}26" stroke="${colour(0)}" stroke-width="3"/>
    <polygon points="1090,330 1150,440 1030,440" fill="${colour(2)}22" stroke="${colour(2)}" stroke-width="3"/>
    <polygon points="880,420 920,397 960,420 960,466 920,489 880,466" fill="${colour(5)}22" stroke="${colour(5)}" stroke-width="3"/>
    <circle cx="850" cy="210" r="34" fill="${colour(6)}22" stroke="${colour(6)}" stroke-width="3"/>
    <line x1="850" y1="244" x2="905" y2="405" stroke="${colour(1)}" stroke-width="3"/>
    <circle cx="1110" cy="560" r="16" fill="${colour(4)}33" stroke="${colour(4)}" stroke-width="3"/>
  </svg>`;
}

function cardHtml({ heading, product, host, fontUrl, palette, logo }) {
  return `<!doctype html><html><head><style>
  @font-face { font-family: "${fontFamily}"; src: url("${fontUrl}") format("woff2"); font-weight: 100 900; }
  * { box-sizing: border-box; margin: 0; }
  body { width: ${cardSize.width}px; height: ${cardSize.height}px; overflow: hidden;
    font-family: "${fontFamily}", sans-serif; color: #eef0fa;
    background: radial-gradient(circle at 85% 20%, #2a2766 0, transparent 45%),
      radial-gradient(circle at 10% 110%, #1d2a5c 0, transparent 50%), #0b0d18; }
  .shapes { position: absolute; inset: 0; }
  .card { position: relative; display: flex; flex-direction: column; height: 100%; padding: 72px 80px; }
  .logo { display: flex; align-items: center; gap: 18px; font-size: 40px; font-weight: 700; letter-spacing: -0.02em; }
  h1 { margin-top: auto; max-width: 760px; font-size: 84px; line-height: 1.02; font-weight: 700; letter-spacing: -0.045em; }
  .host { margin-top: 36px; color: #aab0ca; font-size: 28px; font-weight: 500; }
  </style></head><body>${shapes(palette)}<div class="card">
  <div class="logo">${logo}${escape(product)}</div>
  <h1>${escape(heading)}</h1>
  <p class="host">${escape(host)}</p>
  </div></body></html>`;
}

/**
 * Draws every card into the built site, at its `file` (a path from the site's root).
 * @param {string} dist the built site
 * @param {{ file: string, heading: string }[]} cards
 * @param {{ name: string, siteUrl: string }} product
 */
export async function renderSocialCards(dist, cards, { name, siteUrl }) {
  const font = readFileSync(require.resolve(fontFile)).toString("base64");
  // The favicon is the logo's mark.
  const logo = readFileSync(
    join(import.meta.dirname, "..", "public", "favicon.svg"),
    "utf8",
  ).replace("<svg ", '<svg width="56" height="56" ');
  const constants = JSON.parse(readFileSync(require.resolve("lathe-core/constants.json"), "utf8"));
  const executablePath = process.env.CHROMIUM;
  if (!executablePath) {
    throw new Error(
      "The social cards are drawn by Chromium: build through make (`make build`), or set CHROMIUM to its executable",
    );
  }
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: cardSize, deviceScaleFactor: 1 });
    for (const { file, heading } of cards) {
      await page.setContent(
        cardHtml({
          heading,
          product: name,
          host: new URL(siteUrl).host,
          fontUrl: `data:font/woff2;base64,${font}`,
          palette: constants.background.palette,
          logo,
        }),
      );
      // The font is inlined, yet loads asynchronously: wait for it before the picture.
      await page.evaluate("document.fonts.ready");
      const path = join(dist, file);
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path, type: "png" });
    }
  } finally {
    await browser.close();
  }
}
