// The bench's child processes (servers, the SMTP sink, nginx), stopped and waited for:
// the next bench's figures must not share the machine with one still shutting down, nor
// find its port still held.

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

/**
 * Resolves once a server answers at `url` (any status), polling every 100 ms for 10 s.
 * @param {string} url
 * @returns {Promise<void>}
 */
export async function waitFor(url) {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`server at ${url} did not start`);
}
