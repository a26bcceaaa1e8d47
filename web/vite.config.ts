/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { type Plugin, defineConfig } from "vite";
import wasm from "vite-plugin-wasm";

/**
 * The built page starts the app after its first contentful paint, not with the page. The
 * HTML is already complete (scripts/prerender.mjs), so the app only has to hydrate it; as
 * a `<script type="module">` in the head it would share the first bytes of bandwidth with
 * the page and its stylesheet. An inline loader (its CSP hash is computed by
 * scripts/prerender.mjs) imports the entry when the browser reports the paint, or at
 * once where it cannot report it or where no paint will come (a hidden tab), and after 2 s
 * at the latest. It needs no timer or frame to run, so a page whose clock is paused
 * (tests) still loads. Controls that need the app are disabled until it hydrates.
 */
function loadAfterFirstPaint(): Plugin {
  return {
    name: "lathe:load-after-first-paint",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, { chunk, bundle }) {
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
        const loader = `<script>
      (function () {
        var preloads = ${JSON.stringify([...needed].map((file) => `/${file}`))};
        var started = false;
        function load() {
          if (started) return;
          started = true;
          preloads.forEach(function (href) {
            var link = document.createElement("link");
            link.rel = "modulepreload";
            link.href = href;
            document.head.appendChild(link);
          });
          import(${JSON.stringify(entry)});
        }
        var types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
        if (types.indexOf("paint") < 0 || document.visibilityState === "hidden") return load();
        new PerformanceObserver(function (list) {
          list.getEntriesByName("first-contentful-paint").forEach(load);
        }).observe({ type: "paint", buffered: true });
        document.addEventListener("visibilitychange", load);
        // A net, should a browser list paint timing and never report it.
        setTimeout(load, 2000);
      })();
    </script>`;
        return html
          .replace(script, "")
          .replace(preloads, "")
          .replace("</body>", `  ${loader}\n  </body>`);
      },
    },
  };
}

export default defineConfig({
  // vite-plugin-wasm declares its plugin as `any`.
  plugins: [react(), wasm() as Plugin, loadAfterFirstPaint()],
  build: {
    // Top-level await in wasm-pack's bundler output needs ES2022.
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
            {
              name: "react-router",
              test: /node_modules[\\/](react-router|cookie|set-cookie-parser)[\\/]/,
            },
          ],
        },
      },
    },
  },
  preview: { port: 4173, strictPort: true },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test-setup.ts"],
    restoreMocks: true,
  },
});
