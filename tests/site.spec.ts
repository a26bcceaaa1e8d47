import { expect, test } from "@playwright/test";
import { coreReady, holdAppScript, routes, watch } from "./helpers";

const headings: Record<(typeof routes)[number], string> = {
  "/": "Chat with AI to Build Apps",
  "/contact": "Get Early Access",
  "/gdpr": "GDPR Compliance Policy",
  "/terms": "Terms of Service",
};

for (const route of routes) {
  test(`${route} renders its page with no console error and nothing from elsewhere`, async ({
    page,
  }) => {
    const watcher = watch(page);
    const response = await page.goto(route);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(headings[route]);
    await expect(page.locator("html")).toHaveAttribute("lang", "en-GB");
    await coreReady(page);
    await expect(page.getByRole("main")).toBeVisible();
    await expect(page.getByRole("contentinfo")).toBeVisible();
    watcher.expectClean();
  });

  test(`${route} has no sideways scrolling at 320 px`, async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto(route);
    await coreReady(page);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
  });
}

test.describe("the landing page", () => {
  test("both Get Early Access buttons go to /contact", async ({ page }) => {
    for (const index of [0, 1]) {
      await page.goto("/");
      const buttons = page.getByRole("main").getByRole("link", { name: "Get Early Access" });
      await expect(buttons).toHaveCount(2);
      await buttons.nth(index).click();
      await expect(page).toHaveURL("/contact");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Get Early Access");
    }
  });

  test("Learn More smooth-scrolls to the features section", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 520 });
    await page.goto("/");
    const features = page.locator("#features");
    await expect(features.getByRole("heading", { level: 2 })).not.toBeInViewport();
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior),
    ).toBe("smooth");
    // Smooth: one frame after the click, the page is still on its way.
    const early = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          [...document.querySelectorAll("a")].find((a) => a.textContent === "Learn More")?.click();
          requestAnimationFrame(() => {
            resolve(window.scrollY);
          });
        }),
    );
    await expect(features.getByRole("heading", { level: 2 })).toBeInViewport({ ratio: 1 });
    expect(early).toBeLessThan(await page.evaluate(() => window.scrollY));
    await expect(page).toHaveURL("/#features");
  });

  test("Learn More jumps instantly under reduced motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/");
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior),
    ).toBe("auto");
    await page.getByRole("link", { name: "Learn More" }).click();
    await expect(page.locator("#features h2")).toBeInViewport();
  });

  test("shows six feature cards, each with exactly three benefit lines", async ({ page }) => {
    await page.goto("/");
    const cards = page.locator("#features article");
    await expect(cards.getByRole("heading", { level: 3 })).toHaveText([
      "AI-Powered App Builder",
      "Flexible AI Options",
      "Lathe AI Model Connection",
      "Full-Stack Integration",
      "Premium AI Development",
      "Cross-Platform Available",
    ]);
    for (let i = 0; i < 6; i++) {
      await expect(cards.nth(i).getByRole("listitem")).toHaveCount(3);
    }
  });

  test("names what the product does, its models, integrations and platforms", async ({ page }) => {
    await page.goto("/");
    const text = await page.getByRole("main").innerText();
    for (const name of [
      "React and Next.js",
      "chatbots",
      "data tools",
      "own API keys",
      "hosted service",
      "locally",
      "GPT-5",
      "Claude",
      "Gemini",
      "Azure OpenAI",
      "OpenRouter",
      "Neon",
      "Supabase",
      "Vercel",
      "Stripe",
      "Mixpanel",
      "Windows: available soon",
      "macOS: available soon",
      "Linux: available soon",
      "beta",
      "waitlist",
      "developers and businesses",
    ]) {
      expect(text, name).toContain(name);
    }
  });

  test("Join Community does nothing", async ({ page }) => {
    const watcher = watch(page);
    await page.goto("/");
    const button = page.getByRole("button", { name: "Join Community" });
    await expect(button).toBeVisible();
    await button.click();
    await expect(page).toHaveURL("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Chat with AI to Build Apps");
    watcher.expectClean();
  });
});

test.describe("the footer", () => {
  for (const [label, path, heading] of [
    ["GDPR Compliance", "/gdpr", "GDPR Compliance Policy"],
    ["Privacy Policy", "/gdpr", "GDPR Compliance Policy"],
    ["Terms of Service", "/terms", "Terms of Service"],
    ["Contact", "/contact", "Get Early Access"],
  ] as const) {
    test(`${label} goes to ${path}, at the top of the page`, async ({ page }) => {
      await page.goto("/terms");
      await page.getByRole("contentinfo").getByRole("link", { name: label, exact: true }).click();
      await expect(page).toHaveURL(path);
      // The URL changes first; the new page renders a moment later (React Router
      // navigates in a transition), and then it is scrolled to the top.
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    });
  }

  test("Support goes nowhere, before the app has loaded and after", async ({ page }) => {
    const release = await holdAppScript(page);
    await page.goto("/gdpr");
    const support = page.getByRole("contentinfo").getByRole("link", { name: "Support" });
    await support.click();
    await expect(page).toHaveURL("/gdpr");
    release();
    await coreReady(page);
    await support.click();
    await support.press("Enter");
    await expect(page).toHaveURL("/gdpr");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("GDPR Compliance Policy");
  });

  test("holds the theme toggle", async ({ page }) => {
    await page.goto("/");
    await expect(
      page.getByRole("contentinfo").getByRole("button", { name: /Switch to (dark|light) theme/ }),
    ).toBeVisible();
  });
});

