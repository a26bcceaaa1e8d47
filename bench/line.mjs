// make bench, the line at scale (server/examples/line.rs, through the server's own store):
// 1,000,000 confirmed entries on SQLite and on a throwaway PostgreSQL cluster, then one
// entry's place read 300 times (target: p95 <= 10 ms on both), confirmations that credit
// a referrer against those that do not, the server's worker giving the credits alongside
// and each crediting round lasting until its last credit is given (target: within 10 %;
// beside it, how long the last credit came after the last confirmation), sign-ups
// through a share link against those without (target: within 10 %), and a wave of
// 10,000 invitations in place order (target: <= 5 s).
//
// Beside them, one request to the database a sign-up (docs/server.md, "One request to
// the database"): on PostgreSQL, pgbench on the same cluster and the same million rows,
// 10 clients for 5 s, one INSERT of a sign-up's row a transaction, and one UPDATE of a
// row; sign-ups with everything on and crediting confirmations through the store, 10 at
// once, against them (target: 0.7 or more of each). On SQLite, the same bench as main
// stood before the scripts (the Makefile's BASELINE, built from that commit) in rounds
// alternating with this one's on the same disk (target: 1.3 or more times its sign-ups
// and its confirmations).
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

import { withDatabases } from "./databases.mjs";

export const LINE_ENTRIES = 1_000_000;

/**
 * @param {{ root: string }} options
 * @returns {Promise<Array<{ backend: string, entries: number, placeP50Ms: number, placeP95Ms: number, signUpsPerSecond: number, referredSignUpsPerSecond: number, plainPerSecond: number, creditingPerSecond: number, creditsSettledMs: number, waveSeconds: number, fullSignUpsPerSecond: number, anchor?: { insertPerSecond: number, updatePerSecond: number }, rounds?: { now: { signUps: number, plain: number }, before: { signUps: number, plain: number } } }>>}
 */
