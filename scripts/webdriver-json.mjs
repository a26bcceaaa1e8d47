// Prints the WebDriver capabilities for `wasm-pack test --chrome` and `--firefox`: the
// Chromium named by CHROMIUM with the same flags as Playwright (tests/chromium.json), and
// the Firefox named by FIREFOX (Debian's firefox-esr by default), both headless.
import { readFileSync } from "node:fs";

const binary = process.env.CHROMIUM;
if (!binary) {
  console.error("webdriver-json: set CHROMIUM to the Chromium executable (make does)");
  process.exit(1);
}
const { args } = JSON.parse(
  readFileSync(new URL("../tests/chromium.json", import.meta.url), "utf8"),
);
const capabilities = {
  "goog:chromeOptions": { binary, args: ["--headless=new", ...args] },
  "moz:firefoxOptions": {
    binary: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
    args: ["-headless"],
  },
};
console.log(JSON.stringify(capabilities, null, 2));
