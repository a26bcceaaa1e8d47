// make bench, the waitlist: sign-ups stored per second and their p99 latency, with wrk
// (bench/signup.lua: every request a new address) against `lathe-site serve --database`,
// SQLite and PostgreSQL (a throwaway cluster, scripts/postgres.sh, with its default
// durable settings), at 10 and 100 connections. After each backend, the rows are counted
// with the owner's tool: every 2xx answer must be a stored row.
import { execFileSync, spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { withDatabases } from "./databases.mjs";
import { parseWrk } from "./wrk.mjs";

/**
 * @param {{ root: string, dist: string, waitFor: (url: string) => Promise<void> }} options
 * @returns {Promise<{
 *   lines: Array<{ backend: string, connections: number, rps: number, p99Ms: number, requests: number, refused: number }>,
 *   stored: Record<string, { answered: number, rows: number }>,
 *   walBytes: number,
 * }>}
 */
export async function benchSignUps({ root, dist, waitFor }) {
  const binary = join(root, "target/release/lathe-site");
  const lines = [];
  const stored = {};
  let largestWal = 0;
  await withDatabases(root, "sign-ups", async (_, databases) => {
    for (const [backend, database] of databases) {
      const port = 4182;
      // No rate limit: every request here comes from one address.
      const server = spawn(
        binary,
        [
          ...["serve", "--dist", dist, "--port", String(port), "--database", database],
          ...["--sign-ups-per-minute", "0"],
        ],
        { stdio: "ignore" },
      );
      try {
        await waitFor(`http://127.0.0.1:${String(port)}/`);
        // SQLite's write-ahead log, sampled every 20 ms while wrk runs: its largest size.
        let walBytes = 0;
        const wal = backend === "SQLite" ? `${database}-wal` : undefined;
        const sampler = wal
          ? setInterval(() => {
              try {
                walBytes = Math.max(walBytes, statSync(wal).size);
              } catch {
                // Not there yet.
              }
            }, 20)
          : undefined;
        let answered = 0;
        for (const connections of [10, 100]) {
          const run = await wrkPost(
            `http://127.0.0.1:${String(port)}`,
            connections,
            `${backend}-${String(connections)}`,
            root,
          );
          answered += run.requests - run.refused;
          lines.push({ backend, connections, ...run });
        }
        clearInterval(sampler);
        if (wal) largestWal = walBytes;
        const rows = Number(
          execFileSync(binary, ["waitlist", "--database", database, "count"], { encoding: "utf8" }),
        );
        stored[backend] = { answered, rows };
      } finally {
        server.kill();
      }
    }
  });
  return { lines, stored, walBytes: largestWal };
}

/**
 * wrk posting new sign-ups for 5 s: requests/s, p99 ms, and how many were refused. Run
 * without blocking the event loop, so that the WAL sampler keeps running.
 */
function wrkPost(origin, connections, label, root) {
  return new Promise((resolve, reject) => {
    const wrk = spawn("wrk", [
      ...["-t2", `-c${String(connections)}`, "-d5s", "--latency"],
      ...["-s", join(root, "bench/signup.lua"), origin, "--", label],
    ]);
    let out = "";
    wrk.stdout.on("data", (chunk) => (out += String(chunk)));
    wrk.on("error", reject);
    wrk.on("close", (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${String(code)}`));
      const { rps, p99Ms, requests, refused } = parseWrk(out);
      resolve({ rps: Math.round(rps), p99Ms: Number(p99Ms.toFixed(2)), requests, refused });
    });
  });
}
