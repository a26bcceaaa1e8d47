// What a visitor sees first: the header and its menu, the hero's product demo, the type,
// the background kept away from the text, phone layouts, and what a shared link shows.
import { type Page, expect, test } from "@playwright/test";
import { product, company } from "../web/src/content/company";
import { demo } from "../web/src/content/demo";
import { sentAt, timeline } from "../web/src/demo/timeline";
import { afterFrames, coreReady, firstPaintAndRequests, routes } from "./helpers";

test.describe("the header", () => {
  test("on wide screens: the links and the way in to the waitlist, no menu", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link")).toHaveText(["Features", "FAQ", "Contact"]);
    await expect(
      page.getByRole("banner").getByRole("link", { name: "Get Early Access" }),
    ).toBeVisible();
    await expect(page.getByText("Menu", { exact: true })).toBeHidden();
  });

  test.describe("before any script", () => {
    test.use({ javaScriptEnabled: false });
    test("the link to the page shown is marked as the current page", async ({ page }) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto("/contact");
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Contact" })).toHaveAttribute(
        "aria-current",
        "page",
      );
      await expect(nav.locator("[aria-current]")).toHaveCount(1);
    });
  });

  test("on phones, a menu that works by keyboard alone", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/");
    await coreReady(page);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    const menu = page.locator("details.menu");
    const button = menu.locator("summary");
    await expect(button).toHaveAccessibleName("Menu");
    await expect(
      page.getByRole("banner").getByRole("link", { name: "Get Early Access" }),
    ).toBeVisible();

    // From the top of the page, Tab reaches the menu's button within a few presses.
    for (let i = 0; i < 8 && !(await button.evaluate((e) => e === document.activeElement)); i++)
      await page.keyboard.press("Tab");
    await expect(button).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveAttribute("open", "");
    const links = page.getByRole("navigation", { name: "Menu" }).getByRole("link");
    await expect(links).toHaveText(["Features", "FAQ", "Contact"]);
    await page.keyboard.press("Tab");
    await expect(links.first()).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(menu).not.toHaveAttribute("open");
    await expect(button).toBeFocused();

    await page.keyboard.press("Space");
    await expect(menu).toHaveAttribute("open", "");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(links.nth(1)).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("/contact#faq");
    await expect(menu).not.toHaveAttribute("open");
    await expect(
      page.getByRole("heading", { name: "Frequently asked questions" }),
    ).toBeInViewport();
  });

  test("the menu closes on a click elsewhere", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/contact");
    await coreReady(page);
    const menu = page.locator("details.menu");
    await menu.locator("summary").click();
    await expect(menu).toHaveAttribute("open", "");
    // Well below the menu's panel.
    await page.mouse.click(20, 700);
    await expect(menu).not.toHaveAttribute("open");
  });

  test("Features leads from another page to the landing page's features", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 700 });
    await page.goto("/terms");
    await coreReady(page);
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Features" })
      .click();
    await expect(page).toHaveURL("/#features");
    await expect(
      page.getByRole("heading", { name: "Everything you need to go from idea to app" }),
    ).toBeInViewport();
  });
});

