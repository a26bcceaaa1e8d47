// A place in line that a friend improves, in the browser: the waitlist's server with
// --smtp (a real SMTP server), the build that collects (web/dist-waitlist). One visitor
// confirms and copies their share link; a second, in a browser context of their own,
// opens it on /contact, signs up and confirms; the first visitor's manage page then shows
// one confirmed friend and a better place. Accessible in both themes (axe and IBM's
// Equal Access).
import { type APIRequestContext, type Page, expect } from "@playwright/test";
import { coreReady, form, violations, watch } from "./helpers";
import {
  type Mailbox,
  type Server,
  credited,
  joinByRequest,
  lastEmailTo,
  linkIn,
  test,
} from "./waitlistServer";

// Every sign-up here comes from one address (loopback): no allowance.
test.use({ confirming: true, serverOptions: ["--sign-ups-per-minute", "0"] });

/** `count` people who signed up and confirmed before anyone here: the line's head. */
async function earlier(
  request: APIRequestContext,
  server: Server,
  mailbox: Mailbox,
  count: number,
) {
  for (let n = 1; n <= count; n++) {
    await joinByRequest(request, { server, mailbox }, `early${String(n)}@example.com`, n);
  }
}

/** Fills the form on the page open now and sends it, as a visitor would. */
async function signUp(page: Page, name: string, email: string) {
  await coreReady(page);
  const f = form(page);
  await f.name.fill(name);
  await f.email.fill(email);
  await f.message.fill("An app for my bakery.");
  await f.submit.click();
  await expect(page.getByRole("heading", { name: "Thank you!" })).toBeVisible();
}

/** Opens the confirmation link of `email`'s last email and presses the button. */
async function confirm(page: Page, server: Server, mailbox: Mailbox, email: string, n: number) {
  await page.goto(linkIn(await lastEmailTo(mailbox, email, n), server.url, "confirm"));
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("You're confirmed");
}

const line = (page: Page) => page.getByRole("region", { name: "Your place in line" });

test("a friend who joins through the share link and confirms moves the visitor ahead", async ({
  page,
  browser,
  request,
  server,
  mailbox,
}) => {
  await earlier(request, server, mailbox, 6);
  const seen = watch(page, new URL(server.url).host);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
    origin: server.url,
  });

  // The first visitor signs up and confirms: seventh of seven, with a link to share.
  await page.goto(`${server.url}/contact`);
  await signUp(page, "Ada Lovelace", "ada@example.com");
  await confirm(page, server, mailbox, "ada@example.com", 7);
  await expect(line(page).getByText("7th of 7")).toBeVisible();
  await expect(line(page)).toContainText("No friends have joined through your link yet.");
  await expect(line(page)).toContainText(
    "Each friend who joins through your link and confirms their address moves you 5 places ahead.",
  );
  const shareLink = line(page).getByLabel("Your share link");
  const link = await shareLink.inputValue();
  expect(link).toMatch(new RegExp(`^${server.url}/\\?ref=[A-Za-z0-9_-]{12}$`));
  await line(page).getByRole("button", { name: "Copy link" }).click();
  await expect(line(page)).toContainText("Copied. Paste it anywhere you like.");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  const manage = linkIn(await lastEmailTo(mailbox, "ada@example.com", 7), server.url, "manage");

  // A friend, in a browser of their own, opens the link on /contact: the code is kept for
  // the visit and leaves the address bar; they sign up and confirm.
  const friendContext = await browser.newContext();
  const friend = await friendContext.newPage();
  const code = new URL(link).searchParams.get("ref") ?? "";
  await friend.goto(`${server.url}/contact?ref=${code}`);
  await expect(friend).toHaveURL(`${server.url}/contact`);
  const posted = friend.waitForRequest(
    (r) => r.method() === "POST" && new URL(r.url()).pathname === "/api/waitlist",
  );
  await signUp(friend, "Grace Hopper", "grace@example.org");
  expect(((await posted).postDataJSON() as { ref?: string }).ref).toBe(code);
  await confirm(friend, server, mailbox, "grace@example.org", 8);
  await expect(line(friend).getByText("8th of 8")).toBeVisible();
  await friendContext.close();

  // The first visitor's manage page, once the server has given the credit: one friend,
  // confirmed, and five places better (of two keys of 2, the credited first): second of
  // eight. Never who.
  await credited(request, server, manage, 1);
  await page.goto(manage);
  await expect(line(page).getByText("2nd of 8")).toBeVisible();
  await expect(line(page)).toContainText("1 friend has joined through your link; 1 confirmed.");
  await expect(page.getByText("grace", { exact: false })).toHaveCount(0);
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    // The colours' transitions to the new theme finish first: axe reads what is painted.
    await page.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a instanceof CSSTransition)
          .map((a) => a.finished),
      ),
    );
    expect(await violations(page), theme).toEqual([]);
  }
  seen.expectClean();
});

test("on a phone (320 px) the line and its link fit, with nothing sideways", async ({
  page,
  request,
  server,
  mailbox,
}) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await earlier(request, server, mailbox, 1);
  await page.goto(`${server.url}/contact`);
  await signUp(page, "Ada Lovelace", "ada@example.com");
  await confirm(page, server, mailbox, "ada@example.com", 2);
  await expect(line(page).getByText("2nd of 2")).toBeVisible();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
  const box = await line(page).getByRole("button", { name: "Copy link" }).boundingBox();
  expect(box && box.x + box.width).toBeLessThanOrEqual(320);
});
