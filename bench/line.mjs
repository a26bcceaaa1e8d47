// make bench, the line at scale (server/examples/line.rs, through the server's own store):
// 1,000,000 confirmed entries on SQLite and on a throwaway PostgreSQL cluster, then one
// entry's place read 300 times (target: p95 <= 10 ms on both), confirmations that credit
// a referrer against those that do not, the server's worker giving the credits alongside
// and each crediting round lasting until its last credit is given (target: within 10 %;
// beside it, how long the last credit came after the last confirmation), sign-ups
// through a share link against those without (target: within 10 %), and a wave of
// 10,000 invitations in place order (target: <= 5 s).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

import { withDatabases } from "./databases.mjs";

export const LINE_ENTRIES = 1_000_000;

/**
 * @param {{ root: string }} options
 * @returns {Promise<Array<{ backend: string, entries: number, placeP50Ms: number, placeP95Ms: number, signUpsPerSecond: number, referredSignUpsPerSecond: number, plainPerSecond: number, creditingPerSecond: number, creditsSettledMs: number, waveSeconds: number }>>}
 */
export async function benchLine({ root }) {
  const binary = join(root, "target/release/examples/line");
  return withDatabases(root, "line", async (_folder, databases) =>
    databases.map(([backend, location]) => ({
      backend,
      ...JSON.parse(
        execFileSync(binary, [location, String(LINE_ENTRIES)], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
        }),
      ),
    })),
  );
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
  ];
}
