// Serves the built site (web/dist) as a static host would: clean URLs, the headers of
// dist/_headers (CSP and the rest), 404.html with status 404 for unknown paths, and
// brotli or gzip for text and wasm. `make start` runs it; so do the browser tests.
//
//   node scripts/serve.mjs [--port 4173] [--host ::]
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const port = Number(arg("port", process.env.PORT ?? "4173"));
const host = arg("host", undefined);

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
};
const compressible = new Set([".html", ".js", ".css", ".wasm", ".svg", ".json", ".txt", ".xml"]);

/** dist/_headers, as static hosts read it: a path pattern, then indented headers. */
function readHeaderRules() {
  const rules = [];
  for (const line of readFileSync(join(dist, "_headers"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    if (!/^\s/.test(line)) {
      rules.push({ pattern: line.trim(), headers: {} });
    } else {
      const [name, ...value] = line.trim().split(":");
      rules.at(-1).headers[name] = value.join(":").trim();
    }
  }
  return rules;
}
// Re-read when a rebuild rewrites it: the policy's script hashes change with the build.
let rules = { mtimeMs: -1, list: [] };
function currentRules() {
  const { mtimeMs } = statSync(join(dist, "_headers"));
  if (mtimeMs !== rules.mtimeMs) rules = { mtimeMs, list: readHeaderRules() };
  return rules.list;
}
const headersFor = (path) =>
  Object.assign(
    {},
    ...currentRules()
      .filter(({ pattern }) =>
        pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern,
      )
      .map((r) => r.headers),
  );

/** The file for a URL path, or null: /contact serves contact/index.html. */
function resolve(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = normalize(join(dist, path));
  if (file !== dist && !file.startsWith(dist + sep)) return null;
  for (const candidate of [file, join(file, "index.html"), `${file}.html`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

// Compressed once per file version: a rebuild while serving is picked up.
const cache = new Map();
function body(file, encoding) {
  const key = `${file}:${statSync(file).mtimeMs}:${encoding}`;
  if (!cache.has(key)) {
    const raw = readFileSync(file);
    cache.set(
      key,
      encoding === "br"
        ? brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
        : encoding === "gzip"
          ? gzipSync(raw, { level: 9 })
          : raw,
    );
  }
  return cache.get(key);
}

createServer((req, res) => {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD" }).end();
    return;
  }
  const { pathname } = new URL(req.url ?? "/", "http://localhost");
  const found = resolve(pathname);
  const file = found ?? join(dist, "404.html");
  const ext = extname(file);
  const accept = String(req.headers["accept-encoding"] ?? "");
  const encoding = !compressible.has(ext)
    ? null
    : /\bbr\b/.test(accept)
      ? "br"
      : /\bgzip\b/.test(accept)
        ? "gzip"
        : null;
  const content = body(file, encoding);
  res.writeHead(found ? 200 : 404, {
    "Cache-Control": "no-cache",
    ...headersFor(pathname),
    "Content-Type": types[ext] ?? "application/octet-stream",
    "Content-Length": content.length,
    ...(encoding ? { "Content-Encoding": encoding, Vary: "Accept-Encoding" } : {}),
  });
  res.end(req.method === "HEAD" ? undefined : content);
}).listen(port, host, () => {
  console.log(`Serving ${dist} on http://localhost:${port}`);
});
