// make bench, webhooks: how many events a second the server delivers to a receiver on
// loopback (a Node server that answers 204), SQLite and PostgreSQL (a throwaway cluster,
// durable defaults). 400 sign-ups are posted, 20 at a time, to `lathe-site serve
// --webhook-url` without --smtp, each an `entry.created` event; the clock runs from the
// first post until the receiver holds the 400th. Every event must arrive exactly once.
import { createServer } from "node:http";

import { postSignUps, withDatabases } from "./databases.mjs";
import { serveLathe, stop } from "./processes.mjs";

const SIGN_UPS = 400;
const AT_ONCE = 20;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr";

/**
 * @param {{ root: string, dist: string }} options
 * @returns {Promise<Array<{ backend: string, events: number, seconds: number, perSecond: number }>>}
 */
export async function benchWebhooks({ root, dist }) {
  /** @type {Array<{ backend: string, events: number, seconds: number, perSecond: number }>} */
  const lines = [];
  await withDatabases(root, "hooks", async (_, databases) => {
    for (const [backend, database] of databases) {
      const ids = new Set();
      let received = 0;
      const receiver = createServer((request, response) => {
        request.resume();
        request.on("end", () => {
          received += 1;
          ids.add(request.headers["webhook-id"]);
          response.writeHead(204).end();
        });
      });
      // On a port the system picks, as the server's.
      await new Promise((resolve) => receiver.listen(0, "127.0.0.1", () => resolve(undefined)));
      const address = receiver.address();
      if (!address || typeof address === "string") throw new Error("the receiver has no port");
      /** @type {import("node:child_process").ChildProcess | undefined} */
      let server;
      try {
        const hooks = `http://127.0.0.1:${String(address.port)}/hooks`;
        const started = await serveLathe(
          root,
          [
            ...["--dist", dist, "--database", database],
            ...["--sign-ups-per-minute", "0", "--webhook-url", hooks],
          ],
          { ...process.env, LATHE_WEBHOOK_SECRET: SECRET },
        );
        server = started.child;
        const { origin } = started;
        const since = performance.now();
        await postSignUps(origin, backend, SIGN_UPS, AT_ONCE);
        while (received < SIGN_UPS) {
          if (performance.now() - since > 120_000) {
            throw new Error(
              `${backend}: ${String(received)} of ${String(SIGN_UPS)} events in 2 min`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const seconds = (performance.now() - since) / 1000;
        // Anything sent twice would be here by now.
        await new Promise((resolve) => setTimeout(resolve, 500));
        lines.push({
          backend,
          events: ids.size === received ? received : -received,
          seconds: Number(seconds.toFixed(2)),
          perSecond: Math.round(SIGN_UPS / seconds),
        });
      } finally {
        if (server) await stop(server);
        await new Promise((resolve) => receiver.close(resolve));
      }
    }
  });
  return lines;
}
