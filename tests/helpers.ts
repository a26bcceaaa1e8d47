import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import AxeBuilder from "@axe-core/playwright";
import { type Page, expect } from "@playwright/test";
import { routes as siteRoutes } from "../web/src/routes.ts";

/** The site's routes, from its one list of them. */
export const routes = siteRoutes.map((route) => route.path);

/**
 * The privacy notice's version, as web/src/content/form.ts gives it (that module loads the
 * core, so it is not imported here): what a sign-up sent as a request says it was shown.
 * The form's own sign-up in waitlist.spec.ts stores it, so a change there fails here.
 */
export const privacyVersion = "2026-11-24";

/** The waitlist form's fields, found by their labels as a visitor finds them, and its button. */
export function form(page: Page) {
  return {
    name: page.getByLabel("Full name"),
    email: page.getByLabel("Email address"),
    company: page.getByLabel("Company"),
    role: page.getByLabel("Role"),
    interest: page.getByLabel("I'm interested in"),
    message: page.getByLabel("Message", { exact: true }),
    submit: page.getByRole("button", { name: /Request Early Access|Submitting/ }),
  };
}

/**
 * Records console errors, uncaught exceptions and every request that leaves the
 * site's origin (`host`, the test server's unless given: its port is the one it said,
 * which playwright.config.ts puts in LATHE_SITE_PORT); `expectClean()` asserts there
 * were none.
 */
export function watch(page: Page, host = `127.0.0.1:${String(process.env.LATHE_SITE_PORT)}`) {
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (![host, ""].includes(url.host) && url.protocol !== "data:") {
      foreign.push(r.url());
    }
  });
  return {
    errors,
    foreign,
    expectClean() {
      expect(errors, "console errors").toEqual([]);
      expect(foreign, "requests to other origins").toEqual([]);
    },
  };
}

/**
 * Waits until the wasm core has drawn the background: the core is loaded. If it is not
 * within 15 s, says what the page knows of why (its recorded errors, whether the app's
 * entry and the core were asked for and answered), where a bare timeout said nothing
 * (once, in a clean clone's nginx project, after a theme switch and a navigation).
 */
export async function coreReady(page: Page) {
  try {
    await page.locator("canvas[data-shape-count]").waitFor({ state: "attached", timeout: 15_000 });
  } catch (error) {
    const known = await page
      .evaluate(() => ({
        url: location.href,
        visibility: document.visibilityState,
        errors: (window as { latheErrors?: string[] }).latheErrors ?? [],
        canvas: document.querySelector("canvas")?.outerHTML.slice(0, 200) ?? null,
        scripts: performance
          .getEntriesByType("resource")
          .map((e) => e as PerformanceResourceTiming)
          .filter((e) => /\.(js|wasm)$/.test(new URL(e.name).pathname))
          .map((e) => `${new URL(e.name).pathname} ${String(e.responseStatus)}`),
      }))
      .catch((reason: unknown) => String(reason));
    throw new Error(`the core did not draw: ${JSON.stringify(known)}`, { cause: error });
  }
}

/**
 * Holds back the app's entry script (the inline loader's import), so a test can use the
 * prerendered page as it is before hydration; call the returned function to let it load.
 */
export async function holdAppScript(page: Page): Promise<() => void> {
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return () => {
    release?.();
  };
}

/**
 * Waits until the page has produced `count` animation frames: time measured in the
 * chances the page had to draw, not in a sleep. Use it to check that nothing changes.
 */
export async function afterFrames(page: Page, count: number) {
  await page.evaluate(
    (n) =>
      new Promise<void>((resolve) => {
        let seen = 0;
        const frame = () => {
          seen += 1;
          if (seen >= n) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    count,
  );
}

/** When the page's first contentful paint was, and when each file it asked for was asked. */
export const firstPaintAndRequests = (page: Page) =>
  page.evaluate(async () => {
    const paint = await new Promise<number>((resolve) => {
      new PerformanceObserver((list, observer) => {
        const entry = list.getEntriesByName("first-contentful-paint")[0];
        if (entry) {
          observer.disconnect();
          resolve(entry.startTime);
        }
      }).observe({ type: "paint", buffered: true });
    });
    const requests = performance
      .getEntriesByType("resource")
      .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime }));
    return { paint, requests };
  });

const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/** IBM's Equal Access engine, injected as axe is: by evaluation, which the CSP allows. */
const ace = readFileSync(
  createRequire(import.meta.url).resolve("accessibility-checker-engine/ace.js"),
  "utf8",
);

/** What axe and IBM's Equal Access engine (WCAG 2.2 policy) find: two engines see more than one. */
export async function violations(page: Page) {
  const axe = await new AxeBuilder({ page }).withTags(tags).analyze();
  if (!((await page.evaluate("typeof ace")) === "object")) await page.evaluate(ace);
  const ibm = await page.evaluate(async () => {
    interface Result {
      ruleId: string;
      value: [string, string];
      path: { dom: string };
      message: string;
    }
    const checker = new (
      globalThis as unknown as {
        ace: {
          Checker: new () => { check(d: Document, p: string[]): Promise<{ results: Result[] }> };
        };
      }
    ).ace.Checker();
    const report = await checker.check(document, ["WCAG_2_2"]);
    return report.results
      .filter((r) => r.value[0] === "VIOLATION" && r.value[1] === "FAIL")
      .map((r) => ({ id: `ibm:${r.ruleId}`, nodes: [`${r.path.dom}: ${r.message}`] }));
  });
  return [
    ...axe.violations.map((v) => ({
      id: `axe:${v.id}`,
      nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`),
    })),
    ...ibm,
  ];
}
