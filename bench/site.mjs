// The built site as the benches see it: its routes (from its sitemap), and the floor, a
// page with the home page's heading and lead paragraph and nothing else, with the site's
// own headers, served by lathe-site like the site. No page can paint sooner; make bench
// (run.mjs) and make bench-paint (first-paint.mjs) measure the pages against it.
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveLathe, stop } from "./processes.mjs";

/**
 * Every route the build in `dist` lists in its sitemap (written from web/src/routes.ts),
 * or those named in BENCH_ROUTES ("/,/contact"), to narrow a run while iterating.
 * @param {string} dist
 * @returns {string[]}
 */
export function siteRoutes(dist) {
  if (process.env.BENCH_ROUTES)
    return process.env.BENCH_ROUTES.split(",").map((route) => route.trim());
  const sitemap = readFileSync(join(dist, "sitemap.xml"), "utf8");
  return [...sitemap.matchAll(/<loc>https?:\/\/[^/<]+(\/[^<]*)<\/loc>/g)].map((m) => m[1] ?? "/");
}

/**
 * A wasm package's two files in the build in `dist`, as a page asks for them: its module,
 * whose default export starts it from the other, its .wasm (Vite names them
 * `<name>-<hash>.js` and `<name>_bg-<hash>.wasm`).
 * @param {string} dist
 * @param {string} name the package's module, as wasm-bindgen names it (lathe_core)
 * @returns {{ url: string, wasm: string }}
 */
export function wasmAssets(dist, name) {
  const assets = readdirSync(join(dist, "assets"));
  /** @param {string} prefix @param {string} extension */
  const find = (prefix, extension) => {
    const file = assets.find((f) => f.startsWith(`${prefix}-`) && f.endsWith(extension));
    if (!file) throw new Error(`${dist}/assets has no ${prefix}-*${extension}: run make build`);
    return `/assets/${file}`;
  };
  return { url: find(name, ".js"), wasm: find(`${name}_bg`, ".wasm") };
}

/**
 * Serves the floor page made from the built site in `dist`.
 * @param {{ root: string, dist: string }} options
 * @returns {Promise<{ origin: string, stop: () => Promise<void> }>}
 */
export async function floorSite({ root, dist }) {
  const home = readFileSync(join(dist, "index.html"), "utf8");
  /** @param {RegExp} pattern */
  const text = (pattern) => pattern.exec(home)?.[1]?.replace(/<[^>]+>/g, "") ?? "";
  const heading = text(/<h1[^>]*>([\s\S]*?)<\/h1>/);
  const lead = text(/<p class="lead"[^>]*>([\s\S]*?)<\/p>/);
  const folder = mkdtempSync(join(tmpdir(), "lathe-floor-"));
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Lathe</title>
    <meta name="description" content="The floor: one heading and one paragraph." />
  </head>
  <body>
    <h1>${heading}</h1>
    <p>${lead}</p>
  </body>
</html>
`;
  for (const file of ["index.html", "404.html"]) writeFileSync(join(folder, file), page);
  copyFileSync(join(dist, "_headers"), join(folder, "_headers"));
  const served = await serveSite({ root, dist: folder });
  return {
    origin: served.origin,
    stop: async () => {
      await served.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * The built site in `dist` served by the release build of lathe-site, once it listens;
 * stopped with the bench (and by `stop`).
 * @param {{ root: string, dist: string }} options
 * @returns {Promise<{ origin: string, child: import("node:child_process").ChildProcess, stop: () => Promise<void> }>}
 */
export async function serveSite({ root, dist }) {
  const { child, origin } = await serveLathe(root, ["--dist", dist]);
  return { origin, child, stop: () => stop(child) };
}
