// Reads Cargo's JSON messages (`--message-format=json`) from stdin: prints each warning or
// error the compiler or clippy gave, once, and exits 1 if there was any (clippy's
// `-D warnings`). make lint pipes the tests' own build into it, built with clippy as the
// compiler of our crates (Makefile: TEST_TARGET), so that clippy's checks cost no build
// of their own.
//
// One warning is not ours to fix: a static musl target cannot build a `cdylib`, and
// lathe-core must be one for wasm-pack, so rustc drops that crate type there and says so.
import { createInterface } from "node:readline";

/** The one warning of a musl build that says nothing about the code. */
const notAboutTheCode = /^dropping unsupported crate type `cdylib` for target `[^`]+-musl`$/;

const seen = new Set();
for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    console.error(line); // not one of Cargo's messages: shown as it came
    continue;
  }
  if (message.reason !== "compiler-message") continue;
  const { level, message: text, rendered } = message.message;
  if (!["warning", "error"].includes(level) || notAboutTheCode.test(text)) continue;
  if (!seen.has(rendered)) {
    seen.add(rendered);
    process.stdout.write(rendered);
  }
}
if (seen.size > 0) {
  console.error(`lints: ${String(seen.size)} to fix (above)`);
  process.exit(1);
}
console.log("lints: none, clippy included");
