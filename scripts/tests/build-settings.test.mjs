// The build setting WAITLIST_URL (web/scripts/build-settings.mjs): what it accepts, what
// the CSP's connect-src then allows, and the clear error for anything else. Each case
// runs in a Node of its own, as the settings are read once, from the environment.
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";

const settings = new URL("../../web/scripts/build-settings.mjs", import.meta.url).href;

function read(waitlistUrl) {
  const env = { ...process.env, WAITLIST_URL: waitlistUrl };
  if (waitlistUrl === undefined) delete env.WAITLIST_URL;
  const run = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `console.log(JSON.stringify(await import(${JSON.stringify(settings)})))`,
    ],
    { env, encoding: "utf8" },
  );
  return run.status === 0 ? JSON.parse(run.stdout) : { error: run.stderr };
}

test("unset or empty: the form sends nothing, and connects nowhere else", () => {
  for (const value of [undefined, ""]) {
    assert.deepEqual(read(value), { outDir: "dist", waitlistOrigin: null, waitlistUrl: "" });
  }
});

test("a path on the site: posted there, nothing added to the CSP", () => {
  assert.deepEqual(read("/api/waitlist"), {
    outDir: "dist",
    waitlistOrigin: null,
    waitlistUrl: "/api/waitlist",
  });
});

test("a form service elsewhere: its origin, exactly, joins connect-src", () => {
  const { waitlistUrl, waitlistOrigin } = read("https://forms.example.net:8443/lathe/signup?x=1");
  assert.equal(waitlistUrl, "https://forms.example.net:8443/lathe/signup?x=1");
  assert.equal(waitlistOrigin, "https://forms.example.net:8443");
});

test("anything else stops the build with a clear message", () => {
  for (const value of [
    "api/waitlist",
    "//evil.example/x",
    "ftp://example.com/x",
    "javascript:alert(1)",
    "https://",
  ]) {
    const { error } = read(value);
    assert.match(
      error ?? "",
      /WAITLIST_URL must be a path on the site \(\/api\/waitlist\) or an http\(s\) URL/,
      value,
    );
  }
});
