// make bench, the waitlist: sign-ups stored per second and their p99 latency, with wrk
// (bench/signup.lua: every request a new address) against `lathe-site serve --database`,
// SQLite and PostgreSQL (a throwaway cluster, scripts/postgres.sh, with its default
// durable settings), at 10 and 100 connections; and with --proof-of-work, each sign-up
// carrying a valid proof of its own (made beforehand by server/examples/proofs.rs, the
// work done once instead of searched for), so that the figure includes verifying and
// recording it (target: within 10 % of the same line without). The two modes run in
// turns, ROUNDS of each (a server started for each), and each line is the median of its
// rounds: on this machine one 5 s run against another of the same build can differ by a
// third, when the disk or the other core is busy, and a turn's two sides share the
// minute. The share of a line with proofs is the median of its rounds' shares. The proofs
// for all of a backend's rounds are made before its first: made just before the runs that
// use them (4.7 s of both cores), they cost those runs up to 15 % on this machine, which
// the line without never paid (the same runs without proofs, alone and right after making
// them, in four pairs: 2,643 and 2,297 sign-ups a second, 2,848 and 2,418, 1,908 and
// 1,930, 2,562 and 2,290). They are
// good for 10 minutes, and a backend's rounds take about a minute and a half. After each
// backend, the rows are counted with the owner's tool: every 2xx answer must be a stored
// row.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { withDatabases } from "./databases.mjs";
import { serveLathe, stop } from "./processes.mjs";
import { median } from "./stats.mjs";
import { parseWrk } from "./wrk.mjs";
import { PROOF_KEY } from "./proofs.mjs";

/** Proofs made for each run with --proof-of-work: more than 5 s of the fastest run. */
const PROOFS = 60_000;
/** Turns of the two modes, each line the median of its rounds. */
const ROUNDS = 3;
const CONNECTIONS = [10, 100];

/**
 * @typedef {{ rps: number, p99Ms: number, requests: number, refused: number }} Run one wrk run
 * @typedef {{ backend: string, proof: boolean, connections: number, rps: number, p99Ms: number, requests: number, refused: number, rounds: number[], share?: number, shares?: number[] }} Line
 *   a line's medians (requests and refused: all its rounds'), each round's sign-ups a
 *   second, and with proofs the median of its rounds' shares of the line without, and each
 */

/**
 * @param {{ root: string, dist: string }} options
 * @returns {Promise<{ lines: Line[], stored: Record<string, { answered: number, rows: number }>, walBytes: number }>}
 */
export async function benchSignUps({ root, dist }) {
  const binary = join(root, "target/release/lathe-site");
  /** @type {Line[]} */
  const lines = [];
  /** @type {Record<string, { answered: number, rows: number }>} */
  const stored = {};
  let largestWal = 0;
  await withDatabases(root, "sign-ups", async (folder, databases) => {
    for (const [backend, location] of databases) {
      let answered = 0;
      /** @type {Map<string, Run[]>} each line's rounds, by `${proof} ${connections}` */
      const runs = new Map();
      /** Each run's label, and with proofs its file of them, made before the first run. */
      const label = (
        /** @type {boolean} */ proof,
        /** @type {number} */ connections,
        /** @type {number} */ round,
      ) => `${backend}-${proof ? "proof-" : ""}${String(connections)}-r${String(round)}`;
      const proofsFor = (/** @type {number} */ connections, /** @type {number} */ round) =>
        join(folder, `${label(true, connections, round)}.proofs`);
      for (let round = 1; round <= ROUNDS; round++) {
        for (const connections of CONNECTIONS) {
          makeProofs(root, proofsFor(connections, round));
        }
      }
      for (let round = 1; round <= ROUNDS; round++) {
        for (const proof of [false, true]) {
          // Each mode on a database of its own, so that neither finds the other's rows: a
          // second SQLite file; the cluster's own `postgres` database.
          const database = proof ? fresh(location) : location;
          // No rate limit: every request here comes from one address.
          const { child: server, origin } = await serveLathe(
            root,
            [
              ...["--dist", dist, "--database", database],
              ...["--sign-ups-per-minute", "0", ...(proof ? ["--proof-of-work"] : [])],
            ],
            { ...process.env, LATHE_PROOF_KEY: PROOF_KEY },
          );
          try {
            // SQLite's write-ahead log, sampled every 20 ms while wrk runs: its largest size.
            const wal = backend === "SQLite" && !proof ? `${database}-wal` : undefined;
            const sampler = wal
              ? setInterval(() => {
                  try {
                    largestWal = Math.max(largestWal, statSync(wal).size);
                  } catch {
                    // Not there yet.
                  }
                }, 20)
              : undefined;
            for (const connections of CONNECTIONS) {
              // The round in the addresses: each round's sign-ups are new ones.
              const proofs = proof ? proofsFor(connections, round) : undefined;
              const run = await wrkPost(
                origin,
                connections,
                label(proof, connections, round),
                root,
                proofs,
              );
              if (proofs) rmSync(proofs);
              answered += run.requests - run.refused;
              const key = `${String(proof)} ${String(connections)}`;
              runs.set(key, [...(runs.get(key) ?? []), run]);
            }
            clearInterval(sampler);
          } finally {
            await stop(server);
          }
        }
      }
      for (const proof of [false, true]) {
        for (const connections of CONNECTIONS) {
          lines.push(line(backend, proof, connections, runs));
        }
      }
      let rows = 0;
      for (const database of [location, fresh(location)]) {
        rows += Number(
          execFileSync(binary, ["waitlist", "--database", database, "count"], { encoding: "utf8" }),
        );
      }
      stored[backend] = { answered, rows };
    }
  });
  return { lines, stored, walBytes: largestWal };
}

