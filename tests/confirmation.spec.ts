// Confirmed sign-ups in the browser: the waitlist's server with --smtp, sending to a real
// SMTP server (aiosmtpd), and the two pages its emails link to, /confirm and /manage, in
// the build that collects (web/dist-waitlist). What was stored is read back with the
// owner's export.
import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, type Page, expect } from "@playwright/test";
import { coreReady, form, privacyVersion, watch } from "./helpers";
import {
  type Email,
  type Mailbox,
  type Server,
  linkIn,
  test,
  unsubscribeLinkIn,
} from "./waitlistServer";

test.use({ confirming: true });

/** Signs up with `email` on the contact page, as a visitor would. */
async function signUp(page: Page, server: Server, email: string) {
  await page.goto(`${server.url}/contact`);
  await coreReady(page);
  const f = form(page);
  await f.name.fill("Grace Hopper");
  await f.email.fill(email);
  await f.interest.selectOption("developer");
  await f.message.fill("A compiler explorer, please.");
  await f.submit.click();
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
}

/** Signs `email` up with a request, as the form sends it: the email it gets. */
async function signUpByRequest(
  request: APIRequestContext,
  server: Server,
  mailbox: Mailbox,
  email: string,
): Promise<Email> {
  const answer = await request.post(`${server.url}/api/waitlist`, {
    data: { name: "Grace Hopper", email, message: "Hello", privacyNotice: privacyVersion },
  });
  expect(answer.status()).toBe(201);
  return emailTo(mailbox, email);
}

/** The `n`th email to `email`, once it has come. */
async function emailTo(mailbox: Mailbox, email: string, n = 1): Promise<Email> {
  const emails = (await mailbox.emails(n)).filter((e) => e.to === email);
  expect(emails).toHaveLength(n);
  const last = emails.at(-1);
  if (!last) throw new Error(`no email to ${email}`);
  return last;
}

/** Signs `email` up, then opens the link to `page` in the email it gets: that email. */
async function openFromEmail(
  { page, server, mailbox }: { page: Page; server: Server; mailbox: Mailbox },
  email: string,
  linkTo: "confirm" | "manage",
): Promise<Email> {
  await signUp(page, server, email);
  const received = await emailTo(mailbox, email);
  await page.goto(linkIn(received, server.url, linkTo));
  return received;
}

const status = (page: Page) => page.getByRole("status");

/** The whole way: sign up, the email, its link, the press, the export says confirmed. */
async function confirmsByThePress(page: Page, server: Server, mailbox: Mailbox) {
  const seen = watch(page, new URL(server.url).host);
  await signUp(page, server, "grace@example.com");
  const email = await emailTo(mailbox, "grace@example.com");
  expect(email.subject).toBe("Confirm your place on the Lathe waitlist");
  expect((await server.entries())[0]?.status).toBe("pending");

  // Opening the link (what a mail scanner does, scripts and all) confirms nothing.
  const link = linkIn(email, server.url, "confirm");
  await page.goto(link);
  await expect(page).toHaveTitle("Confirm your address | Lathe");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Confirm your address");
  const button = page.getByRole("button", { name: "Confirm my address" });
  await expect(button).toBeEnabled();
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  expect((await server.entries())[0]?.status).toBe("pending");

  await button.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You're confirmed");
  await expect(status(page)).toHaveText(
    "Thank you: your address is on the waitlist. We'll email you when your early-access invitation is ready.",
  );
  await expect(status(page)).toBeFocused();
  const [entry] = await server.entries();
  expect(entry?.status).toBe("confirmed");
  expect(entry?.confirmed_at).toMatch(/Z$/);

  seen.expectClean();

  // The same link, opened again from the email (a new page): used (a 409, which the
  // browser's console reports as a failed load, by design).
  await page.goto("about:blank");
  await page.goto(link);
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(status(page)).toHaveText(
    "This link has been used already: your address is confirmed, and there is nothing more to do.",
  );
  await expect(page.getByRole("button", { name: "Confirm my address" })).toHaveCount(0);
}

for (const backend of ["sqlite", "postgres"] as const) {
  test.describe(`on ${backend}`, () => {
    test.use({ backend });

    test("sign up, the email arrives, its link opens the page, the press confirms", async ({
      page,
      server,
      mailbox,
    }) => {
      await confirmsByThePress(page, server, mailbox);
    });
  });
}

test("an expired link says so and sends a new one, which works", async ({
  page,
  server,
  mailbox,
}) => {
  await openFromEmail({ page, server, mailbox }, "old@example.com", "confirm");
  // The server's answer to a link 48 hours old (its own tests sign one): 410, expired.
  await page.route("**/api/waitlist/confirm", (route) =>
    route.fulfill({
      status: 410,
      contentType: "application/json",
      body: JSON.stringify({ status: "expired", error: "This link has expired." }),
    }),
  );
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(status(page)).toHaveText(
    "This link has expired: a link works for 48 hours. We can send you a new one.",
  );
  await page.unroute("**/api/waitlist/confirm");
  await page.getByRole("button", { name: "Send me a new link" }).click();
  await expect(status(page)).toHaveText(
    "A new link is on its way to your inbox. It works for 48 hours.",
  );
  const second = await emailTo(mailbox, "old@example.com", 2);
  await page.goto(linkIn(second, server.url, "confirm"));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You're confirmed");
  expect((await server.entries())[0]?.status).toBe("confirmed");
});