test.describe("the contact page", () => {
  test("has a back-to-home link", async ({ page }) => {
    await page.goto("/contact");
    await page.getByRole("link", { name: "Back to home" }).click();
    await expect(page).toHaveURL("/");
  });

  test("shows the contact information block", async ({ page }) => {
    await page.goto("/contact");
    const block = page.getByRole("region", { name: "Contact information" });
    await expect(block.getByRole("link", { name: "hello@example.com" })).toHaveAttribute(
      "href",
      "mailto:hello@example.com",
    );
    for (const text of [
      "Parent company",
      "Lathe Holdings Ltd",
      "Subsidiary",
      "Lathe Labs Ltd",
      "Registered office",
      "London",
      "Registration number: 00000001",
      "Registration number: 00000002",
      "England and Wales",
    ]) {
      await expect(block).toContainText(text);
    }
  });

  test("has five FAQ items that expand to their answers", async ({ page }) => {
    await page.goto("/contact");
    const items = page.locator("#faq details");
    await expect(items).toHaveCount(5);
    for (let i = 0; i < 5; i++) {
      const item = items.nth(i);
      await expect(item.locator("p")).toBeHidden();
      await item.locator("summary").click();
      await expect(item.locator("p")).toBeVisible();
      await expect(item.locator("p")).not.toBeEmpty();
    }
  });

  test("lists what to expect", async ({ page }) => {
    await page.goto("/contact");
    const list = page.getByRole("region", { name: "What to Expect" }).getByRole("listitem");
    await expect(list).toHaveCount(3);
    await expect(list.locator("strong")).toHaveText([
      "Early access invitation",
      "Beta testing",
      "Exclusive updates",
    ]);
  });
});

test.describe("the legal pages", () => {
  test("the GDPR policy states its facts", async ({ page }) => {
    await page.goto("/gdpr");
    const main = page.getByRole("main");
    await expect(main.locator("time")).toHaveText("9 October 2025");
    await expect(main.locator("time")).toHaveAttribute("datetime", "2025-10-09");
    await expect(main.getByRole("heading", { level: 2 })).toHaveText([
      "1. Data we collect",
      "2. Legal basis for processing",
      "3. How we use your data",
      "4. Data retention",
      "5. Your rights",
      "6. How to contact us",
      "7. Security",
      "8. Cookies",
      "9. Changes to this policy",
    ]);
    for (const text of [
      "your name",
      "your email address",
      "your company",
      "the message you send us",
      "IP address and browser information",
      "Consent",
      "Legitimate interest",
      "Legal obligations",
      "Contact form data: 2 years after your last interaction",
      "that system is told only that an entry was erased",
      "Email communications: 2 years after the last email",
      "Analytics data: 1 year",
      // What the waitlist's server does, by the core's periods.
      "we email you a link to confirm your address; it works for 48 hours",
      "An address not confirmed within 7 days is deleted",
      "our server deletes each entry 2 years after it, automatically, every day",
      "never more than 3 emails to one address in a day",
      "see what we keep about you, download it as a file (JSON), and erase it",
      "Access",
      "Rectification",
      "Erasure",
      "Portability",
      "Object",
      "'GDPR Request'",
      "Lathe Holdings Ltd",
      "Lathe Labs Ltd",
    ]) {
      await expect(main).toContainText(text);
    }
  });

  test("the terms state their facts", async ({ page }) => {
    await page.goto("/terms");
    const main = page.getByRole("main");
    await expect(main.locator("time")).toHaveText("9 October 2025");
    await expect(main.getByRole("heading", { level: 2 })).toHaveText([
      "1. Acceptance of terms",
      "2. Description of service",
      "3. Accounts",
      "4. Acceptable use",
      "5. Intellectual property",
      "6. Privacy",
      "7. Disclaimers",
      "8. Limitation of liability",
      "9. Termination",
      "10. Governing law",
      "11. Changes to these terms",
      "12. Contact",
    ]);
    await expect(main).toContainText("You keep full ownership of the apps, code and content");
    await expect(main).toContainText("governed by the law of England and Wales");
    await expect(main).toContainText("at least 30 days' notice of material changes");
    await main.getByRole("link", { name: "GDPR Compliance Policy" }).click();
    await expect(page).toHaveURL("/gdpr");
  });
});

test("an unknown path shows a not-found page with a way home", async ({ page }) => {
  await page.goto("/no-such-page");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
  await page.getByRole("link", { name: "Go to the home page" }).click();
  await expect(page).toHaveURL("/");
});
