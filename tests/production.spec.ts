import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { type Node, parse } from "acorn";
import { product } from "../web/src/content/company";
import {
  afterFrames,
  coreReady,
  firstPaintAndRequests,
  form,
  holdAppScript,
  routes,
  watch,
} from "./helpers";

const favicon = fileURLToPath(new URL("../web/public/favicon.svg", import.meta.url));
const assets = fileURLToPath(new URL("../web/dist/assets/", import.meta.url));
/** The site's address, set once for the whole project. */
const site = product.siteUrl;
const pages = {
  "/": {
    title: "Lathe: Chat with AI to Build Apps",
    h1: "Chat with AI to Build Apps",
    text: "AI-Powered App Builder",
  },
  "/contact": {
    title: "Get Early Access | Lathe",
    h1: "Get Early Access",
    text: "Frequently asked questions",
  },
  "/gdpr": {
    title: "GDPR Compliance Policy | Lathe",
    h1: "GDPR Compliance Policy",
    text: "Analytics data: 1 year",
  },
  "/terms": {
    title: "Terms of Service | Lathe",
    h1: "Terms of Service",
    text: "30 days' notice",
  },
} as const;

test.describe("prerendered pages, with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  for (const route of routes) {
    test(`${route} arrives as complete HTML with its own head`, async ({ page }) => {
      const response = await page.goto(route);
      expect(response?.status()).toBe(200);
      const { title, h1, text } = pages[route];
      await expect(page).toHaveTitle(title);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(h1);
      await expect(page.getByRole("main")).toContainText(text);
      await expect(page.locator("html")).toHaveAttribute("lang", "en-GB");
      const url = site + (route === "/" ? "/" : route);
      await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", url);
      await expect(page.locator('meta[property="og:url"]')).toHaveAttribute("content", url);
      await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", title);
      const description = await page.locator('meta[name="description"]').getAttribute("content");
      expect(description?.length).toBeGreaterThan(50);
      await expect(page.locator('meta[property="og:description"]')).toHaveAttribute(
        "content",
        description ?? "",
      );
      // The favicon, in the page (a request the first paint would be measured against).
      const icon = await page.locator('link[rel="icon"]').getAttribute("href");
      expect(decodeURIComponent(icon ?? "")).toBe(
        `data:image/svg+xml,${readFileSync(favicon, "utf8").trim()}`,
      );
    });
  }

  test("the form is in the HTML, fields and all", async ({ page }) => {
    await page.goto("/contact");
    await expect(form(page).name).toHaveAttribute("required", "");
    await expect(form(page).message).toHaveAttribute("rows", "4");
    await expect(page.getByRole("button", { name: "Request Early Access" })).toBeVisible();
  });
});

test("pages hydrate without a mismatch and then work", async ({ page }) => {
  const watcher = watch(page);
  for (const route of routes) {
    await page.goto(route);
    await coreReady(page);
  }
  await page.goto("/contact");
  await coreReady(page);
  await page.getByRole("button", { name: "Request Early Access" }).click();
  await expect(page.getByText("Full name is required")).toBeVisible();
  watcher.expectClean();
});

test.describe("the first paint waits for nothing but the page", () => {
  // Each request a page makes before its first paint is a round trip a slow phone waits
  // through (the stylesheet, the favicon and the web font are in the page).
  for (const route of routes) {
    test(`${route}, for a new visitor and after /`, async ({ page }) => {
      for (const before of [null, "/"]) {
        if (before) {
          await page.goto(before);
          await expect.poll(() => page.evaluate(() => localStorage.getItem("font"))).not.toBeNull();
        }
        await page.goto(route);
        const { paint, requests } = await firstPaintAndRequests(page);
        expect(requests.filter((r) => r.start < paint)).toEqual([]);
      }
    });
  }
});

