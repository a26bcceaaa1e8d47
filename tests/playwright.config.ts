import { defineConfig, devices } from "@playwright/test";
import chromium from "./chromium.json" with { type: "json" };

// System Chromium: Playwright's own browser download is not reachable here, and never
// needed. CHROMIUM (set by the Makefile) or the Debian path.
const executablePath = process.env.CHROMIUM || chromium.executablePath;
const port = 4174;

export default defineConfig({
  testDir: ".",
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"]],
  outputDir: "../test-results",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath,
      // Root needs --no-sandbox; the rest stop Chromium calling hosts it cannot reach.
      args: chromium.args,
    },
  },
  webServer: {
    // The production server: the built pages, their headers, 404s.
    command: `node web/scripts/serve.mjs --port ${String(port)} --host 127.0.0.1`,
    cwd: "..",
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
});
