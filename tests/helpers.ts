import { type Page, expect } from "@playwright/test";

export const routes = ["/", "/contact", "/gdpr", "/terms"] as const;

/**
 * Records console errors, uncaught exceptions and every request that leaves the
 * site's origin; `expectClean()` asserts there were none.
 */
export function watch(page: Page) {
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (!["127.0.0.1:4174", ""].includes(url.host) && url.protocol !== "data:") {
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

/** Waits until the wasm core has drawn the background: the core is loaded. */
export async function coreReady(page: Page) {
  await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
}

/**
 * Holds back the app's entry script (the inline loader's import), so a test can use the
 * prerendered page as it is before hydration; call the returned function to let it load.
 */
export async function holdAppScript(page: Page): Promise<() => void> {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}
