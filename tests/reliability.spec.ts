import { expect, test } from "@playwright/test";
import { afterFrames, coreReady, form, holdAppScript, routes, watch } from "./helpers";

test.describe("when the wasm core cannot load", () => {
  test.beforeEach(async ({ page }) => {
    await page.route("**/*.wasm", (route) => route.abort());
  });

  for (const route of routes) {
    test(`${route} still renders and reads well`, async ({ page }) => {
      const watcher = watch(page);
      const blocked = page.waitForEvent("requestfailed", (r) => r.url().endsWith(".wasm"));
      await page.goto(route);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await expect(page.getByRole("contentinfo")).toBeVisible();
      // The page has seen the core fail, and had frames enough to show any error.
      await blocked;
      await afterFrames(page, 10);
      // The one message the site gives: the core could not load, said once, with its cause.
      expect(watcher.errors.filter((e) => !e.startsWith("Failed to load resource"))).toEqual([
        expect.stringMatching(/^Lathe: the wasm core could not load; the form cannot be sent\./),
      ]);
      expect(watcher.foreign).toEqual([]);
    });
  }

  test("the form keeps what was typed and says how to reach us instead", async ({ page }) => {
    const watcher = watch(page);
    await page.goto("/contact");
    await form(page).name.fill("Ada Lovelace");
    await form(page).email.fill("ada@example.com");
    await form(page).message.fill("Please keep every word of this.");
    await form(page).interest.selectOption("partnership");
    await form(page).submit.click();
    const alert = page.getByRole("alert");
    await expect(alert).toHaveText(
      "The form can't be sent right now. Everything you typed is still here: please copy it and email us at hello@example.com.",
    );
    await expect(alert.getByRole("link", { name: "hello@example.com" })).toHaveAttribute(
      "href",
      "mailto:hello@example.com",
    );
    await expect(form(page).name).toHaveValue("Ada Lovelace");
    await expect(form(page).message).toHaveValue("Please keep every word of this.");
    await expect(form(page).interest).toHaveValue("partnership");
    expect(watcher.errors.filter((e) => !e.startsWith("Failed to load resource"))).toEqual([
      expect.stringMatching(/^Lathe: the wasm core could not load; the form cannot be sent\./),
    ]);
  });
});

test("a refresh in the middle of typing keeps what was typed, until it is thanked for", async ({
  page,
}) => {
  await page.clock.install({ time: new Date("2026-01-05T09:00:00Z") });
  await page.goto("/contact");
  await coreReady(page);
  await form(page).name.fill("Ada");
  await form(page).email.fill("ada@example.com");
  await form(page).message.fill("Half a thought");
  await page.reload();
  await coreReady(page);
  await expect(form(page).name).toHaveValue("Ada");
  await expect(form(page).email).toHaveValue("ada@example.com");
  await expect(form(page).message).toHaveValue("Half a thought");

  await page.clock.pauseAt(new Date("2026-01-05T09:01:00Z"));
  await form(page).submit.click();
  await expect(form(page).submit).toHaveText("Submitting...");
  // Kept while submitting (a submit that sends may fail), gone with the thank-you panel.
  expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
  await page.clock.runFor(2000);
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  await page.clock.runFor(5000);
  await page.reload();
  await coreReady(page);
  await expect(form(page).name).toHaveValue("");
  await expect(form(page).message).toHaveValue("");
});

// How long this takes is a figure for `make bench` (never a timed test): here, that it works.
test("a 1 MB pasted message is kept whole and validated", async ({ page }) => {
  await page.goto("/contact");
  await coreReady(page);
  const big = "Lathe ✨ שלום\n".repeat(80_000);
  expect(new TextEncoder().encode(big).length).toBeGreaterThan(1_000_000);
  await page.evaluate((text) => {
    const textarea = document.querySelector("textarea");
    const form = document.querySelector("form");
    if (!textarea || !form) throw new Error("no form");
    // The value as a paste sets it, past React's own setter, so React sees an input event.
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")?.set?.call(
      textarea,
      text,
    );
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
    form.requestSubmit();
  }, big);
  await expect(page.getByText("Full name is required")).toBeVisible();
  await expect(page.getByText("Email address is required")).toBeVisible();
  await expect(page.getByText("Message is required")).toHaveCount(0);
  await expect(form(page).message).not.toHaveAttribute("aria-invalid");
  expect(await form(page).message.inputValue()).toBe(big);
});