/**
 * One line's figures from its rounds (`runs`, by `${proof} ${connections}`): medians, and
 * with proofs the median of each round's share of the same round's line without.
 * @param {string} backend
 * @param {boolean} proof
 * @param {number} connections
 * @param {Map<string, Run[]>} runs
 * @returns {Line}
 */
function line(backend, proof, connections, runs) {
  const own = runs.get(`${String(proof)} ${String(connections)}`) ?? [];
  const rounds = own.map((r) => r.rps);
  /** @type {Line} */
  const figures = {
    backend,
    proof,
    connections,
    rps: median(rounds),
    p99Ms: median(own.map((r) => r.p99Ms)),
    requests: own.reduce((sum, r) => sum + r.requests, 0),
    refused: own.reduce((sum, r) => sum + r.refused, 0),
    rounds,
  };
  if (!proof) return figures;
  const without = runs.get(`false ${String(connections)}`) ?? [];
  const shares = own.map((r, i) => r.rps / (without[i]?.rps ?? Number.NaN));
  return { ...figures, share: median(shares), shares };
}

/**
 * Writes PROOFS valid proofs of work to `file`, one a line (server/examples/proofs.rs).
 * @param {string} root
 * @param {string} file
 */
function makeProofs(root, file) {
  const out = openSync(file, "w");
  try {
    execFileSync(join(root, "target/release/examples/proofs"), [String(PROOFS)], {
      env: { ...process.env, LATHE_PROOF_KEY: PROOF_KEY },
      stdio: ["ignore", out, "inherit"],
    });
  } finally {
    closeSync(out);
  }
}

/**
 * wrk posting new sign-ups for 5 s (with a proof each from the file `proofs`, if given, to
 * its 2 threads): requests/s, p99 ms, and how many were refused. Run without blocking the
 * event loop, so that the WAL sampler keeps running.
 * @param {string} origin
 * @param {number} connections
 * @param {string} label
 * @param {string} root
 * @param {string} [proofs]
 * @returns {Promise<Run>}
 */
function wrkPost(origin, connections, label, root, proofs) {
  return new Promise((resolve, reject) => {
    const wrk = spawn("wrk", [
      ...["-t2", `-c${String(connections)}`, "-d5s", "--latency"],
      ...["-s", join(root, "bench/signup.lua"), origin, "--", label],
      ...(proofs ? [proofs, "2"] : []),
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

/**
 * Another empty database beside `location`: the cluster's own `postgres` database (the
 * URL's path; its `?host=` is the socket's folder, and keeps its slashes), or a second
 * SQLite file.
 * @param {string} location
 */
function fresh(location) {
  if (!location.startsWith("postgres://")) return location.replace(/\.db$/, "-proof.db");
  const url = new URL(location);
  url.pathname = "/postgres";
  return url.toString();
}
