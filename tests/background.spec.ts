import { type Page, expect, test } from "@playwright/test";
import { afterFrames, coreReady, routes } from "./helpers";

const canvas = (page: Page) => page.locator("canvas.background-canvas");
const snapshot = (page: Page) => canvas(page).evaluate((c) => (c as HTMLCanvasElement).toDataURL());
const pauseButton = (page: Page) => page.getByRole("button", { name: /(Pause|Play) animations/ });

for (const route of routes) {
  const count = route === "/" ? "25" : "18";
  test(`${route}: a decorative canvas of ${count} shapes, moving behind the page`, async ({
    page,
  }) => {
    await page.goto(route);
    await coreReady(page);
    const c = canvas(page);
    await expect(c).toHaveAttribute("aria-hidden", "true");
    await expect(c).toHaveAttribute("data-shape-count", count);
    await expect(c).toHaveCSS("pointer-events", "none");
    await expect(c).toHaveCSS("position", "fixed");
    const first = await snapshot(page);
    await expect.poll(() => snapshot(page)).not.toBe(first);
  });
}

test("the canvas never catches a click", async ({ page }) => {
  await page.goto("/");
  await coreReady(page);
  const hit = await page.evaluate(() => {
    const box = document.querySelector("h1")?.getBoundingClientRect();
    return box ? document.elementFromPoint(box.x + 5, box.y + 5)?.tagName : null;
  });
  expect(hit).toBe("H1");
});

test("under reduced motion it is one still frame, with no pause control", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.goto("/");
  await coreReady(page);
  const first = await snapshot(page);
  const blank = await page.evaluate(() => {
    const c = document.createElement("canvas");
    const real = document.querySelector("canvas.background-canvas") as HTMLCanvasElement;
    c.width = real.width;
    c.height = real.height;
    return c.toDataURL();
  });
  expect(first).not.toBe(blank);
  await afterFrames(page, 20);
  expect(await snapshot(page)).toBe(first);
  await expect(pauseButton(page)).toHaveCount(0);
});

test("the pause control stops and restarts the animation", async ({ page }) => {
  await page.goto("/contact");
  await coreReady(page);
  const button = pauseButton(page);
  await expect(button).toHaveAccessibleName("Pause animations");
  const box = await button.boundingBox();
  expect(box?.width).toBeGreaterThanOrEqual(24);
  expect(box?.height).toBeGreaterThanOrEqual(24);

  await button.click();
  await expect(button).toHaveAccessibleName("Play animations");
  const still = await snapshot(page);
  await afterFrames(page, 20);
  expect(await snapshot(page)).toBe(still);

  await button.click();
  await expect(button).toHaveAccessibleName("Pause animations");
  await expect.poll(() => snapshot(page)).not.toBe(still);
});

test("crisp on high-DPI screens and following resizes", async ({ browser }) => {
  const context = await browser.newContext({
    deviceScaleFactor: 2,
    viewport: { width: 800, height: 600 },
  });
  const page = await context.newPage();
  await page.goto("/");
  await coreReady(page);
  await expect(canvas(page)).toHaveJSProperty("width", 1600);
  await expect(canvas(page)).toHaveJSProperty("height", 1200);
  await page.setViewportSize({ width: 375, height: 700 });
  await expect(canvas(page)).toHaveJSProperty("width", 750);
  await expect(canvas(page)).toHaveJSProperty("height", 1400);
  await context.close();
});

test("the colours change with the theme", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce", colorScheme: "light" });
  await page.goto("/");
  await coreReady(page);
  const light = await snapshot(page);
  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  await expect.poll(() => snapshot(page)).not.toBe(light);
});

test("clearing only where shapes move leaves no trails", async ({ browser }) => {
  const context = await browser.newContext({ deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto("/");
  await coreReady(page);
  // About two seconds of motion, so shapes have left their first places.
  await afterFrames(page, 120);
  await pauseButton(page).click();
  const afterMotion = await snapshot(page);
  // Two theme switches force a full clear and redraw of the very same positions.
  const toggle = page.getByRole("button", { name: /Switch to (dark|light) theme/ });
  await toggle.click();
  await toggle.click();
  expect(await snapshot(page)).toBe(afterMotion);
  await context.close();
});