/** The demo's CSS animations, moved to `seconds` after their start; the state of each part. */
async function demoAt(page: Page, seconds: number) {
  return page.evaluate((ms) => {
    const figure = document.querySelector(".demo");
    if (!figure) throw new Error("no demo");
    for (const animation of figure.getAnimations({ subtree: true })) {
      animation.pause();
      animation.currentTime = ms;
    }
    const shown = (selector: string) => {
      const element = figure.querySelector(selector);
      if (!element) throw new Error(`no ${selector}`);
      const style = getComputedStyle(element);
      const clip = style.clipPath;
      // Visible, and not wholly cut away by a clip that is still opening.
      return style.visibility === "visible" && !/inset\(0px 0px 100%|inset\(0px 100%/.test(clip);
    };
    return {
      placeholder: shown(".demo-placeholder"),
      typed: shown(".demo-typed"),
      prompt: shown(".demo-user"),
      reply: shown(".demo-assistant"),
      firstStep: shown('[data-beat="step-0"]'),
      firstLine: shown('[data-beat="code-0"]'),
      code: shown(".demo-code"),
      preview: shown(".demo-preview"),
      done: shown(".demo-toast"),
      // The parts in the code's font that are laid out (styles/demo.css keeps each out
      // of the layout until its beat, so the first paint needs no monospace face).
      inCodeFont: [...figure.querySelectorAll(".demo-file, .demo-line, .demo-time")].filter(
        (element) => element.getClientRects().length > 0,
      ).length,
    };
  }, seconds * 1000);
}

test.describe("the product demo", () => {
  test("each part starts when the script says", async ({ page }) => {
    await page.goto("/");
    const delays = await page.evaluate(() => {
      const starts: Record<string, string> = {};
      for (const element of document.querySelectorAll(".demo [data-beat]"))
        starts[element.getAttribute("data-beat") ?? ""] = getComputedStyle(element)
          .getPropertyValue("--at")
          .trim();
      return starts;
    });
    expect(Object.keys(delays).sort()).toEqual(
      timeline()
        .map((b) => b.name)
        .sort(),
    );
    for (const { name, at } of timeline())
      expect(parseFloat(delays[name] ?? ""), name).toBe(Number(at.toFixed(2)));
  });

  test("plays the conversation: typed, sent, answered, coded, then the app runs", async ({
    page,
  }) => {
    await page.goto("/");
    const at = (name: string) => timeline().find((beat) => beat.name === name)?.at ?? NaN;
    // Before anything: an empty conversation, the code pane waiting.
    expect(await demoAt(page, 0.1)).toMatchObject({
      placeholder: true,
      typed: false,
      prompt: false,
      reply: false,
      code: true,
      preview: false,
      done: false,
      inCodeFont: 0,
    });
    // The prompt being typed.
    expect(await demoAt(page, demo.prompt.at + demo.prompt.typing / 2)).toMatchObject({
      placeholder: false,
      typed: true,
      prompt: false,
    });
    // Sent: the message in the conversation, the box empty again.
    expect(await demoAt(page, sentAt + 0.4)).toMatchObject({
      placeholder: true,
      typed: false,
      prompt: true,
      reply: false,
    });
    expect(await demoAt(page, at("code-0") + 0.3)).toMatchObject({
      reply: true,
      firstStep: true,
      firstLine: true,
      code: true,
      preview: false,
      // The file's name and the lines begun by then.
      inCodeFont:
        1 +
        timeline().filter((b) => b.name.startsWith("code-") && b.at <= at("code-0") + 0.3).length,
    });
    expect(await demoAt(page, at("preview") + 0.5)).toMatchObject({
      code: false,
      preview: true,
      done: false,
      inCodeFont: 1 + demo.code.lines.length + demo.preview.classes.length,
    });
    expect(await demoAt(page, at("done") + 0.5)).toMatchObject({ preview: true, done: true });
  });

  test("under reduced motion it is the last frame, still, from the start", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/");
    const demoAnimations = () =>
      page.evaluate(
        () => document.querySelector(".demo")?.getAnimations({ subtree: true }).length ?? -1,
      );
    expect(await demoAnimations()).toBe(0);
    const window = page.locator(".demo-window");
    for (const selector of [".demo-user", ".demo-assistant", ".demo-preview", ".demo-toast"])
      await expect(window.locator(selector)).toBeVisible();
    await expect(window.locator(".demo-code")).toBeHidden();
    await expect(window.locator(".demo-typed")).toBeHidden();
    await expect(window.locator(".demo-toast")).toHaveText(demo.done.text);
  });

  test("hidden from assistive technology, its caption says what it shows", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("figure", { name: demo.caption })).toBeVisible();
    await expect(page.locator(".demo-window")).toHaveAttribute("aria-hidden", "true");
    await expect(page.locator(".demo-window *:is(a, button, input, [tabindex])")).toHaveCount(0);
  });

  const playStates = (page: Page) =>
    page.evaluate(() => [
      ...new Set(
        document
          .querySelector(".demo")
          ?.getAnimations({ subtree: true })
          .map((a) => a.playState),
      ),
    ]);

  test("the page's pause control pauses it, and play resumes it", async ({ page }) => {
    await page.goto("/");
    await coreReady(page);
    expect(await playStates(page)).toContain("running");
    await page.getByRole("button", { name: "Pause animations" }).click();
    await expect.poll(() => playStates(page)).toEqual(["paused"]);
    await page.getByRole("button", { name: "Play animations" }).click();
    await expect.poll(() => playStates(page)).toContain("running");
  });

  test("it waits while scrolled out of sight", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 700 });
    await page.goto("/");
    await coreReady(page);
    expect(await playStates(page)).toContain("running");
    await page.getByRole("contentinfo").scrollIntoViewIfNeeded();
    await expect.poll(() => playStates(page)).toEqual(["paused"]);
    await page.locator("h1").scrollIntoViewIfNeeded();
    await expect.poll(() => playStates(page)).toContain("running");
  });

  test("its window follows the theme", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
    await page.goto("/");
    await coreReady(page);
    const surface = () =>
      page.locator(".demo-window").evaluate((e) => getComputedStyle(e).backgroundColor);
    const light = await surface();
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await expect.poll(surface).not.toBe(light);
  });
});

