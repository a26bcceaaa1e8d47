// The waitlist collecting for real: the build with WAITLIST_URL=/api/waitlist
// (web/dist-waitlist) served by `lathe-site serve --database`, each test with a server and
// a SQLite file of its own. What was stored is read back with the owner's own tool,
// `lathe-site waitlist export`. Network failures are real where they can be (a server
// stopped, or frozen with SIGSTOP); a 500 and a server's field errors are answered by
// Playwright, as this server never gives them for what the form sends.
import AxeBuilder from "@axe-core/playwright";
import { type Page, expect } from "@playwright/test";
import { coreReady, form, privacyVersion, watch } from "./helpers";
import { type Server, test } from "./waitlistServer";

/** Opens the contact page on `server` with a fake clock (which only runFor moves). */
async function open(page: Page, server: Server) {
  await page.clock.install({ time: new Date("2026-01-05T09:00:00Z") });
  await page.goto(`${server.url}/contact`);
  await coreReady(page);
  await page.clock.pauseAt(new Date("2026-01-05T09:01:00Z"));
}

/** Opens the contact page on `server` and fills every field, with `email`. */
async function openFilled(page: Page, server: Server, email?: string) {
  await open(page, server);
  await fill(page, email);
}

/** Counts the page's posts to the endpoint. */
function posts(page: Page) {
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/waitlist") {
      sent.push(r.postData() ?? "");
    }
  });
  return sent;
}

async function fill(page: Page, email = "ada@example.com") {
  const f = form(page);
  await f.name.fill("Ada Lovelace");
  await f.email.fill(email);
  await f.company.fill("Analytical Engines");
  await f.role.fill("CTO");
  await f.interest.selectOption("enterprise");
  await f.message.fill("A booking app with sign-in.");
}

const typed = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  company: "Analytical Engines",
  role: "CTO",
  message: "A booking app with sign-in.",
};

/** Every field still holds what was typed. */
async function expectKept(page: Page) {
  const f = form(page);
  for (const [field, value] of Object.entries(typed)) {
    await expect(f[field as keyof typeof typed]).toHaveValue(value);
  }
  await expect(f.interest).toHaveValue("enterprise");
}

const notSent =
  "Your request could not be sent, but nothing is lost: everything you typed is still here. Please try again in a moment, or email us at hello@example.com.";

const thanks = (page: Page) => page.getByRole("heading", { name: "Thank you!" });

/** Submits, and waits for the thank-you panel. */
async function submitAndBeThanked(page: Page) {
  await form(page).submit.click();
  await expect(thanks(page)).toBeVisible();
}

/** Idle again: the not-sent message, and every field as typed. */
async function expectNotSent(page: Page) {
  await expect(page.getByRole("alert")).toHaveText(notSent);
  await expectKept(page);
}

/** A way for sending to fail, and to mend. */
interface Fault {
  /** Makes the next post fail. */
  readonly begin: () => Promise<unknown> | undefined;
  /** Submits, and waits until the form has given up (by default: at once). */
  readonly submit?: () => Promise<void>;
  /** Lets posts through again. */
  readonly end: () => Promise<unknown> | undefined;
}

/**
 * A submit while `fault` holds: idle again, every field kept, the not-sent message, then
 * `meanwhile`'s checks; once it ends, the retry is thanked and the address stored once.
 */
async function notSentThenRetried(
  { page, server }: { page: Page; server: Server },
  fault: Fault,
  meanwhile: () => Promise<void> = () => Promise.resolve(),
) {
  await openFilled(page, server);
  await fault.begin();
  try {
    await (fault.submit ?? (() => form(page).submit.click()))();
    await expectNotSent(page);
    await meanwhile();
  } finally {
    await fault.end();
  }
  await submitAndBeThanked(page);
  // A post that lands late (a frozen server waking) leaves one entry all the same.
  expect((await server.entries()).map((e) => e.email)).toEqual([typed.email]);
}

test("a sign-up lands as a row, with its interest and the privacy notice's version", async ({
  page,
  server,
}) => {
  const seen = watch(page, new URL(server.url).host);
  const sent = posts(page);
  await openFilled(page, server);
  await submitAndBeThanked(page);
  expect(sent).toHaveLength(1);
  expect(JSON.parse(sent[0] ?? "")).toEqual({
    ...typed,
    interest: "enterprise",
    privacyNotice: privacyVersion,
    website: "",
  });
  const [entry, ...rest] = await server.entries();
  expect(rest).toEqual([]);
  expect(entry).toMatchObject({ ...typed, interest: "enterprise", privacy_notice: privacyVersion });
  // The panel for 5 s from the answer, then an empty form, as in the default build.
  await page.clock.runFor(4999);
  await expect(thanks(page)).toBeVisible();
  await page.clock.runFor(1);
  await expect(form(page).name).toHaveValue("");
  seen.expectClean();
});

