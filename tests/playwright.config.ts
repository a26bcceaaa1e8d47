import { defineConfig, devices } from "@playwright/test";
import chromium from "./chromium.json" with { type: "json" };

// System Chromium: Playwright's own browser download is not reachable here, and never
// needed. The Makefile sets CHROMIUM (the first Chromium on PATH, unless already set).
const executablePath = process.env.CHROMIUM;
if (!executablePath) {
  throw new Error("Set CHROMIUM to a Chromium executable, or run the tests through make");
}
// Both servers listen on a port the system picks and print it once they listen; Playwright
// reads the line (`wait`) and puts the named group in the environment of the test workers,
// which load this file again: the runner, before the servers start, sees no port yet.
/** `lathe-site serve`, the site's own server: every test runs against it. */
const origin = `http://127.0.0.1:${process.env.LATHE_SITE_PORT ?? "0"}`;
/** nginx with deploy/nginx/lathe.conf: the tests tagged @deploy run against it too. */
const nginx = `http://127.0.0.1:${process.env.LATHE_NGINX_PORT ?? "0"}`;
/** The server's binary: the Makefile's (LATHE_SITE), or the release build. */
const server = process.env.LATHE_SITE ?? "target/release/lathe-site";
/** The tests with a waitlist server of their own (tests/waitlistServer.ts). */
const waitlist = ["waitlist.spec.ts", "confirmation.spec.ts", "owner.spec.ts", "referral.spec.ts"];
/** Not Playwright's: the engine tour runs in its own projects, the consumer projects under make test-package. */
const notHere = ["engines.spec.ts", "consumers/**"];

// The load is chosen, not whatever the machine has: one test at a time in each project,
// two at most in all, so at most two browsers, one waitlist server with its database and
// mail server, and the two servers above. Measured on two cores: the Chromium suite took
// 3.9 min with one worker and 5.8 min with two (every page animates its background, and
// two engines' accessibility checks at once starve each other), and one slow test then
// crossed the 30 s limit. The waitlist's tests mostly wait (on the form's 2 s, on mail), so
// they run beside the rest.
export default defineConfig({
  testDir: ".",
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  // A failed test runs once more, recording its trace (test-results/), and the run fails
  // either way: a test that passes only the second time is reported flaky, and that is a
  // failure. Recording a trace for every test ("retain-on-failure") took a third of the
  // browsers' CPU time (docs/testing.md); a failure's screenshot is kept too.
  retries: 1,
  failOnFlakyTests: true,
  reporter: [["list"]],
  outputDir: "../test-results",
  use: {
    baseURL: origin,
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath,
      // Root needs --no-sandbox; the rest stop Chromium calling hosts it cannot reach.
      args: chromium.args,
    },
  },
  webServer: [
    {
      command: `${server} serve --dist web/dist --port 0`,
      cwd: "..",
      // Warnings and errors only: a line for each of the suite's requests buried them.
      env: { RUST_LOG: "warn" },
      wait: { stdout: /serving \S+ on http:\/\/127\.0\.0\.1:(?<lathe_site_port>\d+)/ },
      reuseExistingServer: false,
    },
    {
      command: "deploy/nginx/run-local.sh 0 web/dist",
      cwd: "..",
      wait: { stdout: /nginx on http:\/\/127\.0\.0\.1:(?<lathe_nginx_port>\d+)/ },
      reuseExistingServer: false,
      // Stopped, not killed: run-local.sh removes its folder once nginx has exited (a
      // SIGKILL, Playwright's default, left one in /tmp after every run).
      gracefulShutdown: { signal: "SIGTERM", timeout: 5000 },
    },
  ],
  projects: [
    {
      name: "chromium",
      testIgnore: [...notHere, ...waitlist],
      workers: 1,
      use: { ...devices["Desktop Chrome"] },
    },
    // The waitlist's servers, in the build that collects (tests/waitlistServer.ts).
    {
      name: "waitlist",
      testMatch: waitlist,
      workers: 1,
      use: { ...devices["Desktop Chrome"] },
    },
    // What any deployment must do (routes, 404, headers, CSP, encodings, caching), on nginx.
    {
      name: "nginx",
      grep: /@deploy/,
      testIgnore: notHere,
      workers: 1,
      use: { ...devices["Desktop Chrome"], baseURL: nginx },
    },
    // The tour every engine must pass, over WebDriver (tests/engines/driver.ts), on the
    // second worker once the waitlist's tests are done: the Chromium project's last
    // minutes had left a core idle, and the tour after it, alone on one worker, another
    // (docs/testing.md). Its timings are measured against the engine's own timers, so the
    // load beside it decides nothing (the run beside stress-ng shows it). No project
    // depends on another: a failure anywhere hides no other result.
    { name: "firefox", testMatch: "engines.spec.ts", workers: 1 },
    { name: "webkit", testMatch: "engines.spec.ts", workers: 1 },
  ],
});
