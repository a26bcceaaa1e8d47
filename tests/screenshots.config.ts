import { defineConfig, devices } from "@playwright/test";
import base from "./playwright.config";

// Chromium only, against lathe-site: pictures to look at, not tests.
export default defineConfig({
  ...base,
  testDir: ".",
  testMatch: "screenshots.ts",
  webServer: Array.isArray(base.webServer) ? base.webServer.slice(0, 1) : base.webServer,
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
});
