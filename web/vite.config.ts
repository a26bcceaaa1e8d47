/// <reference types="vitest/config" />
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { build } from "rolldown";
import Icons from "unplugin-icons/vite";
import { type Plugin, defineConfig } from "vite";
import { outDir, waitlistUrl } from "./scripts/build-settings.mjs";
import { fontCss, fontFamily, fontFile, fontId } from "./scripts/fonts.mjs";
import { timelineCss } from "./src/demo/timeline.ts";

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, "..");

/**
 * Bundles one of src/inline/*.ts into a script small enough to inline in the page: an
 * IIFE, minified, with `define` replacing build-time constants. Inlined, it runs without
 * a request; scripts/prerender.mjs puts each inline script's hash in the CSP.
 */
async function inlineScript(file: string, define: Record<string, string> = {}) {
  const { output } = await build({
    input: join(web, file),
    write: false,
    // The app's own files, imported by the loader at run time, not bundled into it.
    external: (id) => id.startsWith("/assets/"),
    // Old browsers too: the page must read well where the app cannot run.
    transform: { define, target: "es2015" },
    output: { format: "iife", minify: true },
    logLevel: "warn",
  });
  const [chunk] = output;
  return chunk.code.trim();
}

/** The web font's name and version, for the pre-paint script. */
const fontDefines = {
  __FONT_ID__: JSON.stringify(fontId),
  __FONT_FAMILY__: JSON.stringify(fontFamily),
};

/** A module made at build time (`import ... from "virtual:NAME"`), from `code`. */
function virtualModule(id: string, code: () => string): Plugin {
  const resolved = `\0${id}`;
  return {
    name: `lathe:${id}`,
    resolveId: (source) => (source === id ? resolved : null),
    load: (loaded) => (loaded === resolved ? code() : null),
  };
}

/**
 * The web font for the app (src/webFont.ts), as `import { ... } from "virtual:web-font"`:
 * its family, its id, and its file's URL once Vite has copied it into assets/. (The
 * pre-paint script, bundled apart from Vite, has the first two as `fontDefines`.)
 */
const webFontModule = () =>
  virtualModule("virtual:web-font", () =>
    [
      `export { default as fontUrl } from ${JSON.stringify(`${fontFile}?url`)};`,
      `export const fontFamily = ${JSON.stringify(fontFamily)};`,
      `export const fontId = ${JSON.stringify(fontId)};`,
    ].join("\n"),
  );

/**
 * Nothing for the first paint to wait for but the page itself. The built page's
 * stylesheet goes into it (a `<link rel="stylesheet">` costs a slow phone a round trip
 * before anything shows; the whole stylesheet is about 5 KB compressed, and the page and
 * it still arrive in the first round trips), and so does the favicon, as a data: URL
 * (the browser asks for a favicon while the page loads, and a request that ends before
 * the page's largest text is painted counts against it in Lighthouse's model).
 * scripts/prerender.mjs puts the stylesheet's hash in the CSP.
 */
function nothingBeforeFirstPaint(): Plugin {
  const favicon = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />';
  return {
    name: "lathe:nothing-before-first-paint",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle }) {
        if (!bundle) return html;
        if (!html.includes(favicon)) throw new Error(`index.html has no ${favicon}`);
        const svg = readFileSync(join(web, "public", "favicon.svg"), "utf8").trim();
        const stylesheets = /<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g;
        return html
          .replace(
            favicon,
            favicon.replace("/favicon.svg", `data:image/svg+xml,${encodeURIComponent(svg)}`),
          )
          .replace(stylesheets, (_, file: string) => {
            const asset = bundle[file];
            if (asset?.type !== "asset") throw new Error(`${file} is not in the bundle`);
            const css =
              typeof asset.source === "string"
                ? asset.source
                : new TextDecoder().decode(asset.source);
            if (css.includes("</style"))
              throw new Error(`${file} cannot be inlined: it has </style`);
            // Nothing asks for the file any more (see codeSplitting, below).
            Reflect.deleteProperty(bundle, file);
            return `<style>${css}</style>`;
          });
      },
    },
  };
}

/**
 * The pre-paint theme script (src/inline/theme.ts), inlined into the <head> of every
 * page, in the dev server too, where `<script data-inline>` marks its place.
 */
function inlineThemeScript(): Plugin {
  const marker = '<script data-inline="src/inline/theme.ts"></script>';
  return {
    name: "lathe:inline-theme-script",
    transformIndexHtml: {
      order: "pre",
      async handler(html) {
        if (!html.includes(marker)) throw new Error(`index.html has no ${marker}`);
        return html.replace(
          marker,
          `<script>${await inlineScript("src/inline/theme.ts", fontDefines)}</script>`,
        );
      },
    },
  };
}

/**
 * The built page starts the app after its first contentful paint, not with the page: the
 * HTML is already complete (scripts/prerender.mjs), so the app only has to hydrate it. The
 * app's `<script type="module">` and its modulepreloads give way to the inlined loader
 * (src/inline/loader.ts), told the entry and every file the app needs to start.
 */
