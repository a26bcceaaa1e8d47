// `make test-package`: the packed lathe-core, installed from its tarball (a real install,
// not a symlink) into the projects beside this file, used the way a frontend developer
// would, with no configuration for the package. Each consumer drives a form to
// "submitted" and steps a background (scenario.js), in Node or in Chromium. Then publint
// and arethetypeswrong judge the package, the types are checked under strict settings,
// and the package README's examples are extracted and run.
//
// The consumers' tools are installed once (from the lock file here); only the tarball
// changes.
import { execFileSync, spawn } from "node:child_process";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import chromiumSettings from "../chromium.json" with { type: "json" };

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..", "..");
const bin = (name) => join(here, "node_modules", ".bin", name);
const expected = "submitted 25";
const results = [];

/** Runs `fn`, recording its name, outcome and time. */
async function check(name, fn) {
  const start = performance.now();
  try {
    await fn();
    const seconds = ((performance.now() - start) / 1000).toFixed(1);
    results.push({ name, ok: true, seconds });
    console.log(`  ok    ${name} (${seconds} s)`);
  } catch (error) {
    results.push({ name, ok: false, error });
    console.log(`  FAIL  ${name}\n${String(error?.stack ?? error).replace(/^/gm, "        ")}`);
  }
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: here, encoding: "utf8", stdio: "pipe", ...options });
}

function equal(actual, wanted, what) {
  if (actual !== wanted)
    throw new Error(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`);
}

// --- Install: the tools (once, from the lock file), then the freshly packed tarball. ---
const setUp = performance.now();
if (!existsSync(join(here, "node_modules", ".package-lock.json"))) {
  // `npm install`, which keeps to the lock file, rather than `npm ci`, whose check fails
  // where the registry lacks other platforms' optional binaries (Next.js's for macOS and
  // Windows), which the lock file then cannot list.
  run("npm", ["install", "--no-audit", "--no-fund"], { stdio: "inherit" });
}
const packed = join(here, ".pack");
rmSync(packed, { recursive: true, force: true });
mkdirSync(packed);
const tarball = join(
  packed,
  run("npm", ["pack", join(root, "pkg"), "--pack-destination", packed, "--silent"])
    .trim()
    .split("\n")
    .at(-1),
);
// From npm's cache where it has the packages' metadata (the tools were installed just
// before): asking the registry again about each of the tree's packages took 45 of the 50 s.
run("npm", [
  "install",
  "--no-save",
  "--no-audit",
  "--no-fund",
  "--no-package-lock",
  "--prefer-offline",
  tarball,
]);
const installed = join(here, "node_modules", "lathe-core");
if (statSync(installed).isSymbolicLink?.() || !existsSync(join(installed, "package.json"))) {
  throw new Error("lathe-core is not installed from its tarball");
}
console.log(
  `installed ${tarball.split("/").at(-1)} (${((performance.now() - setUp) / 1000).toFixed(1)} s)`,
);

// --- A static server and Chromium, for the consumers that run in a browser. ---
const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};
const files = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
  let file = join(here, path);
  if (!file.startsWith(here) || !existsSync(file)) {
    response.writeHead(404).end();
    return;
  }
  if (statSync(file).isDirectory()) file = join(file, "index.html");
  response.writeHead(200, { "Content-Type": types[extname(file)] ?? "application/octet-stream" });
  createReadStream(file).pipe(response);
});
await new Promise((resolve) => files.listen(0, "127.0.0.1", resolve));
const filesOrigin = `http://127.0.0.1:${files.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  args: chromiumSettings.args,
});

/** Opens `url` and waits for the page to set `data-result` (on any element). */
async function resultIn(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto(url);
    const element = page.locator("[data-result]:not([data-result=''])").first();
    await element.waitFor({ state: "attached", timeout: 30_000 }).catch(() => {
      throw new Error(`no result at ${url}; page errors: ${errors.join("; ") || "none"}`);
    });
    return await element.getAttribute("data-result");
  } finally {
    await page.close();
  }
}

