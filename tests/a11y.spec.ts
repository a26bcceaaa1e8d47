import { type Page, expect, test } from "@playwright/test";
import { coreReady, form, routes, violations } from "./helpers";

for (const scheme of ["light", "dark"] as const) {
  test.describe(`axe and IBM Equal Access, ${scheme} theme`, () => {
    test.use({ colorScheme: scheme });

    for (const route of [...routes, "/missing"]) {
      test(`${route}: no WCAG 2.2 AA violation`, async ({ page }) => {
        await page.goto(route);
        await coreReady(page);
        await expect(page.locator("html")).toHaveAttribute("data-theme", scheme);
        expect(await violations(page)).toEqual([]);
      });
    }

    // Each state a test of its own: two engines' full checks are the heaviest work in
    // the suite, and one of them a test stays short however busy the machine is.
    test("the form with errors: no violation", async ({ page }) => {
      await page.goto("/contact");
      await coreReady(page);
      await page.getByRole("button", { name: "Request Early Access" }).click();
      await expect(page.getByText("Full name is required")).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });

    test("the form's thank-you panel: no violation", async ({ page }) => {
      await page.clock.install();
      await page.goto("/contact");
      await coreReady(page);
      await form(page).name.fill("Ada");
      await form(page).email.fill("ada@example.com");
      await form(page).message.fill("Hi");
      await page.getByRole("button", { name: "Request Early Access" }).click();
      await page.clock.runFor(2000);
      await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });
  });
}

/** The focused element, and whether it shows a visible focus indicator. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const visible =
      (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2) ||
      style.boxShadow !== "none";
    return {
      tag: el.tagName,
      name: el.getAttribute("aria-label") ?? el.textContent.trim().slice(0, 40),
      id: el.id,
      visible,
    };
  });
}

test.describe("keyboard only", () => {
  test("the skip link comes first and jumps to the main content", async ({ page }) => {
    await page.goto("/gdpr");
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to main content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("main")).toBeFocused();
    await page.keyboard.press("Tab");
    // Next stop: the first link inside the policy, not the header.
    expect((await focused(page))?.name).toBe("hello@example.com");
  });

  // A test a page: each is a few dozen key presses, short however busy the machine is.
  for (const route of routes) {
    test(`every stop on ${route} shows a visible focus`, async ({ page }) => {
      await page.goto(route);
      await coreReady(page);
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        const stop = await focused(page);
        if (!stop) break;
        expect(stop.visible, `${route}: ${stop.tag} "${stop.name}"`).toBe(true);
      }
    });
  }

  test("landmarks: banner, main, contentinfo and a named footer navigation", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("banner")).toHaveCount(1);
    await expect(page.getByRole("main")).toHaveCount(1);
    await expect(page.getByRole("contentinfo")).toHaveCount(1);
    await expect(page.getByRole("navigation", { name: "Footer" })).toBeVisible();
  });

  test("the form's tab order follows its reading order, and Enter submits", async ({ page }) => {
    await page.goto("/contact");
    await coreReady(page);
    await form(page).name.focus();
    const order = [];
    for (let i = 0; i < 7; i++) {
      if (i > 0) await page.keyboard.press("Tab");
      order.push((await focused(page))?.id.replace(/^.*-/, ""));
    }
    expect(order).toEqual(["name", "email", "company", "role", "interest", "message", ""]);
    await expect(page.getByRole("button", { name: "Request Early Access" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByText("Full name is required")).toBeVisible();
    await expect(form(page).name).toBeFocused();
  });

  test("Enter and Space open the questions; buttons answer to both", async ({ page }) => {
    await page.goto("/contact");
    await coreReady(page);
    const [first, second] = [
      page.locator("#faq details").nth(0),
      page.locator("#faq details").nth(1),
    ];
    await first.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(first).toHaveAttribute("open", "");
    await second.locator("summary").focus();
    await page.keyboard.press("Space");
    await expect(second).toHaveAttribute("open", "");
    await page.keyboard.press("Space");
    await expect(second).not.toHaveAttribute("open");

    const toggle = page.getByRole("button", { name: /Switch to (dark|light) theme/ });
    const before = await page.locator("html").getAttribute("data-theme");
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect(page.locator("html")).not.toHaveAttribute("data-theme", before ?? "");
    await page.keyboard.press("Enter");
    await expect(page.locator("html")).toHaveAttribute("data-theme", before ?? "");
  });

  test("Learn More works from the keyboard", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 520 });
    await page.goto("/");
    await page.getByRole("link", { name: "Learn More" }).focus();
    // Focus scrolls the link into view, smoothly: a second smooth scroll started while
    // that one runs is dropped by Chromium, as a person would not press Enter that fast.
    let last = -1;
    await expect
      .poll(async () => {
        const y = await page.evaluate(() => window.scrollY);
        const settled = y === last;
        last = y;
        return settled;
      })
      .toBe(true);
    await page.keyboard.press("Enter");
    await expect(page.locator("#features h2")).toBeInViewport();
  });
});

test("interactive targets are at least 24 by 24 pixels", async ({ page }) => {
  for (const route of routes) {
    await page.goto(route);
    await coreReady(page);
    const small = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("a, button, input, select, textarea, summary")]
        .filter((el) => !el.closest("p, li:not(.footer-links li), dd"))
        .filter((el) => el.getClientRects().length > 0)
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        .filter(({ box }) => box.width < 24 || box.height < 24)
        .map(({ el }) => el.outerHTML.slice(0, 80)),
    );
    expect(small, route).toEqual([]);
  }
});