test("while the server thinks, the button says Submitting... and fields cannot change", async ({
  page,
  server,
}) => {
  await openFilled(page, server);
  server.freeze();
  try {
    await form(page).submit.click();
    await expect(form(page).submit).toHaveText("Submitting...");
    await expect(form(page).submit).toBeDisabled();
    await expect(form(page).name).toHaveAttribute("readonly", "");
    // Not the default build's 2 s: only the answer ends it.
    await page.clock.runFor(2000);
    await expect(form(page).submit).toHaveText("Submitting...");
  } finally {
    server.thaw();
  }
  await expect(thanks(page)).toBeVisible();
});

test("a server that is down: idle, everything kept, the message; a retry succeeds", async ({
  page,
  server,
}) => {
  await notSentThenRetried(
    { page, server },
    { begin: () => server.stop(), end: () => server.start() },
    async () => {
      await expect(page.getByRole("alert")).toBeFocused();
      await expect(form(page).submit).toHaveText("Request Early Access");
      // And kept across a refresh: the draft is saved once typing pauses for 300 ms.
      await page.clock.runFor(300);
      expect(await page.evaluate(() => sessionStorage.getItem("lathe:waitlist-draft"))).toContain(
        "Analytical Engines",
      );
    },
  );
});

test("a server too slow to answer: after 10 s the form gives up, keeps everything, and a retry succeeds", async ({
  page,
  server,
}) => {
  await notSentThenRetried(
    { page, server },
    {
      begin: () => {
        server.freeze();
        return undefined;
      },
      submit: async () => {
        await form(page).submit.click();
        await page.clock.runFor(9999);
        await expect(form(page).submit).toHaveText("Submitting...");
        await page.clock.runFor(1);
      },
      end: () => {
        server.thaw();
        return undefined;
      },
    },
  );
});

test("a server answering 500: idle, everything kept, the message; a retry succeeds", async ({
  page,
  server,
}) => {
  await notSentThenRetried(
    { page, server },
    {
      begin: () =>
        page.route("**/api/waitlist", (route) =>
          route.fulfill({
            status: 500,
            contentType: "text/html",
            body: "<h1>Internal Server Error</h1>",
          }),
        ),
      end: () => page.unroute("**/api/waitlist"),
    },
    async () => {
      expect(await server.entries()).toEqual([]);
    },
  );
});

test("field errors from the server appear beneath their fields, in the core's words", async ({
  page,
  server,
}) => {
  await openFilled(page, server);
  await page.route("**/api/waitlist", (route) =>
    route.fulfill({
      status: 422,
      contentType: "application/json",
      body: JSON.stringify({
        error: "the sign-up breaks the form's rules",
        errors: [
          { field: "email", code: "invalid-email", message: "(the server's words are not shown)" },
          { field: "message", code: "required" },
        ],
      }),
    }),
  );
  await form(page).submit.click();
  await expect(form(page).email).toHaveAttribute("aria-invalid", "true");
  await expect(form(page).email).toHaveAccessibleDescription(/Please enter a valid email address/);
  await expect(form(page).message).toHaveAccessibleDescription(/Message is required/);
  await expect(form(page).email).toBeFocused();
  await expect(page.getByRole("alert")).toHaveCount(0);
  await expectKept(page);
});

test("a triple click sends one request and makes one row", async ({ page, server }) => {
  const sent = posts(page);
  await openFilled(page, server);
  await form(page).submit.click({ clickCount: 3 });
  await expect(thanks(page)).toBeVisible();
  expect(sent).toHaveLength(1);
  expect(await server.entries()).toHaveLength(1);
});

test("the honeypot: a bot that fills it is thanked, and nothing is kept", async ({
  page,
  server,
}) => {
  await openFilled(page, server, "bot@example.com");
  await page.locator('input[name="website"]').fill("https://spam.example", { force: true });
  await submitAndBeThanked(page);
  expect(await server.entries()).toEqual([]);
});

test.describe("with a limit of one sign-up a minute", () => {
  test.use({ serverOptions: ["--sign-ups-per-minute", "1"] });

  test("a second sign-up is refused: the message, everything kept", async ({ page, server }) => {
    await openFilled(page, server, "first@example.com");
    await submitAndBeThanked(page);
    await page.clock.runFor(5000);
    await fill(page);
    const answer = page.waitForResponse("**/api/waitlist");
    await form(page).submit.click();
    expect((await answer).status()).toBe(429);
    expect(Number((await answer).headers()["retry-after"])).toBeGreaterThan(0);
    await expectNotSent(page);
    expect((await server.entries()).map((e) => e.email)).toEqual(["first@example.com"]);
  });
});

test("the page that sends is accessible, its honeypot hidden from everyone", async ({
  page,
  server,
}) => {
  await open(page, server);
  const trap = page.locator('input[name="website"]');
  await expect(trap).toHaveAttribute("tabindex", "-1");
  expect(await page.getByRole("textbox").count()).toBe(5);
  await page.keyboard.press("Tab");
  for (let i = 0; i < 40; i += 1) {
    await expect(trap).not.toBeFocused();
    await page.keyboard.press("Tab");
  }
  await server.stop();
  await fill(page);
  await form(page).submit.click();
  await expect(page.getByRole("alert")).toBeVisible();
  await page.clock.resume(); // axe waits on timers of its own
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations).toEqual([]);
});

