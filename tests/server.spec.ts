import { type APIRequestContext, expect, test } from "@playwright/test";

/** The home page's HTML, and the app's entry script it loads. */
async function homePage(request: APIRequestContext) {
  const html = await (await request.get("/")).text();
  const script = /import\(["'`](\/assets\/index-[\w-]+\.js)["'`]\)/.exec(html)?.[1] ?? "";
  return { html, script };
}

// make start's server (server/, `lathe-site serve`), as a client sees it.
test.describe("the server", () => {
  test(
    "serves clean URLs, with and without a trailing slash",
    { tag: "@deploy" },
    async ({ request }) => {
      for (const path of ["/contact", "/contact/", "/gdpr", "/terms/", "/"]) {
        const response = await request.get(path);
        expect(response.status(), path).toBe(200);
        expect(response.headers()["content-type"]).toBe("text/html; charset=utf-8");
      }
    },
  );

  test("never serves a file outside the site", async ({ request }) => {
    // The client may tidy some of these before sending them: either way, nothing leaks.
    // (server/tests/api/files.rs sends them byte for byte and checks the exact status.)
    for (const path of [
      "/../package.json",
      "/assets/../../Makefile",
      "/%2e%2e/%2e%2e/Makefile",
      "/..%2f..%2fMakefile",
      "/%E0%A4%A",
    ]) {
      const response = await request.get(path);
      expect([400, 404], path).toContain(response.status());
      expect(await response.text()).not.toMatch(/"workspaces"|SHELL := bash/);
    }
  });

  test("answers HEAD without a body and refuses other methods", async ({ request }) => {
    const head = await request.head("/");
    expect(head.status()).toBe(200);
    expect(await head.body()).toHaveLength(0);
    const post = await request.post("/contact", { data: "name=Ada" });
    expect(post.status()).toBe(405);
    expect(post.headers().allow).toBe("GET, HEAD");
  });

  test(
    "sends wasm as application/wasm, compressed, and assets as immutable",
    { tag: "@deploy" },
    async ({ request }) => {
      const { html, script } = await homePage(request);
      const js = await request.get(script, { headers: { "Accept-Encoding": "gzip" } });
      expect(js.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(js.headers()["content-encoding"]).toBe("gzip");
      // The core's address is in one of the files the page's loader asks for (the facade's).
      const files = [...html.matchAll(/["'`](\/assets\/[\w-]+\.js)["'`]/g)].map((m) => m[1] ?? "");
      const sources = await Promise.all(files.map(async (f) => (await request.get(f)).text()));
      const wasmPath = /\/assets\/lathe_core_bg-[\w-]+\.wasm/.exec(sources.join("\n"))?.[0] ?? "";
      expect(wasmPath).not.toBe("");
      const wasm = await request.get(wasmPath, { headers: { "Accept-Encoding": "br, gzip" } });
      expect(wasm.status()).toBe(200);
      expect(wasm.headers()["content-type"]).toBe("application/wasm");
      expect(wasm.headers()["content-encoding"]).toBe("br");
      expect(wasm.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
      const listing = await request.get("/");
      expect(listing.headers()["cache-control"]).toBe("no-cache");
    },
  );

  test(
    "bodies are the same in every encoding; missing assets are not cached",
    { tag: "@deploy" },
    async ({ request }) => {
      const { script } = await homePage(request);
      for (const path of ["/", "/contact", script]) {
        const bodies = [];
        for (const encoding of ["br", "gzip", "identity"]) {
          const response = await request.get(path, { headers: { "Accept-Encoding": encoding } });
          expect(response.headers()["content-encoding"] ?? "identity", path).toBe(encoding);
          expect(response.headers().vary?.toLowerCase(), path).toContain("accept-encoding");
          bodies.push(await response.body()); // decoded by the client
        }
        expect(bodies[0]?.equals(bodies[2] ?? Buffer.alloc(0)), path).toBe(true);
        expect(bodies[1]?.equals(bodies[2] ?? Buffer.alloc(0)), path).toBe(true);
      }
      const missing = await request.get("/assets/index-missing.js");
      expect(missing.status()).toBe(404);
      expect(missing.headers()["cache-control"]).toBe("no-cache");
      const etag = (await request.get("/contact")).headers().etag ?? "";
      expect(etag).not.toBe("");
      const again = await request.get("/contact", { headers: { "If-None-Match": etag } });
      expect(again.status()).toBe(304);
    },
  );

  test(
    "the 404 page is an error's body: whole, without validators or ranges",
    { tag: "@deploy" },
    async ({ request }) => {
      const page = await request.get("/no-such-page");
      expect(page.status()).toBe(404);
      for (const offer of ["etag", "last-modified", "accept-ranges"]) {
        expect(page.headers()[offer], offer).toBeUndefined();
      }
      const body = await page.body();
      const etag = (await request.get("/404.html")).headers().etag ?? '"x"';
      const conditionals: Record<string, string>[] = [
        { "If-None-Match": etag },
        { Range: "bytes=0-9" },
      ];
      for (const headers of conditionals) {
        const again = await request.get("/no-such-page", { headers });
        expect(again.status()).toBe(404);
        expect(again.headers()["content-range"]).toBeUndefined();
        expect((await again.body()).equals(body)).toBe(true);
      }
    },
  );
});
