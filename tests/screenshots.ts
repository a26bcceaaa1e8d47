// `make screenshots`: every route in both themes at 1280 and 375 px wide, full page,
// into screenshots/ (git-ignored). Run through Playwright: see screenshots.config.ts.
import { test } from "@playwright/test";

const routes = ["/", "/contact", "/gdpr", "/terms", "/no-such-page"];
const widths = [1280, 375];
const themes = ["light", "dark"] as const;

for (const route of routes) {
  for (const width of widths) {
    for (const theme of themes) {
      const name = `${route === "/" ? "home" : route.slice(1)}-${theme}-${String(width)}`;
      test(name, async ({ page }) => {
        await page.emulateMedia({ colorScheme: theme, reducedMotion: "reduce" });
        await page.setViewportSize({ width, height: 900 });
        // As a returning visitor sees it: the web font already downloaded (a first visit
        // shows its metric-matched fallback).
        await page.goto("/terms");
        await page.waitForFunction(() => localStorage.getItem("font") !== null);
        await page.goto(route);
        await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
        await page.screenshot({ path: `../screenshots/${name}.png`, fullPage: true });
      });
    }
  }
}
