// Assembles the `lathe-core` npm package in pkg/ from wasm-pack's three builds of core/
// (run by `make pkg`, which makes them in .tools/pkg-build/{bundler,web,nodejs}):
//
//   lathe-core            the default: the wasm inlined (base64) and instantiated at
//                         import, ESM and CommonJS. Works with no setting anywhere: Node,
//                         Vitest, every bundler, Next.js on the server and in the browser.
//   lathe-core/bundler    wasm-pack's bundler build: the .wasm as a separate file, compiled
//                         while it streams in (Vite with vite-plugin-wasm, webpack 5). The
//                         site uses this one.
//   lathe-core/web        an ES module with `init()` (default export) to call first, which
//                         fetches the .wasm beside it, or takes the bytes or a Module.
//   lathe-core/node       CommonJS for Node that reads the .wasm from disk.
//   lathe-core/wasm       the .wasm itself (for `lathe-core/web`'s init).
//   lathe-core/wake       wakeUps(): wakes a form at the times it asks for.
//   lathe-core/solver     the proof-of-work solver (core/solver), a wasm module of its own
//                         that only a form's worker needs: an ES module with `init()`,
//                         as lathe-core/web; lathe-core/solver/wasm is its .wasm.
//   lathe-core/constants.json  the constants, without any wasm.
//
// Every .d.ts declares `Symbol.dispose` itself, so the types check under `strict` with the
// default libraries, and with TypeScript 4.9. Each
// entry's size is measured and written into the package's README.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, ".tools", "pkg-build");
const pkg = join(root, "pkg");
const name = "lathe_core";
/**
 * `Symbol.dispose`, which the generated classes implement, and the `Disposable` that
 * `using` needs, declared for TypeScript before 5.2 and for projects whose `lib` lacks
 * `esnext.disposable`, as @types/node declares them (where the library has them too, the
 * declarations merge).
 */
const disposable = [
  "declare global {",
  "  interface SymbolConstructor {",
  "    readonly dispose: unique symbol;",
  "  }",
  "  interface Disposable {",
  "    [Symbol.dispose](): void;",
  "  }",
  "}",
  "",
].join("\n");

rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg);

/** Copies `files` of one wasm-pack build into pkg/<to>/, the types with their library. */
function copyBuild(build, to, files) {
  mkdirSync(join(pkg, to), { recursive: true });
  for (const file of files) {
    const source = join(from, build, file);
    if (file.endsWith(".d.ts")) {
      writeFileSync(join(pkg, to, file), disposable + readFileSync(source, "utf8"));
    } else {
      copyFileSync(source, join(pkg, to, file));
    }
  }
}

// wasm-opt runs once, on the bundler build (make pkg builds the web and Node ones with
// --no-opt): wasm-bindgen writes the same module for every target, and its optimisation
// (-Oz until it stops shrinking, in binaryen's JavaScript build) took 5 to 7 CPU-seconds a
// run. What each glue needs of the module, its imports and exports, is checked to be the
// same before the optimised module replaces the others.
const optimised = join(from, "bundler", `${name}_bg.wasm`);
/** A module's imports and exports, as its JavaScript glue sees them. */
function shape(file) {
  const module = new WebAssembly.Module(readFileSync(file));
  return JSON.stringify([WebAssembly.Module.imports(module), WebAssembly.Module.exports(module)]);
}
for (const target of ["web", "nodejs"]) {
  const built = join(from, target, `${name}_bg.wasm`);
  if (shape(built) !== shape(optimised)) {
    throw new Error(
      `wasm-bindgen's ${target} module has other imports or exports than its bundler module: build it with wasm-opt too (Makefile, pkg)`,
    );
  }
  copyFileSync(optimised, built);
}

