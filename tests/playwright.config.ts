import { defineConfig, devices } from "@playwright/test";
import chromium from "./chromium.json" with { type: "json" };

// System Chromium: Playwright's own browser download is not reachable here, and never
// needed. The Makefile sets CHROMIUM (the first Chromium on PATH, unless already set).
const executablePath = process.env.CHROMIUM;
if (!executablePath) {
  throw new Error("Set CHROMIUM to a Chromium executable, or run the tests through make");
}
/** `lathe-site serve`, the site's own server: every test runs against it. */
const origin = "http://127.0.0.1:4174";
/** nginx with deploy/nginx/lathe.conf: the tests tagged @deploy run against it too. */
const nginx = "http://127.0.0.1:4175";
/** Not Playwright's: the engine tour runs in its own projects, the consumer projects under make test-package. */
const notHere = ["engines.spec.ts", "consumers/**"];

export default defineConfig({
  testDir: ".",
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"]],
  outputDir: "../test-results",
  use: {
    baseURL: origin,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath,
      // Root needs --no-sandbox; the rest stop Chromium calling hosts it cannot reach.
      args: chromium.args,
    },
  },
  webServer: [
    {
      command: `target/release/lathe-site serve --dist web/dist --port ${new URL(origin).port}`,
      cwd: "..",
      url: origin,
      reuseExistingServer: false,
    },
    {
      command: `deploy/nginx/run-local.sh ${new URL(nginx).port} web/dist`,
      cwd: "..",
      url: nginx,
      reuseExistingServer: false,
    },
  ],
  projects: [
    { name: "chromium", testIgnore: notHere, use: { ...devices["Desktop Chrome"] } },
    // What any deployment must do (routes, 404, headers, CSP, encodings, caching), on nginx.
    {
      name: "nginx",
      grep: /@deploy/,
      testIgnore: notHere,
      use: { ...devices["Desktop Chrome"], baseURL: nginx },
    },
    // The tour every engine must pass, over WebDriver (tests/engines/driver.ts). One engine
    // at a time, after the rest: its timings are real, and a busy machine would blur them.
    { name: "firefox", testMatch: "engines.spec.ts", dependencies: ["chromium", "nginx"] },
    { name: "webkit", testMatch: "engines.spec.ts", dependencies: ["firefox"] },
  ],
});
