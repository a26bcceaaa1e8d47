import AxeBuilder from "@axe-core/playwright";
import { expect } from "@playwright/test";
import { privacyVersion } from "./helpers";
import { test } from "./waitlistServer";

// The owner's page of figures, on the listener `--metrics-addr` opens (never the site's
// port): the list's figures drawn as inline SVG by the server, in both themes, from 320 px.
// Port 0 for the owner's listener too: the server says which port the system gave it.
test.use({ serverOptions: ["--metrics-addr", "127.0.0.1:0", "--sign-ups-per-minute", "0"] });

const tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

test("the owner's page charts the list, in both themes and at 320 px, axe clean", async ({
  page,
  request,
  server,
}) => {
  const interests = ["general", "developer", "developer", "press"];
  for (const [n, interest] of interests.entries()) {
    const signUp = await request.post(`${server.url}/api/waitlist`, {
      data: {
        name: `Person ${String(n)}`,
        email: `p${String(n)}@example.com`,
        message: "Hello",
        interest,
        privacyNotice: privacyVersion,
      },
    });
    expect(signUp.status()).toBe(201);
  }
  const address = `${String(server.metricsUrl)}/`;
  // Never on the site's own port.
  expect((await request.get(`${server.url}/metrics`)).status()).toBe(404);

  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.setViewportSize({ width: 1280, height: 900 });
    const response = await page.goto(address);
    expect(response?.headers()["content-security-policy"]).toMatch(/^default-src 'none'/);
    await expect(page).toHaveTitle("The waitlist's figures");
    await expect(page.getByRole("heading", { name: "Entries: 4" })).toBeVisible();
    await expect(page.getByRole("link", { name: "/metrics" })).toHaveAttribute("href", "/metrics");
    const byStatus = page.getByRole("list", { name: "By status" }).getByRole("listitem");
    await expect(byStatus).toHaveText(["unconfirmed4", "pending0", "confirmed0", "invited0"]);
    const byInterest = page.getByRole("list", { name: "By interest" }).getByRole("listitem");
    await expect(byInterest).toHaveText(["developer2", "general1", "press1"]);
    await expect(page.getByRole("region", { name: "Referrals" })).toContainText(
      "Nobody has confirmed yet.",
    );
    const days = page.getByRole("img", { name: /^Sign-ups and confirmations a day/ });
    await expect(days.locator("g")).toHaveCount(30);
    await expect(days.locator("g").last().locator("title")).toHaveText(
      /: 4 sign-ups \(0 through a share link\), 0 confirmations$/,
    );
    const results = await new AxeBuilder({ page }).withTags(tags).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);

    // A phone: nothing wider than the screen but the tables, which scroll.
    await page.setViewportSize({ width: 320, height: 800 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    const phone = await new AxeBuilder({ page }).withTags(tags).analyze();
    expect(phone.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }

  // The metrics count the entries by status when they are scraped.
  const metrics = await (await request.get(`${address}metrics`)).text();
  expect(metrics).toContain('lathe_entries{status="unconfirmed"} 4');
});