/** The sum of the page's layout shifts so far (CLS, before any input). */
const layoutShift = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          resolve(
            list
              .getEntries()
              .reduce((sum, e) => sum + (e as PerformanceEntry & { value: number }).value, 0),
          );
        }).observe({ type: "layout-shift", buffered: true });
        // No entries at all: the observer never calls back.
        setTimeout(() => {
          resolve(0);
        }, 500);
      }),
  );

const family = (page: Page) => page.locator("h1").evaluate((e) => getComputedStyle(e).fontFamily);

/** This browser's copy of the web font (web/src/fontNote.ts): "<font id>,<base64>". */
const fontCopy = (page: Page) => page.evaluate(() => localStorage.getItem("font"));

const fontFile = /^\/assets\/geist-latin-wght-normal-[\w-]+\.woff2$/;

/** The system fonts the text of the first element `selector` finds is drawn with, by their
 * PostScript names (Chromium's own account, over the DevTools protocol). */
async function drawnWith(page: Page, selector: string) {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send("DOM.enable");
    await session.send("CSS.enable");
    const { root } = await session.send("DOM.getDocument");
    const { nodeId } = await session.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    const { fonts } = await session.send("CSS.getPlatformFontsForNode", { nodeId });
    return fonts.map((font) => font.postScriptName);
  } finally {
    await session.detach();
  }
}

