// make bench, the proof of work (--proof-of-work) as a visitor's browser does it, in
// Chromium on the collecting build (web/dist-waitlist):
// - in the form: from the first change to the solution (the challenge fetched, the
//   worker started, the core loaded in it, the solve), as the page's User Timing measure
//   `lathe:proof-of-work` records it, at the machine's speed;
// - the solve alone (`solveChallenge` on a fresh challenge), at the machine's speed and
//   with the CPU slowed four times (a budget phone) by DevTools' CPU throttling. Chromium
//   throttles pages only ("Operation is only supported for pages, not workers"), so the
//   slowed solve runs on the page's thread: the same wasm (lathe-core/solver) the worker
//   runs.
// The target for both: well inside the spec's 2 s of "Submitting...", which is all a
// visitor who submits at once may wait for the proof.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveLathe, stop } from "./processes.mjs";
import { wasmAssets } from "./site.mjs";
import { quantile } from "./stats.mjs";

/** Samples per figure. */
const SAMPLES = 30;
/** The key the bench's server signs challenges with. */
export const PROOF_KEY = "make bench's proof-of-work key, 32 bytes or more";

/**
 * @param {import("@playwright/test").Browser} browser
 * @param {{ root: string }} options
 */
export async function benchProofs(browser, { root }) {
  const dist = join(root, "web/dist-waitlist");
  const folder = mkdtempSync(join(tmpdir(), "lathe-bench-proofs-"));
  /** @type {import("node:child_process").ChildProcess | undefined} */
  let server;
  try {
    const started = await serveLathe(
      root,
      ["--dist", dist, "--database", join(folder, "waitlist.db"), "--proof-of-work"],
      { ...process.env, LATHE_PROOF_KEY: PROOF_KEY },
    );
    server = started.child;
    const { origin } = started;
    /** @type {number[]} */
    const form = [];
    for (let i = 0; i < SAMPLES; i++) form.push(await inTheForm(browser, origin));
    const solver = wasmAssets(dist, "lathe_core_solver");
    /** SAMPLES solves on a page whose CPU is slowed `rate` times. */
    const solvedAt = async (/** @type {number} */ rate) => {
      const page = await browser.newPage();
      try {
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Emulation.setCPUThrottlingRate", { rate });
        await page.goto(`${origin}/robots.txt`);
        return await page.evaluate(solveAlone, { ...solver, n: SAMPLES });
      } finally {
        await page.close();
      }
    };
    const [asItIs, slowed] = [await solvedAt(1), await solvedAt(4)];
    const challenge = await (await fetch(`${origin}/api/waitlist/challenge`)).json();
    return {
      cost: Number(challenge.parameters.cost),
      counters: summary(asItIs.map((r) => r.counter)),
      form: summary(form),
      alone: { x1: summary(asItIs.map((r) => r.ms)), x4: summary(slowed.map((r) => r.ms)) },
    };
  } finally {
    if (server) await stop(server);
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * One visit to the contact page: the ms from the first change to the solution.
 * @param {import("@playwright/test").Browser} browser
 * @param {string} origin
 */
async function inTheForm(browser, origin) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/contact`);
    await page.locator("canvas[data-shape-count]").waitFor({ state: "attached" });
    await page.getByLabel(/Full name/).pressSequentially("A");
    const measure = await page.waitForFunction(
      () => performance.getEntriesByName("lathe:proof-of-work")[0]?.duration,
      null,
      { timeout: 60_000 },
    );
    return Number(await measure.jsonValue());
  } finally {
    await page.close();
  }
}

/**
 * Runs in the page: `n` fresh challenges solved by the solver on this thread.
 * @param {{ url: string, wasm: string, n: number }} solver
 * @returns {Promise<{ ms: number, counter: number }[]>}
 */
async function solveAlone({ url, wasm, n }) {
  const m = await import(url);
  await m.default({ module_or_path: wasm });
  const runs = [];
  for (let i = 0; i < n; i++) {
    const challenge = await (await fetch("/api/waitlist/challenge", { cache: "no-store" })).text();
    const start = performance.now();
    const payload = m.solveChallenge(challenge);
    const ms = performance.now() - start;
    runs.push({ ms, counter: JSON.parse(atob(payload)).solution.counter });
  }
  return runs;
}

/**
 * Median, 95th percentile and the largest, rounded.
 * @param {number[]} values
 */
function summary(values) {
  return {
    n: values.length,
    median: Math.round(quantile(values, 0.5)),
    p95: Math.round(quantile(values, 0.95)),
    max: Math.round(quantile(values, 1)),
  };
}
