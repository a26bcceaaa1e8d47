// The waitlist's server for the browser tests: the build with WAITLIST_URL=/api/waitlist
// (web/dist-waitlist) served by `lathe-site serve --database`, each test with a server and
// a SQLite file of its own, and, for tests that set `confirming`, a real SMTP server
// (aiosmtpd, server/tests/smtp_sink.py) that the server sends its emails to. What was
// stored is read back with the owner's own tool, `lathe-site waitlist export`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type APIRequestContext, test as base, expect } from "@playwright/test";
import { privacyVersion } from "./helpers";
import { said } from "./said";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The server's binary: the Makefile's (LATHE_SITE), or the release build. */
const binary = process.env.LATHE_SITE ?? join(root, "target/release/lathe-site");
const dist = join(root, "web/dist-waitlist");
/** The key the server signs its links with, in these tests. */
const tokenKey = "a key for the browser tests, over 32 bytes";
/** The key it signs its proof-of-work challenges with (used with --proof-of-work). */
const proofKey = "the browser tests' proof-of-work key, over 32 bytes";

export interface Entry {
  email: string;
  name: string;
  company: string;
  role: string;
  interest: string;
  message: string;
  privacy_notice: string;
  created_at: string;
  status: "confirmed" | "pending" | "unconfirmed" | "invited";
  confirmed_at: string | null;
  invited_at: string | null;
  wave: number | null;
  place: number | null;
  referrals: number;
}