copyBuild("bundler", "bundler", [
  `${name}.js`,
  `${name}_bg.js`,
  `${name}_bg.wasm`,
  `${name}.d.ts`,
  `${name}_bg.wasm.d.ts`,
]);
copyBuild("web", "web", [`${name}.js`, `${name}_bg.wasm`, `${name}.d.ts`, `${name}_bg.wasm.d.ts`]);
copyBuild("nodejs", "node", [`${name}.js`, `${name}_bg.wasm`, `${name}.d.ts`]);
const solver = "lathe_core_solver";
copyBuild("solver", "solver", [
  `${solver}.js`,
  `${solver}_bg.wasm`,
  `${solver}.d.ts`,
  `${solver}_bg.wasm.d.ts`,
]);
// Each build's folder says what it is: wasm-pack's Node build is CommonJS in a package
// that is otherwise ES modules, and resolvers that predate `exports` (TypeScript's
// node10) find each subpath's files through its folder's manifest.
for (const [dir, type, stem] of [
  ["bundler", "module", name],
  ["web", "module", name],
  ["node", "commonjs", name],
  ["solver", "module", solver],
]) {
  const manifest = { type, main: `${stem}.js`, types: `${stem}.d.ts` };
  writeFileSync(join(pkg, dir, "package.json"), `${JSON.stringify(manifest)}\n`);
}