test.describe("type", () => {
  test("a first visit: the matched fallback, Geist fetched after the first paint and kept, nothing shifts", async ({
    page,
  }) => {
    await page.goto("/");
    expect(await family(page)).toMatch(/^"Geist Fallback", Arial/);
    // The fallback is in the page's own CSS, regular and bold, from fonts on the system.
    const fallback = await page.evaluate(() =>
      [...document.fonts].filter((f) => f.family === "Geist Fallback").map((f) => f.weight),
    );
    expect(fallback).toEqual(["100 549", "550 900"]);
    // Downloaded from the site itself, once, after the first paint, and kept for later pages.
    await expect.poll(() => fontCopy(page)).toMatch(/^geist-latin-[\w.-]+,[A-Za-z0-9+/]+=*$/);
    const { paint, requests } = await firstPaintAndRequests(page);
    const fonts = requests.filter((r) => fontFile.test(r.path));
    expect(fonts).toHaveLength(1);
    expect(fonts[0]?.start).toBeGreaterThan(paint);
    const file = await page.request.get(fonts[0]?.path ?? "");
    const copy = (await fontCopy(page)) ?? "";
    expect(Buffer.from(copy.slice(copy.indexOf(",") + 1), "base64").equals(await file.body())).toBe(
      true,
    );
    await expect(page.locator("html")).not.toHaveAttribute("data-font");
    expect(await layoutShift(page)).toBe(0);

    // The next page shown is in Geist.
    await coreReady(page);
    await page.getByRole("contentinfo").getByRole("link", { name: "Terms of Service" }).click();
    await expect(page.locator("html")).toHaveAttribute("data-font", "");
    expect(await family(page)).toMatch(/^Geist, "Geist Fallback"/);
    expect(await page.evaluate(() => document.fonts.check("650 48px Geist"))).toBe(true);
  });

  test("the fallback is the system's own Arial-metric face, regular and bold, and the hero's text keeps its lines in either face", async ({
    page,
  }) => {
    await page.goto("/");
    // Each face is found by one of its local() names (Debian's Chromium brings Liberation
    // Sans). Were none found, the face would fail and text would fall through to plain
    // Arial, unsized: the same system font, so only the faces' status tells.
    const faces = await page.evaluate(() =>
      Promise.all(
        [...document.fonts]
          .filter((f) => f.family === "Geist Fallback")
          .map((f) =>
            f.load().then(
              () => f.status,
              () => f.status,
            ),
          ),
      ),
    );
    expect(faces).toEqual(["loaded", "loaded"]);
    // What the first visit's text is drawn with: the bold face for the heading (650), the
    // regular for the lead.
    expect(await drawnWith(page, "h1")).toEqual(["LiberationSans-Bold"]);
    expect(await drawnWith(page, ".hero .lead")).toEqual(["LiberationSans"]);

    // The hero in the fallback and in Geist, at phone to wide widths: every line where it
    // was (the fallback is sized to Geist's metrics), so a later visit's first screen
    // looks as a first visit's did.
    await expect.poll(() => fontCopy(page)).not.toBeNull();
    const heights = () =>
      page
        .locator(".hero-text > *")
        .evaluateAll((parts) => parts.map((part) => part.getBoundingClientRect().height));
    for (const width of [320, 375, 412, 768, 1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("data-font", "");
      await page.evaluate(() => document.fonts.ready);
      const inGeist = await heights();
      await page.evaluate(() => {
        document.documentElement.removeAttribute("data-font");
      });
      expect(await drawnWith(page, "h1")).toEqual(["LiberationSans-Bold"]);
      expect(await heights(), `at ${String(width)} px`).toEqual(inGeist);
    }
  });

  test("a later visit: Geist from the first paint, from the kept copy, even with the HTTP cache emptied", async ({
    page,
  }) => {
    await page.goto("/");
    await expect.poll(() => fontCopy(page)).not.toBeNull();
    const session = await page.context().newCDPSession(page);
    await session.send("Network.clearBrowserCache");
    for (const route of routes) {
      await page.goto(route);
      await expect(page.locator("html")).toHaveAttribute("data-font", "");
      expect(await family(page)).toMatch(/^Geist, "Geist Fallback"/);
      // Ready before the first paint: the page never asks the network for it.
      expect(
        await page.evaluate(() => [...document.fonts].find((f) => f.family === "Geist")?.status),
      ).toBe("loaded");
      const { requests } = await firstPaintAndRequests(page);
      expect(requests.filter((r) => fontFile.test(r.path))).toEqual([]);
      expect(await layoutShift(page)).toBe(0);
    }
  });

  test("a copy of another font is not taken for this one, and a broken copy is dropped", async ({
    page,
  }) => {
    await page.goto("/");
    await expect.poll(() => fontCopy(page)).not.toBeNull();
    const id = ((await fontCopy(page)) ?? "").split(",")[0] ?? "";
    // An older font's copy: the fallback, and the app fetches this font and keeps it.
    await page.evaluate(
      (copy) => {
        localStorage.setItem("font", copy);
      },
      `geist-latin-0.0.1,${Buffer.from("old").toString("base64")}`,
    );
    await page.reload();
    await expect(page.locator("html")).not.toHaveAttribute("data-font");
    await expect.poll(() => fontCopy(page)).toMatch(new RegExp(`^${id},`));
    // This font's id, but bytes that are no font: dropped, and the page reads in the fallback.
    await page.evaluate(
      (copy) => {
        localStorage.setItem("font", copy);
      },
      `${id},${Buffer.from("not a font").toString("base64")}`,
    );
    await page.reload();
    await expect.poll(() => fontCopy(page)).toBeNull();
    expect(
      await page.evaluate(() => [...document.fonts].find((f) => f.family === "Geist")?.status),
    ).toBe("error");
  });
});

test.describe("phones", () => {
  for (const route of ["/", "/contact", "/no-such-page"]) {
    test(`${route}: every button of the page takes the whole width`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(route);
      await coreReady(page);
      const buttons = await page.locator("main .button").evaluateAll((all) =>
        all.map((button) => {
          const parent = button.parentElement;
          if (!parent) return { button: 0, room: -1 };
          const style = getComputedStyle(parent);
          const room =
            parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return { button: button.getBoundingClientRect().width, room };
        }),
      );
      expect(buttons.length).toBeGreaterThan(0);
      // clientWidth is whole pixels.
      for (const { button, room } of buttons)
        expect(Math.abs(button - room)).toBeLessThanOrEqual(1);
    });
  }
});

