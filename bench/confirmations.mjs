// make bench, confirmed sign-ups: how many confirmation emails per second the outbox
// delivers, SQLite and PostgreSQL (a throwaway cluster, durable defaults), to a real SMTP
// server on loopback (aiosmtpd, server/tests/smtp_sink.py). 400 sign-ups are posted, 20
// at a time, to `lathe-site serve --smtp`; the clock runs from the first post until the
// SMTP server holds the 400th email. Every email must arrive exactly once. Then all 400
// confirm from their links and are invited in one wave (`lathe-site waitlist invite`):
// the clock runs from the command until the 400th invitation arrives. On SQLite the same
// again with every email signed (DKIM, `--dkim-key-file`): with the tests' 2048-bit RSA
// key and their Ed25519 key (server/tests/fixtures/dkim/), for what signing costs, in
// ROUNDS rounds of unsigned, RSA and Ed25519 one after another, each round in another
// order: one run of each varied by 10 % from the next on this machine, more than the cost
// measured.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { postSignUps, withDatabases } from "./databases.mjs";
import { listening, serveLathe, stop } from "./processes.mjs";

const SIGN_UPS = 400;
const AT_ONCE = 20;
/** Rounds of unsigned, RSA-signed and Ed25519-signed runs on SQLite, for DKIM's cost. */
const ROUNDS = 3;

/**
 * @typedef {{ backend: string, signing: string, round: number, emails: number, seconds: number, perSecond: number, postsPerSecond: number, invitations: number, invitationSeconds: number, invitationsPerSecond: number }} MailLine
 */

/**
 * @param {{ root: string, dist: string }} options
 * @returns {Promise<MailLine[]>}
 */
export async function benchConfirmations({ root, dist }) {
  const binary = join(root, "target/release/lathe-site");
  /** @type {MailLine[]} */
  const lines = [];
  const keys = join(root, "server/tests/fixtures/dkim");
  await withDatabases(root, "mail", async (folder, databases) => {
    /** @type {[backend: string, database: string, signing: string, dkim: string[], round: number][]} */
    const runs = databases.map(([backend, database]) => [backend, database, "none", [], 0]);
    /** @type {[signing: string, key: string | null][]} */
    const signings = [
      ["none", null],
      ["RSA 2048", "rsa2048.pem"],
      ["Ed25519", "ed25519.pem"],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      // Each round in another order (none first, then RSA first, then Ed25519 first), so
      // that no kind always runs where a run is slower: after another's 800 emails were
      // written, say. In one order every round, RSA ran second each time.
      const shift = (round - 1) % signings.length;
      for (const [signing, key] of [...signings.slice(shift), ...signings.slice(0, shift)]) {
        const dkim = key ? ["--dkim-key-file", join(keys, key), "--dkim-selector", "bench"] : [];
        const database = join(folder, `dkim-${String(round)}-${key ?? "none"}.db`);
        runs.push(["SQLite", database, signing, dkim, round]);
      }
    }
    for (const [backend, database, signing, dkim, round] of runs) {
      const mail = mkdtempSync(join(folder, "mail-"));
      const { child: smtp, port: smtpPort } = await listening(
        "/usr/bin/python3",
        [join(root, "server/tests/smtp_sink.py"), mail, "0"],
        { says: /^listening on 127\.0\.0\.1:(\d+)$/, stderr: "inherit" },
      );
      /** @type {import("node:child_process").ChildProcess | undefined} */
      let server;
      try {
        const serving = await serveLathe(
          root,
          [
            ...["--dist", dist, "--database", database],
            ...["--sign-ups-per-minute", "0", "--smtp", `smtp://127.0.0.1:${String(smtpPort)}`],
            // The emails' links: only their tokens are read (confirmAll).
            ...["--mail-from", "Lathe <bench@localhost>", "--site-url", "http://bench.localhost"],
            ...dkim,
          ],
          { ...process.env, LATHE_TOKEN_KEY: "the bench's key, which is over 32 bytes" },
        );
        server = serving.child;
        const { origin } = serving;
        const started = performance.now();
        const prefix = `${backend}-${signing}-${String(round)}`.replace(/\W/g, "");
        await postSignUps(origin, prefix, SIGN_UPS, AT_ONCE);
        const posted = performance.now();
        const emails = () => readdirSync(mail).filter((name) => name.endsWith(".eml")).length;
        await untilEmails(emails, SIGN_UPS, backend, started);
        const seconds = (performance.now() - started) / 1000;
        // Anything sent twice would be here by now: the outbox marks each sent once it went.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const confirmations = emails();
        // Then every address confirmed from its email, and all invited in one wave: how
        // fast the outbox sends the owner's invitations.
        await confirmAll(origin, mail);
        const letter = join(folder, "letter.txt");
        writeFileSync(letter, "Your early access, {name}\n\nWelcome in.\n");
        const invited = performance.now();
        execFileSync(
          binary,
          [
            ...["waitlist", "--database", database, "invite"],
            ...["--count", String(SIGN_UPS), "--letter", letter],
            // At once (u32::MAX a minute): this measures how fast the outbox sends, not
            // the pace a wave keeps (60 a minute unless told).
            ...["--mail-per-minute", "4294967295"],
          ],
          { stdio: "pipe" },
        );
        await untilEmails(emails, 2 * SIGN_UPS, backend, invited);
        const invitationSeconds = (performance.now() - invited) / 1000;
        await new Promise((resolve) => setTimeout(resolve, 500));
        lines.push({
          backend,
          signing,
          round,
          emails: confirmations,
          seconds: Number(seconds.toFixed(2)),
          perSecond: Math.round(SIGN_UPS / seconds),
          postsPerSecond: Math.round(SIGN_UPS / ((posted - started) / 1000)),
          invitations: emails() - confirmations,
          invitationSeconds: Number(invitationSeconds.toFixed(2)),
          invitationsPerSecond: Math.round(SIGN_UPS / invitationSeconds),
        });
      } finally {
        await Promise.all([...(server ? [stop(server)] : []), stop(smtp)]);
      }
    }
  });
  return lines;
}

/**
 * Waits until `count()` reaches `n`, at most 2 minutes from `since`.
 * @param {() => number} count
 * @param {number} n
 * @param {string} backend
 * @param {number} since
 */
async function untilEmails(count, n, backend, since) {
  while (count() < n) {
    if (performance.now() - since > 120_000) {
      throw new Error(`${backend}: ${String(count())} of ${String(n)} emails in 2 min`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Presses Confirm for every confirmation email in `mail`, AT_ONCE at a time.
 * @param {string} origin
 * @param {string} mail the folder the SMTP sink writes to
 */
async function confirmAll(origin, mail) {
  const tokens = readdirSync(mail)
    .filter((name) => name.endsWith(".txt"))
    .map((name) => /\/confirm#([\w.-]+)/.exec(readFileSync(join(mail, name), "utf8"))?.[1])
    .filter((token) => token !== undefined);
  const worker = async () => {
    for (let token = tokens.pop(); token !== undefined; token = tokens.pop()) {
      const response = await fetch(`${origin}/api/waitlist/confirm`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin },
        body: JSON.stringify({ token }),
      });
      if (response.status !== 200) throw new Error(`confirm: ${String(response.status)}`);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}
