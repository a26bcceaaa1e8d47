import { type Page, expect, test } from "@playwright/test";
import { watch } from "./helpers";

const html = (page: Page) => page.locator("html");
const toggle = (page: Page) =>
  page.getByRole("contentinfo").getByRole("button", { name: /Switch to (dark|light) theme/ });
const saved = (page: Page) => page.evaluate(() => localStorage.getItem("theme"));

test("with nothing saved, the system preference is used and nothing is saved", async ({ page }) => {
  for (const scheme of ["dark", "light"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/");
    await expect(html(page)).toHaveAttribute("data-theme", scheme);
    await expect(toggle(page)).toHaveText(
      scheme === "dark" ? "Switch to light theme" : "Switch to dark theme",
    );
    expect(await saved(page)).toBeNull();
  }
});

test("the toggle switches, saves under 'theme', and the choice survives a reload", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/gdpr");
  await toggle(page).click();
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  expect(await saved(page)).toBe("dark");
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(
    "dark",
  );
  await page.reload();
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  await toggle(page).click();
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  expect(await saved(page)).toBe("light");
});

test("a saved choice wins over the system preference", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await page.evaluate(() => {
    localStorage.setItem("theme", "light");
  });
  await page.reload();
  await expect(html(page)).toHaveAttribute("data-theme", "light");
});

test("the system preference is followed live until the visitor chooses", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  await toggle(page).click();
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.emulateMedia({ colorScheme: "light" });
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
});

test("the right theme is applied before any script but the inline one runs", async ({ page }) => {
  // Hold every script file back: only the inlined pre-paint script can have run.
  await page.route("**/assets/*.js", () => undefined);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/", { waitUntil: "commit" });
  await expect(html(page)).toHaveAttribute("data-theme", "dark");

  await page.evaluate(() => {
    localStorage.setItem("theme", "light");
  });
  await page.reload({ waitUntil: "commit" });
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  expect(await page.evaluate(() => document.documentElement.style.colorScheme)).toBe("light");
});

test("garbage in storage is ignored", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await page.evaluate(() => {
    localStorage.setItem("theme", "purple");
  });
  await page.reload();
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  await toggle(page).click();
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  expect(await saved(page)).toBe("light");
});

test("storage that throws on every access breaks nothing", async ({ page }) => {
  await page.addInitScript(() => {
    const refuse = () => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
    for (const method of ["getItem", "setItem", "removeItem", "clear", "key"] as const) {
      Object.defineProperty(Storage.prototype, method, { value: refuse });
    }
  });
  const watcher = watch(page);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await expect(html(page)).toHaveAttribute("data-theme", "dark");
  await toggle(page).click();
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  // The choice holds for the visit, whatever the system does meanwhile.
  await page.emulateMedia({ colorScheme: "light" });
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  await page.getByRole("contentinfo").getByRole("link", { name: "Contact" }).click();
  await expect(html(page)).toHaveAttribute("data-theme", "light");
  watcher.expectClean();
});