/** A page at `dir`/index.html that runs `script` (a bundle) and reports its result. */
function pageFor(dir, script) {
  writeFileSync(
    join(here, dir, "index.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${dir}</title></head><body><script type="module" src="./${script}"></script></body></html>`,
  );
  return `${filesOrigin}/${dir}/`;
}

/**
 * Starts `args`, a server on a port the system picks, and waits for the line in which it
 * says where it listens (`said`, whose first group is the origin): no port is chosen here
 * for someone else, and nothing polls. Fails if the server exits first, or has not said it
 * within a minute.
 */
function serving(command, args, said, options = {}) {
  const child = spawn(command, args, { cwd: here, stdio: ["ignore", "pipe", "pipe"], ...options });
  let output = "";
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill();
      reject(new Error(`${command} said nothing like ${said} within 60 s: ${output}`));
    }, 60_000);
    const heard = (data) => {
      output += data;
      const match = said.exec(output);
      if (match) {
        clearTimeout(limit);
        resolve({ child, origin: match[1] });
      }
    };
    child.stdout.on("data", heard);
    child.stderr.on("data", heard);
    child.on("exit", () => {
      clearTimeout(limit);
      reject(new Error(`${command} exited: ${output}`));
    });
  });
}

console.log("consumers:");

await check("Node, ES modules (lathe-core, lathe-core/node, lathe-core/wake)", () => {
  equal(
    run("node", ["node-esm/main.mjs"]).trim(),
    `${expected} | ${expected} | submitted`,
    "printed",
  );
});

await check("Node, require() (lathe-core, lathe-core/node, lathe-core/wake)", () => {
  equal(run("node", ["node-cjs/main.cjs"]).trim(), `${expected} | ${expected}`, "printed");
});

for (const environment of ["node", "jsdom"]) {
  await check(`Vitest, ${environment}`, () => {
    run(bin("vitest"), ["run", "--root", "vitest", "--environment", environment]);
  });
}

// Jest's jsdom environment has neither TextDecoder nor TextEncoder: the package must not
// need them as globals. ES modules need Node's VM modules, whichever the environment.
for (const environment of ["node", "jsdom"]) {
  await check(`Jest, ${environment}: import and require()`, () => {
    run(bin("jest"), ["--rootDir", "jest", "--env", environment, "--ci"], {
      env: { ...process.env, NODE_OPTIONS: "--experimental-vm-modules --no-warnings" },
    });
  });
}

await check("esbuild, a browser bundle, in Chromium", async () => {
  run(bin("esbuild"), [
    "esbuild/entry.js",
    "--bundle",
    "--format=esm",
    "--outfile=esbuild/out/main.js",
  ]);
  equal(await resultIn(pageFor("esbuild/out", "main.js")), expected, "result");
});