export async function benchLine({ root }) {
  const binary = join(root, "target/release/examples/line");
  const baseline = join(root, `target/baseline-${BASELINE}/target/release/examples/line`);
  const run = (/** @type {string} */ bin, /** @type {string} */ location) =>
    JSON.parse(
      execFileSync(bin, [location, String(LINE_ENTRIES)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
  return withDatabases(root, "line", async (folder, databases) =>
    databases.map(([backend, location]) => {
      const figures = run(binary, location);
      if (backend === "PostgreSQL") return { backend, ...figures, anchor: pgbench(location) };
      // Alternating rounds on fresh files; the first round of this one is the one above.
      const rounds = { now: [figures], before: [] };
      for (let round = 0; round < SQLITE_ROUNDS; round += 1) {
        for (const [which, bin] of /** @type {const} */ ([
          ["before", baseline],
          ["now", binary],
        ])) {
          if (which === "now" && round === SQLITE_ROUNDS - 1) break;
          const file = join(folder, `${which}-${String(round)}.db`);
          rounds[which].push(run(bin, file));
          for (const name of readdirSync(folder))
            if (name.startsWith(`${which}-${String(round)}.db`)) rmSync(join(folder, name));
        }
      }
      const median = (/** @type {number[]} */ v) => v.sort((a, b) => a - b)[v.length >> 1];
      const of = (/** @type {any[]} */ runs, /** @type {string} */ key) =>
        median(runs.map((r) => r[key]));
      return {
        backend,
        ...figures,
        rounds: {
          now: {
            signUps: of(rounds.now, "signUpsPerSecond"),
            plain: of(rounds.now, "plainPerSecond"),
          },
          before: {
            signUps: of(rounds.before, "signUpsPerSecond"),
            plain: of(rounds.before, "plainPerSecond"),
          },
        },
      };
    }),
  );
}

/** The commit the SQLite rounds compare with (the Makefile's BASELINE). */
const BASELINE = "711d823";
/** Rounds of each on SQLite (the disk makes one differ from the next by a third). */
const SQLITE_ROUNDS = 3;

/**
 * pgbench on the cluster at `location` (its million entries in place), 10 clients, 5 s:
 * transactions a second of one INSERT of a sign-up's row, and of one UPDATE of an entry.
 * @param {string} location
 * @returns {{ insertPerSecond: number, updatePerSecond: number }}
 */
function pgbench(location) {
  const tps = (/** @type {string} */ script) => {
    const out = execFileSync(pgbenchBinary(), ["-n", "-c10", "-j2", "-T5", "-f", "-", location], {
      encoding: "utf8",
      input: script,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const found = /^tps = ([\d.]+)/m.exec(out);
    if (!found) throw new Error(`pgbench said: ${out}`);
    return Number(found[1]);
  };
  return {
    insertPerSecond: tps(
      `INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
         privacy_notice, created_at, last_interaction_at, id, status, confirm_nonce,
         manage_nonce, referral_code, mailbox_hash)
       VALUES ('pgbench' || :client_id || '-' || random() || '@example.org', 'pgbench@example.org',
         'Bench', '', '', 'developer', 'Measured.', 'bench', 1795000000000, 1795000000000,
         md5(random()::text), 'pending', md5(random()::text), md5(random()::text),
         md5(random()::text), md5(random()::text));\n`,
    ),
    updatePerSecond: tps(
      `\\set i random(1, ${String(LINE_ENTRIES)})
       UPDATE waitlist SET confirmed_at = confirmed_at + 1, last_interaction_at = last_interaction_at + 1
       WHERE id = 'id' || :i;\n`,
    ),
  };
}

/** pgbench from the PostgreSQL that scripts/postgres.sh runs (Debian's packages). */
function pgbenchBinary() {
  const versions = readdirSync("/usr/lib/postgresql", { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => Number(a) - Number(b));
  const last = versions.at(-1);
  return last ? `/usr/lib/postgresql/${last}/bin/pgbench` : "pgbench";
}

/**
 * The lines make bench prints for `line`, each figure beside its target.
 * @param {Awaited<ReturnType<typeof benchLine>>} line
 * @returns {string[]}
 */
export function lineReport(line) {
  const pad = (v, n) => String(v).padStart(n);
  const ratio = (a, b) => `${String(Math.round((a / b) * 100))} %`;
  return [
    `The line at ${LINE_ENTRIES.toLocaleString("en")} confirmed entries, through the server's store, 10 at a time (targets: a place p95 <= 10 ms; crediting and referred within 10 % of plain; a wave of 10,000 <= 5 s)`,
    "database       place p50 ms  p95 ms   confirmations/s plain  crediting  ratio  last credit ms   sign-ups/s plain  referred  ratio   wave s",
    ...line.map(
      (l) =>
        `${l.backend.padEnd(14)} ${pad(l.placeP50Ms.toFixed(2), 12)} ${pad(l.placeP95Ms.toFixed(2), 7)} ${pad(Math.round(l.plainPerSecond), 22)} ${pad(Math.round(l.creditingPerSecond), 10)} ${pad(ratio(l.creditingPerSecond, l.plainPerSecond), 6)} ${pad(Math.round(l.creditsSettledMs), 15)} ${pad(Math.round(l.signUpsPerSecond), 17)} ${pad(Math.round(l.referredSignUpsPerSecond), 9)} ${pad(ratio(l.referredSignUpsPerSecond, l.signUpsPerSecond), 6)} ${pad(l.waveSeconds.toFixed(2), 8)}`,
    ),
    "One request to the database a sign-up, through the server's store, 10 at a time, beside the database's own pace (targets: PostgreSQL 0.7 of pgbench's one-row transactions or more; SQLite 1.3 times main before the scripts or more)",
    ...line.flatMap((l) => {
      const mark = (/** @type {number} */ r, /** @type {number} */ target) =>
        `${r.toFixed(2)}${r < target ? " - UNDER TARGET" : ""}`;
      if (l.anchor)
        return [
          `${l.backend.padEnd(14)} sign-ups with everything on ${pad(Math.round(l.fullSignUpsPerSecond), 6)}/s, pgbench INSERT ${pad(Math.round(l.anchor.insertPerSecond), 6)}/s: ${mark(l.fullSignUpsPerSecond / l.anchor.insertPerSecond, 0.7)}`,
          `${l.backend.padEnd(14)} crediting confirmations    ${pad(Math.round(l.creditingPerSecond), 6)}/s, pgbench UPDATE ${pad(Math.round(l.anchor.updatePerSecond), 6)}/s: ${mark(l.creditingPerSecond / l.anchor.updatePerSecond, 0.7)}`,
        ];
      if (l.rounds)
        return [
          `${l.backend.padEnd(14)} sign-ups (median of 3 rounds)      ${pad(Math.round(l.rounds.now.signUps), 6)}/s, before ${pad(Math.round(l.rounds.before.signUps), 6)}/s: ${mark(l.rounds.now.signUps / l.rounds.before.signUps, 1.3)}`,
          `${l.backend.padEnd(14)} confirmations (median of 3 rounds) ${pad(Math.round(l.rounds.now.plain), 6)}/s, before ${pad(Math.round(l.rounds.before.plain), 6)}/s: ${mark(l.rounds.now.plain / l.rounds.before.plain, 1.3)}`,
          `${l.backend.padEnd(14)} sign-ups with everything on ${pad(Math.round(l.fullSignUpsPerSecond), 6)}/s (no peer: main before had no such round)`,
        ];
      return [];
    }),
  ];
}
