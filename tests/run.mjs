// `npm test -w tests` (make test-e2e): the Playwright suite in two runs, one after the
// other, each reported whatever the other did, and failing if either failed:
//   1. Chromium (the whole suite, the waitlist's tests as a project of their own) and
//      nginx (the @deploy tests), as playwright.config.ts schedules them;
//   2. the engine tour, Firefox then WebKit, one worker, with nothing else running, since
//      its timings are real.
// Arguments are passed to both runs (a file name, --grep, ...).
import { spawnSync } from "node:child_process";

const runs = [
  ["--project", "chromium", "--project", "waitlist", "--project", "nginx", "--pass-with-no-tests"],
  ["--project", "firefox", "--project", "webkit", "--workers", "1", "--pass-with-no-tests"],
];
let failed = 0;
for (const projects of runs) {
  const { status } = spawnSync(
    "npx",
    ["playwright", "test", ...projects, ...process.argv.slice(2)],
    {
      stdio: "inherit",
    },
  );
  if (status !== 0) failed += 1;
}
if (failed) console.error(`${failed} of ${runs.length} Playwright runs failed`);
process.exit(failed ? 1 : 0);