await check("webpack 5, production, in Chromium", async () => {
  const { default: webpack } = await import("webpack");
  const stats = await new Promise((resolve, reject) => {
    webpack(
      {
        mode: "production",
        context: here,
        entry: "./webpack/entry.js",
        output: { path: join(here, "webpack/out"), filename: "main.js" },
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  if (stats.hasErrors()) throw new Error(stats.toString("errors-only"));
  equal(await resultIn(pageFor("webpack/out", "main.js")), expected, "result");
});

await check("Vite, production build, in Chromium", async () => {
  const vite = await import("vite");
  await vite.build({ root: join(here, "vite"), base: "./", logLevel: "error", configFile: false });
  equal(await resultIn(`${filesOrigin}/vite/dist/`), expected, "result");
});

await check("Vite, dev server, in Chromium", async () => {
  const vite = await import("vite");
  const server = await vite.createServer({
    root: join(here, "vite"),
    logLevel: "error",
    configFile: false,
    server: { port: 0, host: "127.0.0.1" },
  });
  await server.listen();
  try {
    const { port } = server.httpServer.address();
    equal(await resultIn(`http://127.0.0.1:${port}/`), expected, "result");
  } finally {
    await server.close();
  }
});

for (const bundler of ["Turbopack", "webpack"]) {
  await check(
    `Next.js with ${bundler}: a client page in Chromium, a route handler that validates`,
    async () => {
      const next = join(here, "next");
      rmSync(join(next, ".next"), { recursive: true, force: true });
      run(bin("next"), ["build", ...(bundler === "webpack" ? ["--webpack"] : [])], {
        cwd: next,
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      });
      // Next.js prints its address, then "Ready" once it serves.
      const { child: server, origin } = await serving(
        bin("next"),
        ["start", "-p", "0", "-H", "127.0.0.1"],
        /Local:\s+(http:\/\/127\.0\.0\.1:\d+)[\s\S]*Ready/,
        { cwd: next, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } },
      );
      try {
        equal(await resultIn(origin), expected, "page");
        const post = (body) =>
          fetch(`${origin}/api/validate`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(body),
          });
        const refused = await post({ name: "Ada", email: "ada@example", message: "Hi" });
        equal(refused.status, 422, "invalid sign-up status");
        equal(
          (await refused.json()).errors[0]?.message,
          "Please enter a valid email address",
          "message",
        );
        const accepted = await post({
          name: "Ada",
          email: "ada@example.com",
          message: "Hi",
          interest: "press",
        });
        equal(accepted.status, 200, "valid sign-up status");
      } finally {
        server.kill();
      }
    },
  );
}

console.log("the package:");

await check("publint: nothing to report", () => {
  const out = run(bin("publint"), ["run", installed, "--strict"]);
  if (!/All good/i.test(out)) throw new Error(out);
});

await check("arethetypeswrong: nothing to report", () => {
  // Every rule, for the entries that are for everyone; the .wasm has no types to check.
  run(bin("attw"), [
    tarball,
    "--format",
    "ascii",
    "--entrypoints",
    ".",
    "./node",
    "./wake",
    "./constants.json",
  ]);
  // The bundler and web builds are ES modules only, by nature (a bundler's wasm import,
  // import.meta.url): everything but that rule.
  run(bin("attw"), [
    tarball,
    "--format",
    "ascii",
    "--entrypoints",
    "./bundler",
    "./web",
    "--ignore-rules",
    "cjs-resolves-to-esm",
  ]);
});

for (const resolution of ["nodenext", "bundler"]) {
  await check(
    `types: strict, noUncheckedIndexedAccess, default libs, ${resolution} resolution`,
    () => {
      run(bin("tsc"), ["-p", `types/tsconfig.${resolution}.json`]);
    },
  );
}

// TypeScript 4.9 has no `Symbol.dispose` in any library: the types declare what they use.
for (const resolution of ["node16", "node"]) {
  await check(`types: TypeScript 4.9, strict, ${resolution} resolution`, () => {
    run(join(here, "node_modules", "typescript-4.9", "bin", "tsc"), [
      "-p",
      `types/tsconfig.ts4-${resolution}.json`,
    ]);
  });
}

await check(
  "the README's examples: type-checked, then run (in Node; those for pages in Chromium)",
  async () => {
    const readme = readFileSync(join(installed, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```ts( browser)?\n([\s\S]*?)```/g)].map((m) => ({
      browser: Boolean(m[1]),
      code: m[2],
    }));
    if (blocks.length < 5) throw new Error(`only ${blocks.length} examples found`);
    const dir = join(here, "readme");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const names = blocks.map((block, i) => {
      const name = `example-${String(i + 1)}`;
      writeFileSync(
        join(dir, `${name}.ts`),
        block.browser ? `export {};\n${block.code}` : block.code,
      );
      return name;
    });
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          types: ["node"],
          lib: ["ES2022", "DOM"],
        },
        include: ["*.ts"],
      }),
    );
    run(bin("tsc"), ["-p", "readme/tsconfig.json"]);
    for (const [i, block] of blocks.entries()) {
      const name = names[i];
      const js = run(bin("esbuild"), [`readme/${name}.ts`, "--format=esm", "--log-level=error"]);
      if (block.browser) {
        writeFileSync(join(dir, `${name}.mjs`), `${js}\ndocument.body.dataset.result = "ran";\n`);
        const map = JSON.stringify({
          imports: {
            "lathe-core": "/node_modules/lathe-core/index.js",
            "lathe-core/web": "/node_modules/lathe-core/web/lathe_core.js",
            "lathe-core/solver": "/node_modules/lathe-core/solver/lathe_core_solver.js",
          },
        });
        writeFileSync(
          join(dir, "index.html"),
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>README</title><script type="importmap">${map}</script></head><body><script type="module" src="./${name}.mjs"></script></body></html>`,
        );
        const page = await browser.newPage();
        await page.goto(`${filesOrigin}/readme/`);
        await page.waitForFunction(() => document.body.dataset.result === "ran", null, {
          timeout: 10_000,
        });
        equal(
          await page.evaluate(() => document.body.dataset.valid),
          "true",
          `${name}: its own check`,
        );
        // An example that draws on a canvas has painted pixels on it.
        const painted = await page.evaluate(() => {
          const canvas = document.querySelector("canvas");
          const ctx = canvas?.getContext("2d");
          if (!canvas || !ctx) return null;
          const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
          let n = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
          return n;
        });
        if (painted === 0) throw new Error(`${name}: nothing drawn on the canvas`);
        await page.close();
      } else {
        writeFileSync(join(dir, `${name}.mjs`), js);
        run("node", [`readme/${name}.mjs`], { timeout: 30_000 });
      }
    }
  },
);

await browser.close();
files.close();
const failed = results.filter((r) => !r.ok);
console.log(
  `\n${results.length - failed.length} of ${results.length} passed${failed.length ? `; failed: ${failed.map((f) => f.name).join(", ")}` : ""}`,
);
process.exit(failed.length ? 1 : 0);