/** An email as the SMTP server received it, its body decoded as a mail client shows it. */
export interface Email {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** The SMTP server the waitlist's server sends to (tests that set `confirming`). */
export interface Mailbox {
  readonly port: number;
  /** Waits for the `n`th email, and returns every one so far, in the order they came. */
  emails(n: number): Promise<Email[]>;
}

export interface Server {
  readonly url: string;
  /** The owner's listener (`--metrics-addr`), where the server was given one. */
  readonly metricsUrl: string | undefined;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again, on the same port and database. */
  start(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the process: a server that does not answer. */
  freeze(): void;
  thaw(): void;
  /** Everything stored, as the owner exports it. */
  entries(): Promise<Entry[]>;
  /** Invites the first `count` entries in line with the owner's `letter` (a wave). */
  invite(letter: string, count: number): Promise<void>;
}

/** The text of a quoted-printable body (RFC 2045 §6.7): soft breaks joined, =XX decoded. */
function quotedPrintable(body: string): string {
  return decodeURIComponent(
    body
      .replace(/=\r?\n/g, "")
      .replace(/%/g, "%25")
      .replace(/=([0-9A-F]{2})/g, "%$1"),
  );
}

function parseEmail(raw: string): Email {
  const [head = "", body = ""] = raw.split(/\r\n\r\n(.*)/s);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(head)?.[1]?.trim() ?? "";
  return {
    to: header("X-Envelope-To"),
    subject: header("Subject"),
    text: quotedPrintable(body).replace(/\r\n/g, "\n"),
  };
}

/**
 * The site's address as the confirming servers are told it (`--site-url`): the links in
 * their emails start with it. Each server listens on a port the system picks, which it
 * cannot be told before it starts, so a link is opened on the server itself ([`linkIn`]).
 */
const siteUrl = "http://waitlist.test";

/** The link to `page` (`confirm` or `manage`) in an email, opened on the server at `url`. */
export function linkIn(email: Email, url: string, page: "confirm" | "manage"): string {
  const link = new RegExp(`https?://[^/\\s]+/${page}#\\S+`).exec(email.text)?.[0];
  if (!link) throw new Error(`no ${page} link in: ${email.text}`);
  expect(link.startsWith(`${siteUrl}/${page}#`)).toBe(true);
  return url + link.slice(siteUrl.length);
}

/** An invitation's one-click unsubscribe link, opened on the server at `url`. */
export function unsubscribeLinkIn(email: Email, url: string): string {
  const link = /https?:\/\/[^/\s]+\/api\/waitlist\/unsubscribe\?token=\S+/.exec(email.text)?.[0];
  if (!link) throw new Error(`no unsubscribe link in: ${email.text}`);
  expect(link.startsWith(`${siteUrl}/api/waitlist/unsubscribe?token=v1.u.`)).toBe(true);
  return url + link.slice(siteUrl.length);
}

/** The last email to `to`, once `n` emails have come in all. */
export async function lastEmailTo(mailbox: Mailbox, to: string, n: number): Promise<Email> {
  const found = (await mailbox.emails(n)).filter((e) => e.to === to).at(-1);
  if (!found) throw new Error(`no email to ${to}`);
  return found;
}

/**
 * Signs `email` up and confirms it with requests, as the form and the confirmation page
 * send them (its email the `n`th in all, and `ref` the code of a share link, if given):
 * the confirmation's answer.
 */
export async function joinByRequest(
  request: APIRequestContext,
  { server, mailbox }: { server: Server; mailbox: Mailbox },
  email: string,
  n: number,
  ref?: string,
): Promise<{ status: string; line?: { place: number | null; of: number; code: string } }> {
  const answer = await request.post(`${server.url}/api/waitlist`, {
    data: { name: "Early Bird", email, message: "Hello", privacyNotice: privacyVersion, ref },
  });
  expect(answer.status()).toBe(201);
  const link = linkIn(await lastEmailTo(mailbox, email, n), server.url, "confirm");
  const confirmed = await request.post(`${server.url}/api/waitlist/confirm`, {
    data: { token: link.split("#")[1] },
    headers: { Origin: server.url },
  });
  expect(confirmed.status()).toBe(200);
  return (await confirmed.json()) as Awaited<ReturnType<typeof joinByRequest>>;
}

/**
 * Waits until the entry whose manage link is `manage` has `credits` referral credits: the
 * server's worker gives a credit a moment after the friend's confirmation (at most
 * lathe-site's GATHER, 100 ms, and a batch), so a page read at once may show the place
 * before it. Asked as the manage page asks.
 */
export async function credited(
  request: APIRequestContext,
  server: Server,
  manage: string,
  credits: number,
): Promise<void> {
  await expect
    .poll(async () => {
      const answer = await request.post(`${server.url}/api/waitlist/manage`, {
        data: { token: manage.split("#")[1] },
        headers: { Origin: server.url },
      });
      expect(answer.status()).toBe(200);
      return ((await answer.json()) as { line?: { credits: number } }).line?.credits;
    })
    .toBe(credits);
}

/** Starts the SMTP server on a port the system picks, writing what it accepts into `folder`. */
async function startMailbox(folder: string): Promise<[Mailbox, ChildProcess]> {
  // Debian's python3-aiosmtpd is for Debian's Python.
  const child = spawn("/usr/bin/python3", [join(root, "server/tests/smtp_sink.py"), folder, "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const listening = await said(
    child,
    /listening on 127\.0\.0\.1:\d+/,
    "the SMTP server (python3-aiosmtpd)",
  );
  const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(listening)?.[1]);
  const read = () =>
    readdirSync(folder)
      .filter((name) => name.endsWith(".eml"))
      .sort()
      .map((name) => parseEmail(readFileSync(join(folder, name), "latin1")));
  return [
    {
      port,
      emails: async (n) => {
        await expect.poll(() => read().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(n);
        return read();
      },
    },
    child,
  ];
}

/** A running `lathe-site serve`, and the addresses it said it was given. */
interface Launched {
  child: ChildProcess;
  url: string;
  metricsUrl: string | undefined;
}

/** Spawns the server and waits until it says it collects, and where it serves. */
async function launch(args: string[]): Promise<Launched> {
  const child = spawn(binary, ["serve", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LATHE_TOKEN_KEY: tokenKey, LATHE_PROOF_KEY: proofKey },
  });
  const lines = await said(child, /collecting sign-ups/, "lathe-site");
  const url = /^serving .* on (http:\/\/\S+)$/m.exec(lines)?.[1];
  if (!url) throw new Error(`lathe-site said no address: ${lines}`);
  const metricsUrl = /^metrics on (http:\/\/[^/\s]+)\//m.exec(lines)?.[1];
  return { child, url, metricsUrl };
}

export const test = base.extend<{
  serverOptions: string[];
  /** Whether the server confirms addresses by email (--smtp), to `mailbox`. */
  confirming: boolean;
  /** Where it stores: a SQLite file, or a PostgreSQL cluster of the test's own. */
  backend: "sqlite" | "postgres";
  mailbox: Mailbox;
  server: Server;
}>({
  serverOptions: [[], { option: true }],
  confirming: [false, { option: true }],
  backend: ["sqlite", { option: true }],
  mailbox: async ({ confirming }, use) => {
    if (!confirming) {
      await use({
        port: 0,
        emails: () => Promise.reject(new Error("no mailbox: set `confirming` for this test")),
      });
      return;
    }
    const folder = mkdtempSync(join(tmpdir(), "lathe-mail-"));
    const [mailbox, child] = await startMailbox(folder);
    await use(mailbox);
    child.kill();
    rmSync(folder, { recursive: true, force: true });
  },
  server: async ({ serverOptions, confirming, mailbox, backend }, use) => {
    const folder = mkdtempSync(join(tmpdir(), "lathe-waitlist-"));
    // scripts/postgres.sh: a throwaway cluster (under /tmp itself, which the postgres user
    // reaches when the tests run as root), its URL on standard output; its folder made
    // only for PostgreSQL, as only its `stop` removes it.
    const cluster = backend === "postgres" ? mkdtempSync("/tmp/lathe-pg-e2e-") : null;
    const postgres = join(root, "scripts/postgres.sh");
    const database = cluster
      ? (await promisify(execFile)(postgres, ["start", cluster])).stdout.trim()
      : join(folder, "waitlist.db");
    const mail = confirming
      ? [
          ...["--smtp", `smtp://127.0.0.1:${String(mailbox.port)}`],
          ...["--mail-from", "Lathe <waitlist@localhost>", "--site-url", siteUrl],
        ]
      : [];
    const args = [...["--dist", dist, "--database", database], ...mail, ...serverOptions];
    // A port the system picks, as the server says; on a restart, the same one again.
    let launched = await launch([...args, "--port", "0"]);
    const { url, metricsUrl } = launched;
    const again = [...args, "--port", new URL(url).port];
    let child = launched.child;
    const stop = async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      await exited;
    };
    await use({
      url,
      metricsUrl,
      stop,
      start: async () => {
        launched = await launch(again);
        child = launched.child;
      },
      freeze: () => child.kill("SIGSTOP"),
      thaw: () => child.kill("SIGCONT"),
      entries: async () => {
        const { stdout } = await promisify(execFile)(binary, [
          ...["waitlist", "--database", database, "export", "--format", "json", "--status", "all"],
        ]);
        return JSON.parse(stdout) as Entry[];
      },
      invite: async (letter, count) => {
        const file = join(folder, "letter.txt");
        writeFileSync(file, letter);
        await promisify(execFile)(binary, [
          ...["waitlist", "--database", database, "invite"],
          ...["--count", String(count), "--letter", file],
        ]);
      },
    });
    await stop();
    if (cluster) await promisify(execFile)(postgres, ["stop", cluster]);
    rmSync(folder, { recursive: true, force: true });
  },
});
