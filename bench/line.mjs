// make bench, the line at scale (server/examples/line.rs, through the server's own store):
// 1,000,000 confirmed entries on SQLite and on a throwaway PostgreSQL cluster, then one
// entry's place read 300 times (target: p95 <= 10 ms on both), confirmations that credit
// a referrer against those that do not (target: within 10 %), sign-ups through a share
// link against those without (target: within 10 %), and a wave of 10,000 invitations in
// place order (target: <= 5 s).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

import { withDatabases } from "./databases.mjs";

export const LINE_ENTRIES = 1_000_000;

/**
 * @param {{ root: string }} options
 * @returns {Promise<Array<{ backend: string, entries: number, placeP50Ms: number, placeP95Ms: number, signUpsPerSecond: number, referredSignUpsPerSecond: number, plainPerSecond: number, creditingPerSecond: number, waveSeconds: number }>>}
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