function loadAfterFirstPaint(): Plugin {
  return {
    name: "lathe:load-after-first-paint",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      async handler(html, { chunk, bundle }) {
        if (!chunk || !bundle) return html;
        // Every file the app needs to start: the entry's imports and the modules it
        // imports dynamically at start-up, each with its own static imports.
        const needed = new Set<string>();
        const visit = (file: string) => {
          const output = bundle[file];
          if (needed.has(file) || output?.type !== "chunk") return;
          needed.add(file);
          output.imports.forEach(visit);
        };
        [...chunk.imports, ...chunk.dynamicImports].forEach(visit);
        const entry = `/${chunk.fileName}`;
        const script = `<script type="module" crossorigin src="${entry}"></script>`;
        const preloads = /\s*<link rel="modulepreload" crossorigin href="[^"]+">/g;
        if (!html.includes(script)) throw new Error(`index.html has no ${script} to defer`);
        const loader = await inlineScript("src/inline/loader.ts", {
          __APP_ENTRY__: JSON.stringify(entry),
          __APP_PRELOADS__: JSON.stringify([...needed].map((file) => `/${file}`)),
        });
        return html
          .replace(script, "")
          .replace(preloads, "")
          .replace("</body>", `  <script>${loader}</script>\n  </body>`);
      },
    },
  };
}

/**
 * The wasm modules in Vitest, which runs in Node with no server to fetch them from: their
 * URLs (`lathe-core/wasm?url`, src/core/index.ts; `lathe-core/solver/wasm?url`,
 * src/core/solver.ts) are the files themselves, as data: URLs.
 */
function coreWasmInTests(): Plugin {
  const files: Record<string, string> = {
    "lathe-core/wasm?url": join(root, "pkg", "web", "lathe_core_bg.wasm"),
    "lathe-core/solver/wasm?url": join(root, "pkg", "solver", "lathe_core_solver_bg.wasm"),
  };
  return {
    name: "lathe:core-wasm-in-tests",
    apply: (_config, env) => env.mode === "test",
    enforce: "pre",
    resolveId: (source) => (source in files ? `\0${source}` : undefined),
    load(id) {
      const file = files[id.slice(1)];
      if (!id.startsWith("\0") || file === undefined) return;
      const wasm = readFileSync(file);
      return `export default ${JSON.stringify(`data:application/wasm;base64,${wasm.toString("base64")}`)};`;
    },
  };
}

/**
 * The wasm core in the dev server: a clear error when pkg/ has not been built, and a
 * rebuild (`make pkg`) and full reload whenever a file under core/ changes.
 */
function coreForDevServer(): Plugin {
  return {
    name: "lathe:core-for-dev-server",
    apply: "serve",
    configResolved(config) {
      if (config.mode !== "test" && !existsSync(join(root, "pkg", "package.json"))) {
        throw new Error(
          "pkg/ has not been built: run `make dev` (or `make pkg`) from the repository root",
        );
      }
    },
    configureServer(server) {
      const core = join(root, "core");
      server.watcher.add([join(core, "src"), join(core, "Cargo.toml")]);
      let building: Promise<void> | null = null;
      let again = false;
      const rebuild = () => {
        if (building) {
          again = true;
          return;
        }
        server.config.logger.info("core changed: make pkg", { timestamp: true });
        building = new Promise<void>((resolve) => {
          spawn("make", ["pkg"], { cwd: root, stdio: "inherit" }).on("exit", (code) => {
            if (code === 0) {
              server.moduleGraph.invalidateAll();
              server.ws.send({ type: "full-reload" });
            } else server.config.logger.error("make pkg failed; the page keeps the last core");
            resolve();
          });
        }).then(() => {
          building = null;
          if (again) {
            again = false;
            rebuild();
          }
        });
      };
      server.watcher.on("change", (file) => {
        if (file.startsWith(core + sep)) rebuild();
      });
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  // The build settings (scripts/build-settings.mjs), for src/config.ts.
  define: { __WAITLIST_URL__: JSON.stringify(waitlistUrl) },
  plugins: [
    react(),
    coreWasmInTests(),
    // Lucide's icons as React components made at build time: only those imported ship.
    Icons({ compiler: "jsx", jsx: "react" }),
    virtualModule("virtual:fonts.css", fontCss),
    webFontModule(),
    virtualModule("virtual:demo-timeline.css", timelineCss),
    inlineThemeScript(),
    loadAfterFirstPaint(),
    nothingBeforeFirstPaint(),
    coreForDevServer(),
  ],
  build: {
    outDir: isSsrBuild ? `${outDir}-server` : outDir,
    // The language level the pre-paint script checks browsers for (src/inline/theme.ts).
    target: "es2022",

    rolldownOptions: {
      output: {
        // The libraries in files of their own: a slow phone compiles each file in its own
        // task as it arrives, so no single task holds the main thread for long (TBT 0).
        codeSplitting: {
          groups: [
            // React first: a group also takes in what its modules import, not yet grouped.
            { name: "react", test: /node_modules[\\/]react[\\/]/ },
            { name: "react-dom", test: /node_modules[\\/](react-dom|scheduler)[\\/]/ },
            // What the entry shares with the app's chunks stays out of it: a chunk that
            // imported from the entry would first ask for the entry's stylesheet, which is
            // in the page (nothingBeforeFirstPaint), not a file.
            { name: "preload-helper", test: /vite[\\/]preload-helper/ },
            { name: "webFont", test: /src[\\/]webFont\.ts$/ },
          ],
        },
      },
    },
  },
  // The proof-of-work solver's worker (src/proof/solver.worker.ts) loads the core as the
  // page does, by a dynamic import: an ES module worker, which code-splitting allows.
  worker: { format: "es" },
  preview: { port: 4173, strictPort: true },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test-setup.ts"],
    restoreMocks: true,
  },
}));
