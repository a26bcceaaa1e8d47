// scripts/lints.mjs, fed Cargo's JSON messages as the tests' build gives them.
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";

const script = new URL("../lints.mjs", import.meta.url).pathname;

/** A compiler message as Cargo writes it (the fields lints.mjs reads). */
const said = (level, message, rendered = `${level}: ${message}\n`) =>
  JSON.stringify({ reason: "compiler-message", message: { level, message, rendered } });
const dropped = said(
  "warning",
  "dropping unsupported crate type `cdylib` for target `x86_64-unknown-linux-musl`",
);
const lenZero = said(
  "warning",
  "length comparison to zero",
  "warning: length comparison to zero\n --> src/lib.rs:1:1\n",
);
const artifact = JSON.stringify({ reason: "compiler-artifact", filenames: ["x"] });

function run(lines) {
  return spawnSync(process.execPath, [script], { input: lines.join("\n"), encoding: "utf8" });
}

test("only the musl build's dropped cdylib, and artifacts: passes", () => {
  const result = run([dropped, artifact, dropped]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, "lints: none, clippy included\n");
});

test("a clippy warning fails, shown once however many targets repeat it", () => {
  const result = run([artifact, lenZero, lenZero, dropped]);
  assert.equal(result.status, 1);
  assert.equal(result.stdout, "warning: length comparison to zero\n --> src/lib.rs:1:1\n");
  assert.equal(result.stderr, "lints: 1 to fix (above)\n");
});

test("an error fails; a note does not count", () => {
  assert.equal(run([said("error", "mismatched types")]).status, 1);
  assert.equal(run([said("note", "for more information")]).status, 0);
});

test("the cdylib dropped for another, non-musl target is reported", () => {
  const other = said(
    "warning",
    "dropping unsupported crate type `cdylib` for target `x86_64-unknown-none`",
  );
  assert.equal(run([other]).status, 1);
});

test("lines that are not Cargo's JSON are passed on to stderr, not counted", () => {
  const result = run(["   Compiling lathe-core v0.1.0", artifact]);
  assert.equal(result.status, 0);
  assert.equal(result.stderr, "   Compiling lathe-core v0.1.0\n");
});