test("a link cut short, or not ours, explains itself and changes nothing", async ({
  page,
  server,
  mailbox,
}) => {
  await signUp(page, server, "cut@example.com");
  const link = linkIn(await emailTo(mailbox, "cut@example.com"), server.url, "confirm");
  await page.goto(`${server.url}/confirm`);
  await expect(status(page)).toHaveText(
    "This page needs the whole link from our email, including the part after #. Please open the link again, or copy all of it into the address bar.",
  );
  await expect(page.getByRole("button", { name: "Confirm my address" })).toHaveCount(0);
  await page.goto(link.slice(0, -3));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(status(page)).toHaveText(
    "This link is not one of ours, or it was not copied whole. Please open the link from our email again.",
  );
  expect((await server.entries())[0]?.status).toBe("pending");
});

test("the server out of reach: nothing changes, the page says so, a retry confirms", async ({
  page,
  server,
  mailbox,
}) => {
  await openFromEmail({ page, server, mailbox }, "retry@example.com", "confirm");
  await page.route("**/api/waitlist/confirm", (route) => route.abort("connectionrefused"));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(status(page)).toHaveText(
    "Nothing was changed: we could not reach our server. Please check your connection and try again.",
  );
  await page.unroute("**/api/waitlist/confirm");
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You're confirmed");
});

test("the manage link shows the entry, downloads it as JSON, and erases it after a second press", async ({
  page,
  server,
  mailbox,
}) => {
  await openFromEmail({ page, server, mailbox }, "mary@example.com", "manage");
  await expect(page).toHaveTitle("Your waitlist entry | Lathe");
  const list = page.locator(".entry-list");
  await expect(list).toContainText("mary@example.com");
  const [stored] = await server.entries();
  const shown = (label: string) =>
    list.locator("div", { has: page.getByText(label, { exact: true }) }).locator("dd");
  await expect(shown("Full name")).toHaveText("Grace Hopper");
  await expect(shown("Interest")).toHaveText("Developer");
  await expect(shown("Message")).toHaveText("A compiler explorer, please.");
  await expect(shown("Address")).toHaveText("Waiting for confirmation");
  await expect(shown("Company")).toHaveText("(none)");

  // The download is exactly what the owner's export holds.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download as JSON" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("lathe-waitlist-entry.json");
  expect(JSON.parse(readFileSync(await file.path(), "utf8"))).toEqual(stored);

  // Erasing asks first; "Keep it" keeps it.
  await page.getByRole("button", { name: "Erase my entry" }).click();
  await expect(page.getByRole("group")).toContainText("This cannot be undone.");
  await page.getByRole("button", { name: "Keep it" }).click();
  await expect(page.getByRole("group")).toHaveCount(0);
  expect(await server.entries()).toHaveLength(1);

  await page.getByRole("button", { name: "Erase my entry" }).click();
  await page.getByRole("button", { name: "Yes, erase it" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your entry is erased");
  await expect(status(page)).toBeFocused();
  expect(await server.entries()).toEqual([]);

  // The link now finds nothing, and says why.
  await page.reload();
  await expect(status(page)).toHaveText(
    "There is nothing on the waitlist for this link any more: the entry was erased, or deleted because its address was not confirmed in time.",
  );
});

// A test for each page and theme, each with a sign-up of its own, sent as a request (the
// tests above sign up through the form): axe on one page is the whole of each, so each is
// short however busy the machine is (the two pages in one test took 25 s of the 30 beside
// `stress-ng --cpu 2`).
for (const scheme of ["light", "dark"] as const) {
  test(`the confirmation page is accessible, ${scheme} theme`, async ({
    page,
    request,
    server,
    mailbox,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const email = await signUpByRequest(request, server, mailbox, "axe@example.com");
    await page.goto(linkIn(email, server.url, "confirm"));
    await expect(page.getByRole("button", { name: "Confirm my address" })).toBeEnabled();
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  });

  test(`the manage page is accessible, asking before it erases, ${scheme} theme`, async ({
    page,
    request,
    server,
    mailbox,
  }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const email = await signUpByRequest(request, server, mailbox, "axe@example.com");
    await page.goto(linkIn(email, server.url, "manage"));
    await page.getByRole("button", { name: "Erase my entry" }).click();
    await expect(page.getByRole("group")).toContainText("This cannot be undone.");
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  });
}

// An invitation's one-click unsubscribe, opened as a reader whose mail client has no
// one-click: the server's own page, one button, in both themes and at 320 px, by keyboard.
test("the invitation's unsubscribe page: one button, accessible, and it unsubscribes", async ({
  page,
  request,
  server,
  mailbox,
}) => {
  const email = await signUpByRequest(request, server, mailbox, "una@example.com");
  await page.goto(linkIn(email, server.url, "confirm"));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You're confirmed");
  await server.invite("Your invitation, {name}\n\nDear {name},\n\nYou are in.\n", 1);
  const invitation = await emailTo(mailbox, "una@example.com", 2);
  expect(invitation.subject).toBe("Your invitation, Grace Hopper");

  await page.goto(unsubscribeLinkIn(invitation, server.url));
  await expect(page).toHaveTitle("Unsubscribe from the waitlist");
  await expect(page.getByRole("button")).toHaveCount(1);
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  }
  await page.setViewportSize({ width: 320, height: 640 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  expect((await server.entries()).map((e) => e.email)).toEqual(["una@example.com"]);

  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Unsubscribe" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  expect(await server.entries()).toEqual([]);
});