test("the background shapes are faded behind the text column, full strength beside it", async ({
  browser,
}) => {
  // Wide, so the margins beside the column are wide; crisp, so a line's pixels are whole.
  const context = await browser.newContext({
    viewport: { width: 1800, height: 900 },
    deviceScaleFactor: 2,
    reducedMotion: "reduce",
    colorScheme: "dark",
  });
  const page = await context.newPage();
  await page.goto("/");
  await coreReady(page);
  await afterFrames(page, 2);
  const column = await page.locator(".site-header .container").boundingBox();
  if (!column) throw new Error("no text column");
  // The canvas's own pixels: their opacity is the shapes' ink, whatever lies behind.
  const ink = await page.evaluate(
    ({ left, right }) => {
      const canvas = document.querySelector<HTMLCanvasElement>("canvas.background-canvas");
      const ctx = canvas?.getContext("2d");
      if (!canvas || !ctx) throw new Error("no canvas");
      const { data, width } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      const ratio = canvas.width / innerWidth;
      let inside = 0;
      let beside = 0;
      for (let i = 3; i < data.length; i += 4) {
        const x = (((i - 3) / 4) % width) / ratio;
        const alpha = data[i] ?? 0;
        if (x > left && x < right) inside = Math.max(inside, alpha);
        else if (x < left - 32 || x > right + 32) beside = Math.max(beside, alpha);
      }
      return { inside, beside };
    },
    { left: column.x + 32, right: column.x + column.width - 32 },
  );
  // Dark theme: outlines at 0.42. Beside the column, full strength somewhere; inside, 0.4
  // of it, two faded outlines crossing at most.
  const full = 0.42 * 255;
  const faded = full * 0.4;
  expect(ink.beside).toBeGreaterThan(full * 0.9);
  expect(ink.inside).toBeLessThanOrEqual(Math.ceil(255 * (1 - (1 - faded / 255) ** 2)));
  expect(ink.inside).toBeGreaterThan(0);
  await context.close();
});

test.describe("sharing", () => {
  const cards: Record<(typeof routes)[number], string> = {
    "/": "home",
    "/contact": "contact",
    "/gdpr": "gdpr",
    "/terms": "terms",
  };
  for (const route of routes) {
    test(`${route}: a large card of its own, with its size and words declared @deploy`, async ({
      page,
      request,
    }) => {
      await page.goto(route);
      const meta = (property: string) =>
        page
          .locator(`meta[property="${property}"], meta[name="${property}"]`)
          .getAttribute("content");
      const image = await meta("og:image");
      expect(image).toBe(`${product.siteUrl}/social/${cards[route]}.png`);
      expect(await meta("og:image:width")).toBe("1200");
      expect(await meta("og:image:height")).toBe("630");
      expect(await meta("og:image:type")).toBe("image/png");
      expect(await meta("og:image:alt")).toMatch(/^The Lathe logo above the words “.+”/);
      expect(await meta("twitter:card")).toBe("summary_large_image");

      // Served here as a 1200 x 630 PNG (its header says so).
      const response = await request.get(new URL(image ?? "").pathname);
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toBe("image/png");
      const png = await response.body();
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    });
  }

  test("after moving to another page, the head names that page's card", async ({ page }) => {
    await page.goto("/");
    await coreReady(page);
    await page.getByRole("contentinfo").getByRole("link", { name: "Terms of Service" }).click();
    await expect(page.locator('meta[property="og:image"]')).toHaveAttribute(
      "content",
      `${product.siteUrl}/social/terms.png`,
    );
  });

  test("schema.org: both companies, one the other's subsidiary, and the product", async ({
    page,
  }) => {
    await page.goto("/");
    const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
    expect(blocks).toHaveLength(1);
    const graph = (JSON.parse(blocks[0] ?? "") as { "@graph": Record<string, unknown>[] })[
      "@graph"
    ];
    const named = (name: string) => graph.find((node) => node.name === name);
    const parent = named(company.parent);
    const subsidiary = named(company.subsidiary);
    const app = named(product.name);
    expect(parent?.["@type"]).toBe("Organization");
    expect(subsidiary?.["@type"]).toBe("Organization");
    expect(parent?.subOrganization).toEqual({ "@id": subsidiary?.["@id"] });
    expect(subsidiary?.parentOrganization).toEqual({ "@id": parent?.["@id"] });
    expect(app?.["@type"]).toBe("SoftwareApplication");
    expect(app?.publisher).toEqual({ "@id": parent?.["@id"] });
    expect(app?.url).toBe(`${product.siteUrl}/`);
  });
});