// The default entry: the web build's glue, its wasm inlined and instantiated at import.
// Bundled, so that what it does not use (the fetching `init`, with its
// `new URL(..., import.meta.url)` that bundlers would follow) is left out.
const types = readFileSync(join(from, "bundler", `${name}.d.ts`), "utf8");
const names = [...types.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map(
  (m) => m[1],
);
const wasm = readFileSync(join(from, "web", `${name}_bg.wasm`));
const entry = join(from, "inline.js");
writeFileSync(
  entry,
  [
    `import { initSync } from "./web/${name}.js";`,
    `initSync({ module: Uint8Array.from(atob("${wasm.toString("base64")}"), (c) => c.charCodeAt(0)) });`,
    `export { ${names.join(", ")} } from "./web/${name}.js";`,
  ].join("\n"),
);
// The glue's TextDecoder and TextEncoder, from where they are: the page's or Node's
// globals, or, in a jsdom test environment (Jest's, what most React projects run), which
// has neither, from Node's util module.
const codec = join(from, "codec.js");
writeFileSync(
  codec,
  [
    `const util = globalThis.TextDecoder ? undefined : globalThis.process?.getBuiltinModule?.("node:util");`,
    `export const TextDecoder = globalThis.TextDecoder ?? util?.TextDecoder;`,
    `export const TextEncoder = globalThis.TextEncoder ?? util?.TextEncoder;`,
  ].join("\n"),
);
for (const [format, file] of [
  ["esm", "index.js"],
  ["cjs", "index.cjs"],
]) {
  await build({
    input: entry,
    output: { format, file: join(pkg, file) },
    transform: {
      inject: { TextDecoder: [codec, "TextDecoder"], TextEncoder: [codec, "TextEncoder"] },
    },
    logLevel: "warn",
  });
  const code = readFileSync(join(pkg, file), "utf8");
  if (code.includes("import.meta")) throw new Error(`${file} still refers to import.meta`);
}
writeFileSync(join(pkg, "index.d.ts"), disposable + types);
writeFileSync(join(pkg, "index.d.cts"), disposable + types);

// lathe-core/wake, from TypeScript: ESM, CommonJS, and declarations by tsc.
const wake = join(root, "core", "js", "wake.ts");
for (const [format, file] of [
  ["esm", "wake.js"],
  ["cjs", "wake.cjs"],
]) {
  await build({ input: wake, output: { format, file: join(pkg, file) }, logLevel: "warn" });
}
execFileSync(
  join(root, "node_modules", "typescript-7", "bin", "tsc"),
  [wake, "--declaration", "--emitDeclarationOnly", "--strict", "--target", "es2022"].concat([
    "--outDir",
    join(from, "wake-types"),
  ]),
  { stdio: "inherit" },
);
const wakeTypes = readFileSync(join(from, "wake-types", "wake.d.ts"), "utf8");
writeFileSync(join(pkg, "wake.d.ts"), wakeTypes);
writeFileSync(join(pkg, "wake.d.cts"), wakeTypes);

copyFileSync(join(from, "constants.json"), join(pkg, "constants.json"));
copyFileSync(join(root, "LICENSE"), join(pkg, "LICENSE"));

// The manifest: wasm-pack's name, version, description and the rest, with the entries.
const base = JSON.parse(readFileSync(join(from, "bundler", "package.json"), "utf8"));
const both = (stem) => ({
  import: { types: `./${stem}.d.ts`, default: `./${stem}.js` },
  require: { types: `./${stem}.d.cts`, default: `./${stem}.cjs` },
});
const manifest = {
  name: base.name,
  version: base.version,
  description: base.description,
  license: base.license,
  repository: base.repository,
  keywords: base.keywords,
  type: "module",
  engines: { node: ">=18" },
  main: "./index.cjs",
  module: "./index.js",
  types: "./index.d.ts",
  exports: {
    ".": both("index"),
    "./bundler": { types: `./bundler/${name}.d.ts`, default: `./bundler/${name}.js` },
    "./web": { types: `./web/${name}.d.ts`, default: `./web/${name}.js` },
    "./node": { types: `./node/${name}.d.ts`, default: `./node/${name}.js` },
    "./wasm": `./web/${name}_bg.wasm`,
    "./wake": both("wake"),
    "./solver": { types: `./solver/${solver}.d.ts`, default: `./solver/${solver}.js` },
    "./solver/wasm": `./solver/${solver}_bg.wasm`,
    "./constants.json": "./constants.json",
    "./package.json": "./package.json",
  },
  files: [
    "index.js",
    "index.cjs",
    "index.d.ts",
    "index.d.cts",
    "wake.js",
    "wake.cjs",
    "wake.d.ts",
    "wake.d.cts",
    "bundler/",
    "web/",
    "node/",
    "solver/",
    "constants.json",
  ],
  // Importing an entry instantiates the wasm (the bundler build, at its top level).
  sideEffects: ["./index.js", "./index.cjs", `./bundler/${name}.js`, `./node/${name}.js`],
};
writeFileSync(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

// Sizes, gzip -9, into the README.
const gz = (...files) =>
  files.reduce((sum, f) => sum + gzipSync(readFileSync(join(pkg, f)), { level: 9 }).length, 0);
const sizes = [
  ["`lathe-core` (ESM)", gz("index.js"), "one file; the wasm inlined as base64"],
  ["`lathe-core` (CommonJS)", gz("index.cjs"), "the same"],
  [
    "`lathe-core/bundler`",
    gz(`bundler/${name}.js`, `bundler/${name}_bg.js`, `bundler/${name}_bg.wasm`),
    "glue + `.wasm`, streamed",
  ],
  [
    "`lathe-core/web`",
    gz(`web/${name}.js`, `web/${name}_bg.wasm`),
    "glue + `.wasm`, fetched by `init()`",
  ],
  [
    "`lathe-core/node`",
    gz(`node/${name}.js`, `node/${name}_bg.wasm`),
    "glue + `.wasm`, read from disk",
  ],
  ["`lathe-core/wake`", gz("wake.js"), ""],
  [
    "`lathe-core/solver`",
    gz(`solver/${solver}.js`, `solver/${solver}_bg.wasm`),
    "glue + `.wasm`, fetched by `init()`; for a worker",
  ],
];
const table = [
  "| entry | gzip -9, bytes | |",
  "| --- | ---: | --- |",
  ...sizes.map(([entry, bytes, note]) => `| ${entry} | ${bytes.toLocaleString("en")} | ${note} |`),
].join("\n");
const readme = readFileSync(join(root, "core", "README.md"), "utf8");
const marker = /<!-- sizes -->[\s\S]*?<!-- \/sizes -->/;
if (!marker.test(readme)) throw new Error("core/README.md has no <!-- sizes --> section");
writeFileSync(
  join(pkg, "README.md"),
  readme.replace(marker, `<!-- sizes -->\n${table}\n<!-- /sizes -->`),
);
for (const [entry, bytes] of sizes)
  console.log(`${entry.replaceAll("`", "").padEnd(26)} ${bytes} B gz`);
