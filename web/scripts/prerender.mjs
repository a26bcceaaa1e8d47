// After `vite build` (client) and `vite build --ssr` (server entry): writes every route
// as complete HTML with its own head (its social card, drawn here, and the schema.org
// data), the Content-Security-Policy (with the hashes of the inline scripts, computed
// here, never pasted), robots.txt, sitemap.xml and _headers.
// _headers is the one source of the site's response headers: static hosts (Netlify,
// Cloudflare Pages) read it, the Rust server (server/, `lathe-site serve`) reads it, and
// `lathe-site nginx-headers` turns it into nginx's add_header lines.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { outDir, waitlistOrigin } from "./build-settings.mjs";
import { escapeHtml as escape } from "./html.mjs";
import { cardSize, renderSocialCards } from "./social-cards.mjs";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(web, outDir);
const server = join(web, `${outDir}-server`);
const { render, prerendered, product, socialCard, socialCardAlt, structuredData } = await import(
  join(server, "entry-server.js")
);

const template = readFileSync(join(dist, "index.html"), "utf8");

/** The CSP hashes of the template's inline elements of one kind (`script`, `style`). */
const inlineHashes = (element) =>
  [...template.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, "g"))].map(
    (m) => `'sha256-${createHash("sha256").update(m[1], "utf8").digest("base64")}'`,
  );
const hashes = inlineHashes("script");
// The stylesheet, inlined by the build (vite.config.ts): the only styles a page has.
const styleHashes = inlineHashes("style");
if (styleHashes.length === 0) throw new Error("index.html has no inline stylesheet");

/** The policy for every page; as a header it also forbids framing. */
const policy = [
  "default-src 'none'",
  `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(" ")}`,
  // The wasm core is fetched from the site; sign-ups go to WAITLIST_URL, if it is elsewhere.
  `connect-src 'self'${waitlistOrigin ? ` ${waitlistOrigin}` : ""}`,
  `style-src ${styleHashes.join(" ")}`,
  // The favicon is a data: URL in the page (vite.config.ts).
  "img-src 'self' data:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join("; ");

const headers = {
  "Content-Security-Policy": `${policy}; frame-ancestors 'none'`,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy":
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  // Static hosts serve over TLS; `lathe-site serve` sends it only with --hsts.
  "Strict-Transport-Security": "max-age=63072000; includeSubDomains",
};

/** The schema.org graph as a JSON-LD block: data, never run, so outside the CSP's hashes. */
const jsonLd = `<script type="application/ld+json">${JSON.stringify(structuredData()).replace(
  /</g,
  "\\u003c",
)}</script>`;

function head({ path, meta, indexed }) {
  const url = product.siteUrl + (path === "/404" ? "/" : path);
  // Open Graph's properties, in the order they are written.
  const openGraph = [
    ["type", "website"],
    ["site_name", product.name],
    ["title", meta.title],
    ["description", meta.description],
    ["url", url],
    ["locale", "en_GB"],
    ["image", product.siteUrl + socialCard(path)],
    ["image:type", "image/png"],
    ["image:width", String(cardSize.width)],
    ["image:height", String(cardSize.height)],
    ["image:alt", socialCardAlt(meta.card)],
  ];
  return [
    `<meta http-equiv="Content-Security-Policy" content="${escape(policy)}" />`,
    `<title>${escape(meta.title)}</title>`,
    `<meta name="description" content="${escape(meta.description)}" />`,
    indexed ? "" : `<meta name="robots" content="noindex" />`,
    `<link rel="canonical" href="${escape(url)}" />`,
    ...openGraph.map(
      ([property, content]) => `<meta property="og:${property}" content="${escape(content)}" />`,
    ),
    `<meta name="twitter:card" content="summary_large_image" />`,
    jsonLd,
  ]
    .filter(Boolean)
    .join("\n    ");
}

const headStart = /<title>[\s\S]*?<\/title>\s*<meta\s+name="description"[\s\S]*?\/>/;
if (!headStart.test(template) || !template.includes('<div id="root"></div>')) {
  throw new Error("index.html no longer has the title, description or #root this script fills");
}

for (const page of prerendered) {
  const html = template
    .replace(headStart, head(page))
    .replace('<div id="root"></div>', `<div id="root">${await render(page.path)}</div>`);
  const file = join(dist, page.file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
}

// One card per distinct image; pages sharing a card share its file.
const cards = new Map(
  prerendered.map(({ path, meta }) => [
    socialCard(path),
    { heading: meta.card, file: socialCard(path) },
  ]),
);
await renderSocialCards(dist, [...cards.values()], product);

writeFileSync(
  join(dist, "robots.txt"),
  `User-agent: *\nAllow: /\n\nSitemap: ${product.siteUrl}/sitemap.xml\n`,
);
writeFileSync(
  join(dist, "sitemap.xml"),
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${prerendered
    .filter((p) => p.indexed)
    .map((p) => `  <url><loc>${product.siteUrl}${p.path === "/" ? "/" : p.path}</loc></url>`)
    .join("\n")}\n</urlset>\n`,
);
writeFileSync(
  join(dist, "_headers"),
  `# Written by web/scripts/prerender.mjs: every response's headers, then the cache policy
# of the hashed assets (their names change with their content).
/*
${Object.entries(headers)
  .map(([name, value]) => `  ${name}: ${value}`)
  .join("\n")}

/assets/*
  Cache-Control: public, max-age=31536000, immutable
`,
);
rmSync(server, { recursive: true, force: true });
console.log(
  `prerendered ${prerendered.length} pages; CSP hashes: scripts ${hashes.join(" ")}, styles ${styleHashes.join(" ")}`,
);