test("a tab hidden for minutes resumes without a jump or a burst of frames", async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { frames$: number };
    w.frames$ = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (cb) => {
      w.frames$ += 1;
      return raf(cb);
    };
  });
  await page.clock.install({ time: new Date("2026-01-05T09:00:00Z") });
  await page.goto("/");
  await coreReady(page);
  await page.clock.pauseAt(new Date("2026-01-05T09:01:00Z"));
  await page.clock.runFor(500);

  // Snapshots stay in the page; only the count of differing bytes comes back.
  const snap = (name: string) =>
    page.evaluate((n) => {
      const c = document.querySelector<HTMLCanvasElement>("canvas.background-canvas");
      const data = c?.getContext("2d")?.getImageData(0, 0, c.width, c.height).data;
      (window as unknown as Record<string, unknown>)[n] = data;
    }, name);
  const changed = (a: string, b: string) =>
    page.evaluate(
      ({ x, y }) => {
        const w = window as unknown as Record<string, Uint8ClampedArray | undefined>;
        const [p, q] = [w[x], w[y]];
        let count = 0;
        for (let i = 0; i < (p?.length ?? 0); i++) if (p?.[i] !== q?.[i]) count++;
        return count;
      },
      { x: a, y: b },
    );
  const frames = () => page.evaluate(() => (window as unknown as { frames$: number }).frames$);
  const setHidden = (hidden: boolean) =>
    page.evaluate((h) => {
      Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
      Object.defineProperty(document, "visibilityState", {
        configurable: true,
        get: () => (h ? "hidden" : "visible"),
      });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);

  await snap("before");
  await setHidden(true);
  const framesWhenHidden = await frames();
  await page.clock.fastForward("05:00");
  expect(await frames(), "no frames while hidden").toBe(framesWhenHidden);

  await setHidden(false);
  // One frame: the first after a pause steps by nothing, so nothing has moved at all.
  await page.clock.runFor(17);
  expect(
    (await frames()) - framesWhenHidden,
    "one frame, not a catch-up burst",
  ).toBeLessThanOrEqual(2);
  await snap("resumed");
  expect(await changed("before", "resumed"), "no jump on return").toBe(0);
  // And then it moves on as before.
  await page.clock.runFor(1000);
  await snap("later");
  expect(await changed("before", "later")).toBeGreaterThan(1000);
});

test("tiny and huge viewports cause no error", async ({ page }) => {
  const watcher = watch(page);
  await page.goto("/");
  await coreReady(page);
  for (const [width, height] of [
    [1, 1],
    [120, 80],
    [3840, 2160],
    [7680, 4320],
    [320, 568],
  ] as const) {
    await page.setViewportSize({ width, height });
    await expect(page.locator("canvas.background-canvas")).toHaveJSProperty("width", width);
  }
  await page.goto("/contact");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  watcher.expectClean();
});

test("a browser too old for the app gets the page, readable, and the form says what to do", async ({
  page,
}) => {
  // As in a browser without WebAssembly whose JavaScript is too old for the app to start:
  // only the inlined pre-paint script runs.
  await page.addInitScript(() => {
    Reflect.deleteProperty(window, "WebAssembly");
  });
  const release = await holdAppScript(page);
  await page.goto("/contact");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const note = page.getByText("This browser is too old to send the form");
  await expect(note).toBeVisible();
  await expect(note.getByRole("link", { name: "hello@example.com" })).toHaveAttribute(
    "href",
    "mailto:hello@example.com",
  );
  await expect(form(page).submit).toBeDisabled();
  // Where the app does start, the core's absence says the same, and the note gives way.
  release();
  await expect(page.getByRole("alert")).toContainText("The form can't be sent right now");
  await expect(note).toHaveCount(0);
});

test("a current browser never sees the old-browser note", async ({ page }) => {
  await page.goto("/contact");
  await coreReady(page);
  await expect(page.getByText("This browser is too old to send the form")).toBeHidden();
  await expect(page.locator("html")).not.toHaveAttribute("data-unsupported");
});
