// make bench, the servers: lathe-site beside nginx (deploy/nginx/lathe.conf) on the same
// files, with wrk: requests per second and p99 latency at 10 and 100 connections for `/`,
// `/contact`, the largest script (react-dom) and the wasm, and lathe-site's memory idle and
// at its peak under that load.
//
// The two servers take turns, ROUNDS of each: lathe-site for 3 s, then nginx for 3 s, and
// again. Each side's figures are the median of its rounds, and the line's ratio the median
// of the rounds' ratios, each round's two runs seconds apart. Until 8 December one side's
// three runs came first and then the other's, up to 20 s apart, and this machine's speed
// moves on that scale: the same build's CPU a sign-up read 189 to 241 µs from one 5 s run
// to the next (docs/server.md, "No bots"), and react-dom at 100 connections, in turns,
// read 0.77 to 0.98 of nginx over six rounds.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { listening, stop } from "./processes.mjs";
import { median } from "./stats.mjs";
import { parseWrk } from "./wrk.mjs";

/** Turns of the two servers on each line. */
const ROUNDS = 3;
const CONNECTIONS = [10, 100];

/**
 * @param {{ root: string, dist: string, origin: string, pid: number }} options the
 *   repository, the built site, and the lathe-site serving it (its origin and process id)
 * @returns {Promise<import("./results.js").Servers>}
 */
export async function benchServers({ root, dist, origin, pid }) {
  /** @type {import("./results.js").Servers["lines"]} */
  const lines = [];
  const { child: nginx, port: nginxPort } = await listening(
    join(root, "deploy/nginx/run-local.sh"),
    ["0", dist],
    { says: /^nginx on http:\/\/127\.0\.0\.1:(\d+)$/ },
  );
  const assets = readdirSync(join(dist, "assets"));
  const js = assets.find((f) => /^react-dom-.*\.js$/.test(f));
  const wasm = assets.find((f) => f.endsWith(".wasm"));
  const paths = ["/", "/contact", `/assets/${String(js)}`, `/assets/${String(wasm)}`];
  const rss = (/** @type {string} */ field) => {
    const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  };
  const idleKB = rss("VmRSS");
  try {
    for (const path of paths) {
      for (const connections of CONNECTIONS) {
        /** @type {ReturnType<typeof wrk>[]} */
        const lathe = [];
        /** @type {ReturnType<typeof wrk>[]} */
        const beside = [];
        for (let round = 0; round < ROUNDS; round++) {
          lathe.push(wrk(origin + path, connections));
          beside.push(wrk(`http://127.0.0.1:${String(nginxPort)}${path}`, connections));
        }
        const ratios = lathe.map((run, i) => run.rps / (beside[i]?.rps ?? Number.NaN));
        lines.push({
          path,
          connections,
          lathe: served(lathe),
          nginx: served(beside),
          ratio: Number(median(ratios).toFixed(2)),
        });
      }
    }
  } finally {
    await stop(nginx);
  }
  return { lines, memory: { idleKB, peakKB: rss("VmHWM") } };
}

/**
 * One side of a line: the median of its rounds' requests a second and p99.
 * @param {{ rps: number, p99Ms: number }[]} runs
 * @returns {import("./results.js").Served}
 */
function served(runs) {
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p99Ms: Number(median(runs.map((r) => r.p99Ms)).toFixed(2)),
  };
}

/**
 * wrk on two threads for 3 s, as a browser asks (brotli first): its requests/s and p99 ms.
 * @param {string} url
 * @param {number} connections
 */
function wrk(url, connections) {
  const out = execFileSync(
    "wrk",
    [
      "-t2",
      `-c${String(connections)}`,
      "-d3s",
      "--latency",
      "-H",
      "Accept-Encoding: br, gzip",
      url,
    ],
    { encoding: "utf8" },
  );
  return parseWrk(out);
}