test.describe("nothing moves while a page arrives", () => {
  // On a slow network a page arrives in parts, and a browser may paint the part it has.
  // Here the page pauses after its main heading (a script that takes 500 ms to come, as
  // a stalled connection would), and the page must not paint until its main content is
  // all there (the pre-paint script's rel="expect"): painted half-built, the home page's hero
  // re-centres when the demo arrives and the header moves when the scrollbar does.
  for (const route of routes) {
    test(`${route}: no frame with half of the main content, and no layout shift`, async ({
      page,
      baseURL,
    }) => {
      await page.route("**/__pause.js", async (pause) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await pause.fulfill({ contentType: "text/javascript", body: "" });
      });
      await page.route(new URL(route, baseURL).href, async (document) => {
        const response = await document.fetch();
        const html = await response.text();
        expect(html).toContain("</h1>");
        await document.fulfill({
          response,
          body: html.replace("</h1>", '</h1><script src="/__pause.js"></script>'),
        });
      });
      await page.addInitScript(() => {
        const seen = { frames: [] as number[], parsed: -1, shifts: [] as number[] };
        (window as unknown as { arrival: typeof seen }).arrival = seen;
        const inMain = () => document.getElementById("main")?.querySelectorAll("*").length ?? 0;
        const frame = () => {
          seen.frames.push(inMain());
          if (seen.frames.length < 10) requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
        document.addEventListener("DOMContentLoaded", () => {
          seen.parsed = inMain();
        });
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            seen.shifts.push((entry as unknown as { value: number }).value);
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      await page.goto(route);
      const arrival = () =>
        page.evaluate(
          () =>
            (
              window as unknown as {
                arrival: { frames: number[]; parsed: number; shifts: number[] };
              }
            ).arrival,
        );
      await expect.poll(async () => (await arrival()).frames.length).toBe(10);
      const { frames, parsed, shifts } = await arrival();
      expect(parsed).toBeGreaterThan(0);
      expect(frames[0]).toBe(parsed);
      expect(shifts).toEqual([]);
    });
  }
});

test.describe("before the app has loaded", () => {
  test("the app is imported by an inline loader after the first paint, not by the HTML", async ({
    request,
  }) => {
    for (const route of routes) {
      const html = await (await request.get(route)).text();
      expect(html, route).not.toMatch(/<script[^>]*\ssrc=/);
      expect(html, route).not.toContain('rel="modulepreload"');
      // The inlined loader, minified: strings in any quotes.
      expect(html, route).toMatch(/getEntriesByName\(["'`]first-contentful-paint["'`]\)/);
      expect(html, route).toMatch(/import\(["'`]\/assets\/index-[\w-]+\.js["'`]\)/);
    }
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`the theme toggle names the other theme from the first paint (${scheme})`, async ({
      page,
    }) => {
      await page.emulateMedia({ colorScheme: scheme });
      const release = await holdAppScript(page);
      await page.goto("/");
      const label = scheme === "dark" ? "Switch to light theme" : "Switch to dark theme";
      const toggle = page.getByRole("contentinfo").getByRole("button", { name: label });
      await expect(toggle).toBeDisabled();
      await expect(toggle).toHaveAccessibleName(label);
      release();
      await expect(toggle).toBeEnabled();
      await expect(toggle).toHaveText(label);
    });
  }

  test("controls that need it wait, and nothing typed meanwhile is lost", async ({ page }) => {
    const watcher = watch(page);
    const release = await holdAppScript(page);
    await page.goto("/contact");
    const submit = page.getByRole("button", { name: "Request Early Access" });
    const toggle = page.getByRole("button", { name: /Switch to (dark|light) theme/ });
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Get Early Access");
    await expect(submit).toBeDisabled();
    await expect(toggle).toBeDisabled();

    await form(page).name.fill("Ada Lovelace");
    await form(page).email.fill("ada@example.com");
    await form(page).message.fill("Typed before the app loaded");
    await form(page).interest.selectOption("press");
    // Enter in a field: no native submit (form-action 'none' would block it anyway).
    await form(page).name.press("Enter");
    await expect(page).toHaveURL("/contact");

    release();
    await coreReady(page);
    await expect(toggle).toBeEnabled();
    await expect(submit).toBeEnabled();
    await expect(form(page).name).toHaveValue("Ada Lovelace");
    await expect(form(page).interest).toHaveValue("press");
    await submit.click();
    await expect(page.getByRole("button", { name: "Submitting..." })).toBeDisabled();
    await expect(page.getByText("Full name is required")).toHaveCount(0);
    watcher.expectClean();
  });
});

/** Whether a module's own code (not a function in it) waits: `await`, `for await`. */
function awaitsAtTopLevel(source: string): boolean {
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(visit);
    if (typeof value !== "object" || value === null) return false;
    const node = value as Node & Record<string, unknown>;
    if (/Function/.test(node.type)) return false; // declarations, expressions and arrows
    if (node.type === "AwaitExpression" || (node.type === "ForOfStatement" && node.await)) {
      return true;
    }
    return Object.values(node).some(visit);
  };
  return visit(parse(source, { ecmaVersion: "latest", sourceType: "module" }));
}

test("no module the site ships awaits at its top level", () => {
  // WebKit's module loader can spin at full CPU for good on such a module: WebKitGTK 2.50
  // did, one reload in 10 to 40, when a script ran while the wasm core's module (then
  // vite-plugin-wasm's, with a top-level await) was being evaluated.
  expect(awaitsAtTopLevel("const m = await import('./m.js');")).toBe(true);
  expect(awaitsAtTopLevel("for await (const x of xs);")).toBe(true);
  expect(awaitsAtTopLevel("export async function f() { await 0; }")).toBe(false);
  expect(awaitsAtTopLevel("const f = async () => { for await (const x of xs); };")).toBe(false);
  const modules = readdirSync(assets).filter((file) => file.endsWith(".js"));
  expect(modules.some((file) => file.startsWith("lathe_core"))).toBe(true);
  const awaiting = modules.filter((file) => awaitsAtTopLevel(readFileSync(assets + file, "utf8")));
  expect(awaiting).toEqual([]);
});

test(
  "an unknown path is a 404 with a way home; 404.html exists for static hosts",
  { tag: "@deploy" },
  async ({ page, request }) => {
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await expect(page).toHaveURL("/");
    expect((await request.get("/404.html")).status()).toBe(200);
  },
);

test("robots.txt and sitemap.xml", { tag: "@deploy" }, async ({ request }) => {
  const robots = await (await request.get("/robots.txt")).text();
  expect(robots).toContain("User-agent: *");
  expect(robots).toContain(`Sitemap: ${site}/sitemap.xml`);
  const sitemap = await (await request.get("/sitemap.xml")).text();
  const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  expect(locs).toEqual([`${site}/`, `${site}/contact`, `${site}/gdpr`, `${site}/terms`]);
});

test.describe("security", () => {
  for (const route of [...routes, "/missing"]) {
    test(
      `${route} is served with the security headers`,
      { tag: "@deploy" },
      async ({ request }) => {
        const response = await request.get(route);
        const headers = response.headers();
        const csp = headers["content-security-policy"] ?? "";
        for (const directive of [
          "default-src 'none'",
          "script-src 'self' 'wasm-unsafe-eval' 'sha256-",
          "connect-src 'self'",
          "style-src 'sha256-",
          "img-src 'self' data:",
          "base-uri 'none'",
          "form-action 'none'",
          "object-src 'none'",
          "frame-ancestors 'none'",
        ]) {
          expect(csp).toContain(directive);
        }
        expect(csp).not.toContain("unsafe-inline");
        expect(headers["x-content-type-options"]).toBe("nosniff");
        expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
        expect(headers["permissions-policy"]).toContain("camera=()");
        expect(headers["cross-origin-opener-policy"]).toBe("same-origin");
      },
    );
  }

  test(
    "every page carries the policy as a meta, with the inline scripts' real hashes",
    { tag: "@deploy" },
    async ({ request }) => {
      for (const route of routes) {
        const html = await (await request.get(route)).text();
        const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
        expect(meta).toContain("script-src 'self' 'wasm-unsafe-eval' 'sha256-");
        expect(meta).not.toContain("frame-ancestors");
        // Every inline script (the theme script and the app's loader), and nothing else.
        const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
        expect(scripts).toHaveLength(2);
        const hashes = scripts.map(
          (code) =>
            `'sha256-${createHash("sha256")
              .update(code ?? "", "utf8")
              .digest("base64")}'`,
        );
        expect(/script-src ([^;]*)/.exec(meta ?? "")?.[1]).toBe(
          `'self' 'wasm-unsafe-eval' ${hashes.join(" ")}`,
        );
        // The stylesheet is in the page, the only styles allowed, and no other is asked for.
        const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
        expect(styles).toHaveLength(1);
        expect(/style-src ([^;]*)/.exec(meta ?? "")?.[1]).toBe(
          `'sha256-${createHash("sha256")
            .update(styles[0] ?? "", "utf8")
            .digest("base64")}'`,
        );
        expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/);
      }
    },
  );

  test(
    "no page breaks its policy, even while the form works",
    { tag: "@deploy" },
    async ({ page }) => {
      await page.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { violations: string[] }).violations = seen;
        document.addEventListener("securitypolicyviolation", (e) => {
          seen.push(`${e.violatedDirective} ${e.blockedURI}`);
        });
      });
      const violations = () =>
        page.evaluate(() => (window as unknown as { violations: string[] }).violations);
      for (const route of routes) {
        await page.goto(route);
        await coreReady(page);
        await afterFrames(page, 10);
        expect(await violations(), route).toEqual([]);
      }
      await page.getByRole("button", { name: /Switch to/ }).click();
      await page.goto("/contact");
      await coreReady(page);
      await form(page).name.fill("Ada");
      await form(page).email.fill("ada@example.com");
      await form(page).message.fill("Hi");
      await page.getByRole("button", { name: "Request Early Access" }).click();
      await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible({
        timeout: 5000,
      });
      expect(await violations()).toEqual([]);
    },
  );
});
