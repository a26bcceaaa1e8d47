// make bench, the line at scale (server/examples/line.rs, through the server's own store):
// 1,000,000 confirmed entries on SQLite and on a throwaway PostgreSQL cluster, then one
// entry's place read 300 times (target: p95 <= 10 ms on both), confirmations that credit
// a referrer, the server's worker giving the credits alongside and each crediting round
// lasting until its last credit is given, sign-ups through a share link and without, and
// a wave of 10,000 invitations in place order (target: <= 5 s).
//
// The confirmations and sign-ups are measured against main as it stood before the line
// and referrals (the Makefile's BEFORE_LINE, bench/before-line/confirmations.rs built
// from that commit: its plain confirmations and sign-ups on the same million entries), in
// rounds alternating with this one's on fresh databases (targets: crediting
// confirmations and sign-ups within 10 % of those, or faster). Beside them, without a
// target, what a credit costs against a confirmation without one in the same run, and a
// sign-up through a link against one without.
//
// Beside them too, one request to the database a sign-up (docs/server.md, "One request to
// the database"): on PostgreSQL, pgbench on the same cluster and the same million rows,
// 10 clients for 5 s, one INSERT of a sign-up's row a transaction, and one UPDATE of a
// row; sign-ups with everything on and crediting confirmations through the store, 10 at
// once, against them (target: 0.7 or more of each). The two sides run in turns: five
// pairs, each pgbench's two runs and then one round of the line's two (`line --round`),
// and the figure is the median pair's ratio, so that a minute when the disk or the
// database is slower counts against both sides alike. On SQLite, the same bench as main
// stood before the scripts (the Makefile's BASELINE, built from that commit) in the same
// rounds (target: 1.3 or more times its sign-ups and its confirmations).
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

import { withDatabases } from "./databases.mjs";
import { median } from "./stats.mjs";

export const LINE_ENTRIES = 1_000_000;

/** The commit the SQLite rounds compare the one request with (the Makefile's BASELINE). */
const BASELINE = "711d823";
/** Main before the line and referrals (the Makefile's BEFORE_LINE). */
const BEFORE_LINE = "62c994e";
/** Rounds of each (this machine's disk makes one differ from the next by a third). */
const ROUNDS = 3;
/** Turns of pgbench and the line beside it, on PostgreSQL. */
const PAIRS = 5;

/**
 * @typedef {{ signUps: number, plain: number, crediting: number }} Medians
 * @typedef {{ insert: number, update: number, full: number, crediting: number }} Pair one turn of pgbench (INSERTs and UPDATEs a second) and of the line (sign-ups with everything on, crediting confirmations)
 * @typedef {{ insertPerSecond: number, updatePerSecond: number, fullPerSecond: number, creditingPerSecond: number, fullRatio: number, creditingRatio: number, pairs: Pair[] }} Anchor the medians of the pairs' figures and of their ratios
 * @typedef {{ backend: string, entries: number, placeP50Ms: number, placeP95Ms: number, signUpsPerSecond: number, referredSignUpsPerSecond: number, plainPerSecond: number, creditingPerSecond: number, creditsSettledMs: number, waveSeconds: number, fullSignUpsPerSecond: number, anchor?: Anchor, rounds: { now: Medians, beforeLine: Medians, before?: Medians }, eachRound: Record<string, Medians[]> }} LineFigures
 */

/**
 * @param {{ root: string }} options
 * @returns {Promise<LineFigures[]>}
 */
export async function benchLine({ root }) {
  const benches = {
    now: join(root, "target/release/examples/line"),
    beforeLine: join(root, `target/before-line-${BEFORE_LINE}/target/release/examples/before_line`),
    before: join(root, `target/baseline-${BASELINE}/target/release/examples/line`),
  };
  const run = (
    /** @type {string} */ bin,
    /** @type {string} */ location,
    /** @type {string[]} */ more = [],
  ) =>
    JSON.parse(
      execFileSync(bin, [location, String(LINE_ENTRIES), ...more], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
  return withDatabases(root, "line", async (folder, databases) =>
    databases.map(([backend, location]) => {
      const postgres = backend === "PostgreSQL";
      const figures = run(benches.now, location);
      const anchor = postgres
        ? againstPgbench(location, (pair) => run(benches.now, location, ["--round", String(pair)]))
        : undefined;
      // Alternating rounds, each on a database of its own made for it and removed after;
      // the first round of this one is the one above. The one request's peer runs on
      // SQLite only (PostgreSQL's is pgbench).
      /** @type {Record<keyof typeof benches, any[]>} */
      const rounds = { now: [figures], beforeLine: [], before: [] };
      /** @type {(keyof typeof benches)[]} */
      const kinds = postgres ? ["beforeLine", "now"] : ["before", "beforeLine", "now"];
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const which of kinds) {
          if (which === "now" && round === ROUNDS - 1) break;
          const name = `${which.toLowerCase()}${String(round)}`;
          if (postgres) {
            const url = new URL(location);
            url.pathname = `/${name}`;
            psql(location, `CREATE DATABASE ${name}`);
            rounds[which].push(run(benches[which], url.toString()));
            psql(location, `DROP DATABASE ${name}`);
          } else {
            rounds[which].push(run(benches[which], join(folder, `${name}.db`)));
            for (const file of readdirSync(folder))
              if (file.startsWith(`${name}.db`)) rmSync(join(folder, file));
          }
        }
      }
      // Each round's own figures, in the order they ran (kept in bench.json: the medians
      // hide which round was slow), and their medians.
      /** @returns {Medians} */
      const figuresOf = (/** @type {any} */ r) => ({
        signUps: r.signUpsPerSecond,
        plain: r.plainPerSecond,
        crediting: r.creditingPerSecond ?? Number.NaN,
      });
      /** @returns {Medians} */
      const medians = (/** @type {any[]} */ runs) => {
        const each = runs.map(figuresOf);
        return {
          signUps: median(each.map((f) => f.signUps)),
          plain: median(each.map((f) => f.plain)),
          crediting: median(each.map((f) => f.crediting)),
        };
      };
      return {
        backend,
        ...figures,
        anchor,
        rounds: {
          now: medians(rounds.now),
          beforeLine: medians(rounds.beforeLine),
          ...(postgres ? {} : { before: medians(rounds.before) }),
        },
        eachRound: Object.fromEntries(
          Object.entries(rounds).map(([which, runs]) => [which, runs.map(figuresOf)]),
        ),
      };
    }),
  );
}

