// What the waitlist's benches share: the two databases they run against, a SQLite file
// and a throwaway PostgreSQL cluster (scripts/postgres.sh, with its default durable
// settings), both removed once the bench is done with them; and the sign-ups they post.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Runs `bench` with a scratch folder and the two databases, `[name, location]` each, and
 * removes all three after, whatever happened.
 * @template T
 * @param {string} root the repository
 * @param {string} name a word for the scratch folder and the cluster's
 * @param {(folder: string, databases: Array<[string, string]>) => Promise<T>} bench
 * @returns {Promise<T>}
 */
export async function withDatabases(root, name, bench) {
  const folder = mkdtempSync(join(tmpdir(), `lathe-bench-${name}-`));
  const pgDir = `/tmp/lathe-pg-bench-${name}-${String(process.pid)}`;
  const script = join(root, "scripts/postgres.sh");
  try {
    const postgres = execFileSync(script, ["start", pgDir], { encoding: "utf8" }).trim();
    return await bench(folder, [
      ["SQLite", join(folder, "waitlist.db")],
      ["PostgreSQL", postgres],
    ]);
  } finally {
    execFileSync(script, ["stop", pgDir]);
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Posts `count` new sign-ups (addresses under `run`), `atOnce` at a time; every one must
 * be answered 201.
 * @param {string} origin the server
 * @param {string} run a word for the addresses
 * @param {number} count how many
 * @param {number} atOnce how many at a time
 */
export async function postSignUps(origin, run, count, atOnce) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = (next += 1);
      const response = await fetch(`${origin}/api/waitlist`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin },
        body: JSON.stringify({
          name: "Bench",
          email: `${run.toLowerCase()}.${String(n)}@example.com`,
          interest: "developer",
          message: "Measured.",
          privacyNotice: "bench",
        }),
      });
      if (response.status !== 201)
        throw new Error(`sign-up ${String(n)}: ${String(response.status)}`);
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
}
