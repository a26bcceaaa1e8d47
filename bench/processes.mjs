// The bench's child processes (servers, the SMTP sink, nginx): started on ports the system
// picks, and stopped and waited for: the next bench's figures must not share the machine
// with one still shutting down.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** How long a server may take to say where it listens. */
const STARTING_MS = 30_000;

/**
 * Starts `command` on a port the system picks (its arguments ask for port 0) and resolves
 * once it says where it listens, on a line of its standard output that `says` matches
 * (its first group, the port): no port is chosen that another program may hold, and
 * nothing polls. Every server here prints such a line once its socket listens (lathe-site
 * "serving ... on http://127.0.0.1:PORT", deploy/nginx/run-local.sh "nginx on ...", the
 * SMTP sink "listening on 127.0.0.1:PORT"). What it prints after is read and dropped, and
 * its standard error too unless `stderr` is "inherit" (a server's log: a line a request).
 * @param {string} command
 * @param {string[]} args
 * @param {{ says: RegExp, env?: NodeJS.ProcessEnv, stderr?: "ignore" | "inherit" }} options
 * @returns {Promise<{ child: import("node:child_process").ChildProcess, port: number }>}
 */
export function listening(command, args, { says, env = process.env, stderr = "ignore" }) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", stderr], env });
  // Should the bench itself end first, the child goes with it.
  const orphaned = () => child.kill();
  process.on("exit", orphaned);
  for (const end of ["exit", "error"]) child.once(end, () => process.off("exit", orphaned));
  return new Promise((resolve, reject) => {
    let started = false;
    const fail = (/** @type {string} */ why) => {
      if (started) return;
      started = true;
      clearTimeout(timer);
      child.kill();
      reject(new Error(why));
    };
    const timer = setTimeout(() => {
      fail(`${command} did not say where it listens in ${String(STARTING_MS / 1000)} s`);
    }, STARTING_MS);
    child.once("error", (error) => {
      fail(`${command} did not start: ${error.message}`);
    });
    child.once("exit", (code, signal) => {
      fail(`${command} exited (${String(code ?? signal)}) before it said where it listens`);
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const port = Number(says.exec(line)?.[1]);
      if (started || !port) return;
      started = true;
      clearTimeout(timer);
      resolve({ child, port });
    });
  });
}

/**
 * `lathe-site serve` (the release build under `root`) with `args`, on a port the system
 * picks, once it listens (it says `serving DIST on http://127.0.0.1:PORT`): the process
 * and the origin it serves.
 * @param {string} root the repository
 * @param {string[]} args `serve`'s flags besides the port
 * @param {NodeJS.ProcessEnv} [env]
 */
export async function serveLathe(root, args, env = process.env) {
  const { child, port } = await listening(
    join(root, "target/release/lathe-site"),
    ["serve", "--port", "0", ...args],
    { says: /^serving .* on http:\/\/127\.0\.0\.1:(\d+)$/, env },
  );
  return { child, origin: `http://127.0.0.1:${String(port)}` };
}

/**
 * Sends `child` SIGTERM and resolves once it has exited (at once if it has already: one
 * that failed to start has, and its "exit" came and went).
 * @param {import("node:child_process").ChildProcess} child
 * @returns {Promise<void>}
 */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
  child.kill();
  return exited;
}
