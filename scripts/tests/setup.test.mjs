// The set-up's promises to a newcomer, checked by running it as one would on other
// machines: a Node that is too old, a system without apt-get or a browser, and the dev
// server started before the core is built. Run by `make test-setup` (node --test).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";

const root = new URL("../..", import.meta.url).pathname;

/** A bin folder holding every program on PATH but those named. */
function pathWithout(hidden) {
  const bin = mkdtempSync(join(tmpdir(), "lathe-bin-"));
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue; // a folder on PATH that does not exist
    }
    for (const name of names) {
      if (hidden.includes(name)) continue;
      try {
        symlinkSync(join(dir, name), join(bin, name));
      } catch {
        // Already linked from an earlier folder on PATH, which wins, as it would.
      }
    }
  }
  return bin;
}

function setup(env) {
  return spawnSync("bash", ["scripts/setup.sh"], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
}

test("a Node outside the engines range is named, with what to do, before anything else", () => {
  const bin = mkdtempSync(join(tmpdir(), "lathe-node-"));
  writeFileSync(join(bin, "node"), "#!/bin/sh\necho v18.19.0\n", { mode: 0o755 });
  const run = setup({ PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /Node\.js \^20\.19 or >=22\.12 is needed; found: v18\.19\.0/);
  assert.match(run.stderr, /nvm install \(reads \.nvmrc\)/);
  rmSync(bin, { recursive: true });
});

test("without apt-get, what is missing is listed with how to get it, then it stops", () => {
  const bin = pathWithout([
    "apt-get",
    "dpkg",
    "chromium",
    "chromium-browser",
    "chromedriver",
    "java",
    "wrk",
  ]);
  const run = setup({ PATH: bin, CHROMIUM: "" });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /Missing on this \S+ \S+ machine \(no apt-get here to install them\)/);
  assert.match(run.stderr, /Chromium and chromedriver: .*then set CHROMIUM/);
  assert.match(run.stderr, /Java 17 or newer: /);
  assert.match(run.stderr, /nginx with the brotli_static module, and wrk: /);
  rmSync(bin, { recursive: true });
});

test("once everything is installed, the set-up changes nothing and says nothing", () => {
  const run = setup({});
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "");
});

test("a tool that prints more after its version is still recognised as installed", () => {
  // geckodriver --version prints a licence after the version line; a check that stops
  // reading at the match must not kill it (SIGPIPE) and mistake it for missing. The
  // set-up puts cargo's bin folder first on PATH, so the stand-in goes in a copy of it.
  const cargoHome = process.env.CARGO_HOME ?? join(homedir(), ".cargo");
  const copy = mkdtempSync(join(tmpdir(), "lathe-cargo-"));
  const bin = join(copy, "bin");
  mkdirSync(bin);
  for (const name of readdirSync(join(cargoHome, "bin"))) {
    if (name !== "geckodriver") symlinkSync(join(cargoHome, "bin", name), join(bin, name));
  }
  const version = /^GECKODRIVER_VERSION=(\S+)$/m.exec(
    readFileSync(join(root, "scripts", "setup.sh"), "utf8"),
  )?.[1];
  assert.ok(version, "setup.sh pins GECKODRIVER_VERSION");
  writeFileSync(
    join(bin, "geckodriver"),
    `#!/bin/sh\necho "geckodriver ${version}"\nyes licence | head -c 1000000\n`,
    { mode: 0o755 },
  );
  const run = setup({
    CARGO_HOME: copy,
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), ".rustup"),
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "");
  rmSync(copy, { recursive: true });
});

test("a browser the set-up installs during make test is the one its tests use", () => {
  // On a fresh machine make test's own make finds no Chromium when it starts; the set-up
  // installs one, then the make that runs the tests must find it (it had been handed the
  // empty value: the wasm tests stopped at once, "set CHROMIUM"). Here a stand-in Chromium
  // appears in a folder on PATH between the two makes, as apt-get's does.
  const later = mkdtempSync(join(tmpdir(), "lathe-later-"));
  const bin = pathWithout([
    "chromium",
    "chromium-browser",
    "google-chrome",
    "chromium-headless-shell",
  ]);
  const probe = [
    "--eval",
    `outer: ; @ln -s /bin/true ${later}/chromium && $(MAKE) -s inner`,
    "--eval",
    'inner: ; @echo "CHROMIUM=$$CHROMIUM"',
  ];
  const env = { ...process.env, PATH: `${later}${delimiter}${bin}` };
  delete env.CHROMIUM;
  delete env.MAKEFLAGS;
  const run = spawnSync("make", ["-s", ...probe, "outer"], { cwd: root, env, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), `CHROMIUM=${join(later, "chromium")}`);
  rmSync(later, { recursive: true });
  rmSync(bin, { recursive: true });
});

test("the dev server started before the core is built says what to run", () => {
  // A copy of web/ beside an empty pkg/: the real one stays as it is.
  const copy = mkdtempSync(join(tmpdir(), "lathe-dev-"));
  cpSync(join(root, "web", "vite.config.ts"), join(copy, "web", "vite.config.ts"));
  cpSync(join(root, "web", "scripts"), join(copy, "web", "scripts"), { recursive: true });
  // The config reads the demo's script from the app's content.
  cpSync(join(root, "web", "src"), join(copy, "web", "src"), { recursive: true });
  mkdirSync(join(copy, "pkg"));
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  const run = spawnSync(join(root, "node_modules", ".bin", "vite"), ["--port", "0"], {
    cwd: join(copy, "web"),
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.notEqual(run.status, 0);
  assert.match(
    run.stdout + run.stderr,
    /pkg\/ has not been built: run `make dev` \(or `make pkg`\) from the repository root/,
  );
  rmSync(copy, { recursive: true });
});
