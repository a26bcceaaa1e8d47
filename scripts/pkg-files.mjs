// Adds files (given as arguments) to the "files" list of pkg/package.json, which
// wasm-pack writes without them. Usage: node scripts/pkg-files.mjs constants.json
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../pkg/package.json", import.meta.url);
const manifest = JSON.parse(readFileSync(path, "utf8"));
manifest.files = [...new Set([...manifest.files, ...process.argv.slice(2)])];
writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