/**
 * Runs one statement on the cluster at `location` with psql (its own PostgreSQL's).
 * @param {string} location
 * @param {string} statement
 */
function psql(location, statement) {
  execFileSync(
    join(postgresBin(), "psql"),
    ["-q", "-v", "ON_ERROR_STOP=1", "-c", statement, location],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

/**
 * [PAIRS] turns on the cluster at `location` (its million entries in place): pgbench, 10
 * clients, 5 s each, transactions a second of one INSERT of a sign-up's row and of one
 * UPDATE of an entry; then `line`'s round of that turn (1, 2, ...). One pgbench run alone
 * read from 6,300 to 9,500 INSERTs a second from one make bench to the next, and the
 * line's rounds a third apart: side by side, a turn's two sides share the minute.
 * @param {string} location
 * @param {(pair: number) => { fullSignUpsPerSecond: number, creditingPerSecond: number }} line
 * @returns {Anchor}
 */
function againstPgbench(location, line) {
  const tps = (/** @type {string} */ script) => {
    const out = execFileSync(
      join(postgresBin(), "pgbench"),
      ["-n", "-c10", "-j2", "-T5", "-f", "-", location],
      {
        encoding: "utf8",
        input: script,
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const found = /^tps = ([\d.]+)/m.exec(out);
    if (!found) throw new Error(`pgbench said: ${out}`);
    return Number(found[1]);
  };
  const insert = `INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
         privacy_notice, created_at, last_interaction_at, id, status, confirm_nonce,
         manage_nonce, referral_code, mailbox_hash)
       VALUES ('pgbench' || :client_id || '-' || random() || '@example.org', 'pgbench@example.org',
         'Bench', '', '', 'developer', 'Measured.', 'bench', 1795000000000, 1795000000000,
         md5(random()::text), 'pending', md5(random()::text), md5(random()::text),
         md5(random()::text), md5(random()::text));\n`;
  const update = `\\set i random(1, ${String(LINE_ENTRIES)})
       UPDATE waitlist SET confirmed_at = confirmed_at + 1, last_interaction_at = last_interaction_at + 1
       WHERE id = 'id' || :i;\n`;
  /** @type {Pair[]} */
  const pairs = [];
  for (let pair = 1; pair <= PAIRS; pair += 1) {
    const [inserts, updates] = [tps(insert), tps(update)];
    const { fullSignUpsPerSecond, creditingPerSecond } = line(pair);
    pairs.push({
      insert: inserts,
      update: updates,
      full: fullSignUpsPerSecond,
      crediting: creditingPerSecond,
    });
  }
  const of = (/** @type {(p: Pair) => number} */ figure) => median(pairs.map(figure));
  return {
    insertPerSecond: of((p) => p.insert),
    updatePerSecond: of((p) => p.update),
    fullPerSecond: of((p) => p.full),
    creditingPerSecond: of((p) => p.crediting),
    fullRatio: of((p) => p.full / p.insert),
    creditingRatio: of((p) => p.crediting / p.update),
    pairs,
  };
}

/** The programs of the PostgreSQL that scripts/postgres.sh runs (Debian's packages). */
function postgresBin() {
  const versions = readdirSync("/usr/lib/postgresql", { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => Number(a) - Number(b));
  const last = versions.at(-1);
  if (!last) throw new Error("no PostgreSQL in /usr/lib/postgresql: run make setup");
  return `/usr/lib/postgresql/${last}/bin`;
}

/** The line's targets: a place read's p95 in ms, and a wave of 10,000's seconds, at most. */
export const LINE_TARGETS = { placeP95Ms: 10, waveSeconds: 5 };

/**
 * The lines make bench prints for `line`, each figure beside its target.
 * @param {LineFigures[]} line
 * @returns {string[]}
 */
export function lineReport(line) {
  const pad = (/** @type {string | number} */ v, /** @type {number} */ n) => String(v).padStart(n);
  const ratio = (/** @type {number} */ a, /** @type {number} */ b) =>
    `${String(Math.round((a / b) * 100))} %`;
  const mark = (/** @type {number} */ r, /** @type {number} */ target) =>
    `${r.toFixed(2)}${r < target ? " - UNDER TARGET" : ""}`;
  return [
    `The line at ${LINE_ENTRIES.toLocaleString("en")} confirmed entries, through the server's store, 10 at a time (targets: a place p95 <= ${String(LINE_TARGETS.placeP95Ms)} ms; a wave of 10,000 <= ${String(LINE_TARGETS.waveSeconds)} s; the ratios beside plain have none)`,
    "database       place p50 ms  p95 ms   confirmations/s plain  crediting  ratio  last credit ms   sign-ups/s plain  referred  ratio   wave s",
    ...line.map(
      (l) =>
        `${l.backend.padEnd(14)} ${pad(l.placeP50Ms.toFixed(2), 12)} ${pad(l.placeP95Ms.toFixed(2), 7)} ${pad(Math.round(l.plainPerSecond), 22)} ${pad(Math.round(l.creditingPerSecond), 10)} ${pad(ratio(l.creditingPerSecond, l.plainPerSecond), 6)} ${pad(Math.round(l.creditsSettledMs), 15)} ${pad(Math.round(l.signUpsPerSecond), 17)} ${pad(Math.round(l.referredSignUpsPerSecond), 9)} ${pad(ratio(l.referredSignUpsPerSecond, l.signUpsPerSecond), 6)} ${pad(l.waveSeconds.toFixed(2), 8)}${l.placeP95Ms > LINE_TARGETS.placeP95Ms ? " - place p95 OVER TARGET" : ""}${l.waveSeconds > LINE_TARGETS.waveSeconds ? " - wave OVER TARGET" : ""}`,
    ),
    `The line against main before it (${BEFORE_LINE}), medians of ${String(ROUNDS)} alternating rounds on fresh databases (targets: crediting confirmations and sign-ups 0.9 or more of main's confirmations and sign-ups then)`,
    ...line.flatMap((l) => [
      `${l.backend.padEnd(14)} crediting confirmations ${pad(Math.round(l.rounds.now.crediting), 6)}/s, confirmations before ${pad(Math.round(l.rounds.beforeLine.plain), 6)}/s: ${mark(l.rounds.now.crediting / l.rounds.beforeLine.plain, 0.9)}`,
      `${l.backend.padEnd(14)} sign-ups                ${pad(Math.round(l.rounds.now.signUps), 6)}/s, sign-ups before      ${pad(Math.round(l.rounds.beforeLine.signUps), 6)}/s: ${mark(l.rounds.now.signUps / l.rounds.beforeLine.signUps, 0.9)}`,
    ]),
    "One request to the database a sign-up, through the server's store, 10 at a time, beside the database's own pace (targets: PostgreSQL 0.7 of pgbench's one-row transactions or more, the median turn's ratio; SQLite 1.3 times main before the scripts or more)",
    ...line.flatMap((l) => {
      if (l.anchor) {
        const { anchor } = l;
        const each = (/** @type {(p: Pair) => string} */ ratio) =>
          anchor.pairs.map(ratio).join(", ");
        return [
          `${l.backend.padEnd(14)} sign-ups with everything on ${pad(Math.round(anchor.fullPerSecond), 6)}/s, pgbench INSERT ${pad(Math.round(anchor.insertPerSecond), 6)}/s (medians of ${String(PAIRS)} turns): ${mark(anchor.fullRatio, 0.7)} (each turn: ${each((p) => (p.full / p.insert).toFixed(2))})`,
          `${l.backend.padEnd(14)} crediting confirmations    ${pad(Math.round(anchor.creditingPerSecond), 6)}/s, pgbench UPDATE ${pad(Math.round(anchor.updatePerSecond), 6)}/s (medians of ${String(PAIRS)} turns): ${mark(anchor.creditingRatio, 0.7)} (each turn: ${each((p) => (p.crediting / p.update).toFixed(2))})`,
        ];
      }
      const { now, before } = l.rounds;
      if (!before) return [];
      return [
        `${l.backend.padEnd(14)} sign-ups (median of ${String(ROUNDS)} rounds)      ${pad(Math.round(now.signUps), 6)}/s, before ${pad(Math.round(before.signUps), 6)}/s: ${mark(now.signUps / before.signUps, 1.3)}`,
        `${l.backend.padEnd(14)} confirmations (median of ${String(ROUNDS)} rounds) ${pad(Math.round(now.plain), 6)}/s, before ${pad(Math.round(before.plain), 6)}/s: ${mark(now.plain / before.plain, 1.3)}`,
        `${l.backend.padEnd(14)} sign-ups with everything on ${pad(Math.round(l.fullSignUpsPerSecond), 6)}/s (no peer: main before had no such round)`,
      ];
    }),
  ];
}
