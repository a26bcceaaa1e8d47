// The two databases a waitlist bench runs against: a SQLite file and a throwaway
// PostgreSQL cluster (scripts/postgres.sh, with its default durable settings), both
// removed once the bench is done with them.
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