test.describe("with proof of work (--proof-of-work)", () => {
  test.use({ serverOptions: ["--proof-of-work"] });

  /** The page's requests for challenges. */
  function challenges(page: Page) {
    const asked: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/waitlist/challenge") asked.push(r.method());
    });
    return asked;
  }

  /** ALTCHA's payload, decoded: base64 of {challenge, solution}. */
  const decode = (altcha: string) =>
    JSON.parse(Buffer.from(altcha, "base64").toString()) as {
      challenge: { parameters: { algorithm: string; cost: number }; signature: string };
      solution: { counter: number; derivedKey: string };
    };

  test("the form solves the server's challenge in the background and the sign-up lands", async ({
    page,
    server,
  }) => {
    const seen = watch(page, new URL(server.url).host);
    const sent = posts(page);
    const asked = challenges(page);
    await open(page, server);
    // A page view asks for nothing: the first change does.
    expect(asked).toEqual([]);
    await fill(page);
    await submitAndBeThanked(page);
    expect(asked).toEqual(["GET"]);
    expect(sent).toHaveLength(1);
    const { altcha, ...signUp } = JSON.parse(sent[0] ?? "") as Record<string, string>;
    expect(signUp).toEqual({
      ...typed,
      interest: "enterprise",
      privacyNotice: privacyVersion,
      website: "",
    });
    const payload = decode(altcha ?? "");
    expect(payload.challenge.parameters.algorithm).toBe("PBKDF2/SHA-256");
    expect(payload.solution.derivedKey).toMatch(/^[0-9a-f]{64}$/);
    expect((await server.entries()).map((e) => e.email)).toEqual([typed.email]);
    seen.expectClean();
  });

  test("a script without a solution is refused, and so is one replaying the form's", async ({
    page,
    request,
    server,
  }) => {
    const script = (body: Record<string, string>) =>
      request.post(`${server.url}/api/waitlist`, {
        data: {
          ...typed,
          interest: "general",
          privacyNotice: privacyVersion,
          website: "",
          ...body,
        },
        headers: { Origin: server.url },
      });
    const none = await script({ email: "script@example.com" });
    expect(none.status()).toBe(400);
    expect(await none.json()).toEqual({
      error: "the sign-up needs its proof of work: please try again",
      reason: "no-proof",
    });
    const sent = posts(page);
    await openFilled(page, server);
    await submitAndBeThanked(page);
    const { altcha } = JSON.parse(sent[0] ?? "") as { altcha: string };
    const replay = await script({ email: "replay@example.com", altcha });
    expect(replay.status()).toBe(409);
    expect(await replay.json()).toEqual({
      error: "the proof of work was used already: please try again",
      reason: "used-proof",
    });
    expect((await server.entries()).map((e) => e.email)).toEqual([typed.email]);
  });

  test("a refused proof: a new challenge, solved, and the sign-up sent again once", async ({
    page,
    server,
  }) => {
    const sent = posts(page);
    const asked = challenges(page);
    await openFilled(page, server);
    // The first answer says the proof was used (as if replayed by someone else).
    await page.route(
      "**/api/waitlist",
      (route) =>
        route.fulfill({
          status: 409,
          contentType: "application/json",
          body: JSON.stringify({ error: "used", reason: "used-proof" }),
        }),
      { times: 1 },
    );
    await submitAndBeThanked(page);
    expect(asked).toEqual(["GET", "GET"]);
    expect(sent).toHaveLength(2);
    const [first, second] = sent.map((body) => (JSON.parse(body) as { altcha: string }).altcha);
    expect(first).not.toEqual(second);
    expect((await server.entries()).map((e) => e.email)).toEqual([typed.email]);
  });

  test("the visitor waits at most the spec's 2 s for the proof, then only for the answer", async ({
    page,
    server,
  }) => {
    // The real clock: what is measured is the solve.
    await page.goto(`${server.url}/contact`);
    await coreReady(page);
    await page.evaluate(() => {
      document.querySelector("form.waitlist-form")?.addEventListener(
        "submit",
        () => {
          (window as unknown as { submittedAt: number }).submittedAt = performance.now();
        },
        { capture: true },
      );
    });
    // Typed as fast as a script can: the solve starts at the first change.
    await fill(page);
    await submitAndBeThanked(page);
    // The request's timing entry, once the browser has recorded it: that comes in a task of
    // its own after the response's body has arrived, which can be after the page has shown
    // its thanks (a clean-clone run read the timeline too early once, and found no entry).
    const timing = await page.evaluate(
      () =>
        new Promise<{ submitted: number; sent: number; solves: number }>((resolve) => {
          new PerformanceObserver((list, observer) => {
            const post = list
              .getEntries()
              .find((e) => new URL(e.name).pathname === "/api/waitlist");
            if (!post) return;
            observer.disconnect();
            resolve({
              submitted: (window as unknown as { submittedAt: number }).submittedAt,
              sent: post.startTime,
              solves: performance.getEntriesByName("lathe:proof-of-work").length,
            });
          }).observe({ type: "resource", buffered: true });
        }),
    );
    expect(timing.solves).toBe(1);
    expect(timing.sent - timing.submitted).toBeLessThanOrEqual(2000);
  });
});
