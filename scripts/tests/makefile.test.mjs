// The Makefile's promises that only a fresh clone would otherwise test: make bench builds
// every program it runs. Its rule once named two of them through variables defined
// below it, which make had not read yet, so they were never built; on a clone without
// them, make bench failed after 40 minutes of measuring. Run by `make test-setup`.
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";

const root = new URL("../..", import.meta.url).pathname;

test("make bench builds each program the bench runs, whatever is built already", () => {
  // -B: as if nothing were built; -n: print the commands, run none.
  const dry = spawnSync("make", ["-n", "-B", "bench"], { cwd: root, encoding: "utf8" });
  assert.equal(dry.status, 0, dry.stderr);
  // Each command on one line: a recipe's continued lines joined.
  const commands = dry.stdout.replace(/\\\n\s*/g, " ").split("\n");
  const makes = (pattern) => commands.some((command) => pattern.test(command));
  for (const [program, pattern] of [
    ["the server", /cargo build --release -q -p lathe-site$/],
    ["the proofs", /cargo build --release -q -p lathe-site --example proofs$/],
    ["the line", /cargo build --release -q -p lathe-site --example line$/],
    ["the line at BASELINE", /--example line\s+--manifest-path target\/baseline-\w+\/Cargo.toml/],
    ["the line before it", /--example before_line\s+--manifest-path target\/before-line-\w+\//],
  ]) {
    assert.ok(makes(pattern), `${program}: ${String(pattern)}\n${dry.stdout}`);
  }
});
