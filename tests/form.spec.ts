import { type Page, expect, test } from "@playwright/test";
import { coreReady, watch } from "./helpers";

const name = (page: Page) => page.getByLabel("Full name");
const email = (page: Page) => page.getByLabel("Email address");
const message = (page: Page) => page.getByLabel("Message", { exact: true });
const submit = (page: Page) =>
  page.getByRole("button", { name: /Request Early Access|Submitting/ });

test.beforeEach(async ({ page }) => {
  // Fake time stands still from here on: only runFor() moves it, to the millisecond.
  await page.clock.install({ time: new Date("2026-01-05T09:00:00Z") });
  await page.goto("/contact");
  await coreReady(page);
  await page.clock.pauseAt(new Date("2026-01-05T09:01:00Z"));
});

test("fields, labels and defaults follow the spec", async ({ page }) => {
  await expect(page.locator("form")).toHaveAttribute("novalidate", "");
  for (const [label, marked] of [
    ["Full name", true],
    ["Email address", true],
    ["Company", false],
    ["Role", false],
    ["Message", false],
  ] as const) {
    const field = page.getByLabel(new RegExp(`^${label}`));
    const id = await field.getAttribute("id");
    await expect(page.locator(`label[for="${id ?? ""}"]`)).toHaveText(
      marked ? `${label} *` : label,
    );
    if (marked) await expect(field).toHaveAttribute("required", "");
    else await expect(field).not.toHaveAttribute("required");
  }
  await expect(message(page)).toHaveJSProperty("tagName", "TEXTAREA");
  await expect(message(page)).toHaveAttribute("rows", "4");
  const interest = page.getByLabel("I'm interested in");
  await expect(interest).toHaveValue("general");
  await expect(interest.locator("option")).toHaveCount(5);
  expect(
    await interest
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
  ).toEqual(["general", "enterprise", "developer", "partnership", "press"]);
});

test("an empty submit shows all three messages beneath their fields", async ({ page }) => {
  await submit(page).click();
  for (const [field, text] of [
    [name(page), "Full name is required"],
    [email(page), "Email address is required"],
    [message(page), "Message is required"],
  ] as const) {
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(field).toHaveAccessibleDescription(new RegExp(text));
    // Beneath: the message sits below its field.
    const error = page.getByText(text, { exact: true });
    const [fieldBox, errorBox] = [await field.boundingBox(), await error.boundingBox()];
    expect(errorBox?.y).toBeGreaterThan((fieldBox?.y ?? 0) + (fieldBox?.height ?? 0) - 1);
  }
  await expect(name(page)).toBeFocused();
  await expect(submit(page)).toHaveText("Request Early Access");
});

test("email: required, then the pattern", async ({ page }) => {
  await name(page).fill("Ada");
  await message(page).fill("Hello");
  for (const bad of ["ada", "ada@example", "ada @example.com", "@example.com", "ada@.com"]) {
    await email(page).fill(bad);
    await submit(page).click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(page.getByText("Email address is required")).toHaveCount(0);
    await expect(email(page)).toBeFocused();
    await expect(email(page)).toHaveValue(bad);
  }
});

test("email: leading and trailing spaces are kept and refused (a text field, spec §3 and §5)", async ({
  page,
}) => {
  await name(page).fill("Ada");
  await message(page).fill("Hello");
  for (const spaced of [" ada@example.com", "ada@example.com "]) {
    await email(page).fill("");
    // Typed key by key, as a visitor would, so the browser has every chance to change it.
    await email(page).pressSequentially(spaced);
    await submit(page).click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(submit(page)).toHaveText("Request Early Access");
    await expect(email(page)).toHaveValue(spaced);
  }
  // A text field the browser leaves alone, with an email keyboard and autofill.
  await expect(email(page)).toHaveAttribute("type", "text");
  await expect(email(page)).toHaveAttribute("inputmode", "email");
  await expect(email(page)).toHaveAttribute("autocomplete", "email");
});

test("the name is trimmed; a blank name is required", async ({ page }) => {
  await name(page).fill("   ");
  await email(page).fill("ada@example.com");
  await message(page).fill("Hello");
  await submit(page).click();
  await expect(page.getByText("Full name is required")).toBeVisible();
  await expect(page.getByText(/is required|valid email/)).toHaveCount(1);
});

test("a valid submit: Submitting... for 2000 ms, thanks for 5000 ms, then an empty form", async ({
  page,
}) => {
  const watcher = watch(page);
  await submit(page).click();
  await expect(page.getByText("Full name is required")).toBeVisible();

  await name(page).fill("Ada Lovelace");
  await email(page).fill("ada@example.com");
  await page.getByLabel("Company").fill("Analytical Engines");
  await page.getByLabel("Role").fill("CTO");
  await message(page).fill("I'd like to build a dashboard.");
  await page.getByLabel("I'm interested in").selectOption("enterprise");

  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  await submit(page).click();

  await expect(submit(page)).toHaveText("Submitting...");
  await expect(submit(page)).toBeDisabled();
  await expect(page.getByText("Full name is required")).toHaveCount(0);
  await expect(page.locator("[aria-invalid='true']")).toHaveCount(0);

  await page.clock.runFor(1999);
  await expect(submit(page)).toHaveText("Submitting...");
  await expect(page.getByRole("status")).not.toContainText("Thank you!");

  await page.clock.runFor(1);
  const status = page.getByRole("status");
  await expect(status.getByRole("heading", { name: "Thank you!" })).toBeVisible();
  await expect(status.getByRole("heading", { name: "Thank you!" })).toBeFocused();
  await expect(page.locator("form")).toHaveCount(0);

  await page.clock.runFor(4999);
  await expect(status.getByRole("heading", { name: "Thank you!" })).toBeVisible();

  await page.clock.runFor(1);
  await expect(status).toBeEmpty();
  for (const field of [
    name(page),
    email(page),
    page.getByLabel("Company"),
    page.getByLabel("Role"),
    message(page),
  ]) {
    await expect(field).toHaveValue("");
  }
  await expect(page.getByLabel("I'm interested in")).toHaveValue("general");
  await expect(submit(page)).toHaveText("Request Early Access");
  await expect(submit(page)).toBeEnabled();

  // The data went nowhere: no request at all from the submit to the reset.
  expect(requests).toEqual([]);
  watcher.expectClean();
});

test("double and triple clicks submit once", async ({ page }) => {
  await name(page).fill("Ada");
  await email(page).fill("ada@example.com");
  await message(page).fill("Hi");
  await submit(page).click({ clickCount: 3 });
  await expect(submit(page)).toHaveText("Submitting...");
  await page.clock.runFor(2000);
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
  await page.clock.runFor(5000);
  await expect(submit(page)).toHaveText("Request Early Access");
  // A second submission would have started a second cycle; none is under way.
  await page.clock.runFor(10_000);
  await expect(submit(page)).toHaveText("Request Early Access");
  await expect(name(page)).toHaveValue("");
});

test("leaving mid-submit and coming back finds an idle form and no error", async ({ page }) => {
  const watcher = watch(page);
  await name(page).fill("Ada");
  await email(page).fill("ada@example.com");
  await message(page).fill("Hi");
  await submit(page).click();
  await expect(submit(page)).toHaveText("Submitting...");
  await page.getByRole("link", { name: "Back to home" }).click();
  await page.clock.runFor(8000);
  await page.getByRole("link", { name: "Get Early Access" }).first().click();
  await expect(submit(page)).toHaveText("Request Early Access");
  await expect(name(page)).toHaveValue("");
  watcher.expectClean();
});
