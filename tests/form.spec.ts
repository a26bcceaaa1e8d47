import { expect, test } from "@playwright/test";
import { coreReady, form, watch } from "./helpers";

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
  await expect(form(page).message).toHaveJSProperty("tagName", "TEXTAREA");
  await expect(form(page).message).toHaveAttribute("rows", "4");
  const interest = form(page).interest;
  await expect(interest).toHaveValue("general");
  await expect(interest.locator("option")).toHaveCount(5);
  expect(
    await interest
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
  ).toEqual(["general", "enterprise", "developer", "partnership", "press"]);
  await expect(form(page).submit).toHaveText("Request Early Access");
});

test("an empty submit shows all three messages beneath their fields", async ({ page }) => {
  await form(page).submit.click();
  for (const [field, text] of [
    [form(page).name, "Full name is required"],
    [form(page).email, "Email address is required"],
    [form(page).message, "Message is required"],
  ] as const) {
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(field).toHaveAccessibleDescription(new RegExp(text));
    // Beneath: the message sits below its field.
    const error = page.getByText(text, { exact: true });
    const [fieldBox, errorBox] = [await field.boundingBox(), await error.boundingBox()];
    expect(errorBox?.y).toBeGreaterThan((fieldBox?.y ?? 0) + (fieldBox?.height ?? 0) - 1);
  }
  await expect(form(page).name).toBeFocused();
  await expect(form(page).submit).toHaveText("Request Early Access");
});

test("email: required, then the pattern", async ({ page }) => {
  await form(page).name.fill("Ada");
  await form(page).message.fill("Hello");
  for (const bad of ["ada", "ada@example", "ada @example.com", "@example.com", "ada@.com"]) {
    await form(page).email.fill(bad);
    await form(page).submit.click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(page.getByText("Email address is required")).toHaveCount(0);
    await expect(form(page).email).toBeFocused();
    await expect(form(page).email).toHaveValue(bad);
  }
});

test("email: leading and trailing spaces are kept and refused (a text field, spec §3 and §5)", async ({
  page,
}) => {
  await form(page).name.fill("Ada");
  await form(page).message.fill("Hello");
  for (const spaced of [" ada@example.com", "ada@example.com "]) {
    await form(page).email.fill("");
    // Typed key by key, as a visitor would, so the browser has every chance to change it.
    await form(page).email.pressSequentially(spaced);
    await form(page).submit.click();
    await expect(page.getByText("Please enter a valid email address")).toBeVisible();
    await expect(form(page).submit).toHaveText("Request Early Access");
    await expect(form(page).email).toHaveValue(spaced);
  }
  // A text field the browser leaves alone, with an email keyboard and autofill.
  await expect(form(page).email).toHaveAttribute("type", "text");
  await expect(form(page).email).toHaveAttribute("inputmode", "email");
  await expect(form(page).email).toHaveAttribute("autocomplete", "email");
});

test("the name is trimmed; a blank name is required", async ({ page }) => {
  await form(page).name.fill("   ");
  await form(page).email.fill("ada@example.com");
  await form(page).message.fill("Hello");
  await form(page).submit.click();
  await expect(page.getByText("Full name is required")).toBeVisible();
  await expect(page.getByText(/is required|valid email/)).toHaveCount(1);
});

test("a valid submit: Submitting... for 2000 ms, thanks for 5000 ms, then an empty form", async ({
  page,
}) => {
  const watcher = watch(page);
  await form(page).submit.click();
  await expect(page.getByText("Full name is required")).toBeVisible();

  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  await form(page).name.fill("Ada Lovelace");
  await form(page).email.fill("ada@example.com");
  await form(page).company.fill("Analytical Engines");
  await form(page).role.fill("CTO");
  await form(page).message.fill("I'd like to build a dashboard.");
  await form(page).interest.selectOption("enterprise");

  await form(page).submit.click();

  await expect(form(page).submit).toHaveText("Submitting...");
  await expect(form(page).submit).toBeDisabled();
  await expect(page.getByText("Full name is required")).toHaveCount(0);
  await expect(page.locator("[aria-invalid='true']")).toHaveCount(0);

  await page.clock.runFor(1999);
  await expect(form(page).submit).toHaveText("Submitting...");
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
    form(page).name,
    form(page).email,
    form(page).company,
    form(page).role,
    form(page).message,
  ]) {
    await expect(field).toHaveValue("");
  }
  await expect(form(page).interest).toHaveValue("general");
  await expect(form(page).submit).toHaveText("Request Early Access");
  await expect(form(page).submit).toBeEnabled();

  // The data went nowhere: no request at all from the first keystroke to the reset (no
  // sign-up, no proof-of-work challenge), and the honeypot of the build that sends is
  // not on the page.
  expect(requests).toEqual([]);
  await expect(page.locator('input[name="website"]')).toHaveCount(0);
  watcher.expectClean();
});

test("double and triple clicks submit once", async ({ page }) => {
  await form(page).name.fill("Ada");
  await form(page).email.fill("ada@example.com");
  await form(page).message.fill("Hi");
  await form(page).submit.click({ clickCount: 3 });
  await expect(form(page).submit).toHaveText("Submitting...");
  await page.clock.runFor(2000);
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
  await page.clock.runFor(5000);
  await expect(form(page).submit).toHaveText("Request Early Access");
  // A second submission would have started a second cycle; none is under way.
  await page.clock.runFor(10_000);
  await expect(form(page).submit).toHaveText("Request Early Access");
  await expect(form(page).name).toHaveValue("");
});

test("leaving mid-submit and coming back finds an idle form and no error", async ({ page }) => {
  const watcher = watch(page);
  await form(page).name.fill("Ada");
  await form(page).email.fill("ada@example.com");
  await form(page).message.fill("Hi");
  await form(page).submit.click();
  await expect(form(page).submit).toHaveText("Submitting...");
  await page.getByRole("link", { name: "Back to home" }).click();
  await page.clock.runFor(8000);
  await page.getByRole("link", { name: "Get Early Access" }).first().click();
  await expect(form(page).submit).toHaveText("Request Early Access");
  await expect(form(page).name).toHaveValue("");
  watcher.expectClean();
});

test("a privacy notice beneath the button says who keeps what, how long, and links the policy", async ({
  page,
}) => {
  const notice = page.locator(".form-privacy");
  await expect(notice).toContainText("Lathe Holdings Ltd keeps what you send here");
  await expect(notice).toContainText("for 2 years after our last contact");
  await expect(notice).toContainText(
    "We email you a link to confirm your address, and delete it if it is not confirmed within 7 days.",
  );
  await notice.getByRole("link", { name: "GDPR Compliance Policy" }).click();
  await expect(page).toHaveURL("/gdpr");
});

test("the original site ignores a share link's ref: nothing kept, nothing sent, the address as it came", async ({
  page,
}) => {
  const requests: string[] = [];
  await page.goto("/contact?ref=AbC-_09xyzQW");
  await coreReady(page);
  page.on("request", (r) => requests.push(r.url()));
  await form(page).name.fill("Ada Lovelace");
  await form(page).email.fill("ada@example.com");
  await form(page).message.fill("I'd like to build a dashboard.");
  await form(page).submit.click();
  await page.clock.runFor(2000);
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
  expect(requests).toEqual([]);
  expect(new URL(page.url()).search).toBe("?ref=AbC-_09xyzQW");
  expect(await page.evaluate(() => Object.keys(sessionStorage))).not.toContain("lathe:ref");
});
