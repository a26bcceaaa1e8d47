// One ESLint configuration for the whole repository: the app (web/), the browser tests
// (tests/), the benchmark (bench/) and the build scripts. TypeScript is linted with type
// information (typescript-eslint strict), the Node scripts without.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules",
      "pkg",
      ".tools",
      "target",
      "fuzz",
      "web/dist",
      "web/dist-server",
      "web/dist-waitlist",
      "web/dist-waitlist-server",
      "test-results",
      // Consumer projects: code as a user of the package writes it, checked by
      // tests/consumers/run.mjs with their own tools (tsc, Vitest, Next.js).
      "tests/consumers/*",
      "!tests/consumers/run.mjs",
      "!tests/consumers/scenario.js",
      "playwright-report",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ["web/src/**/*.{ts,tsx}"],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["web/vite.config.ts", "tests/**/*.ts"],
    languageOptions: { globals: globals.node },
  },
  {
    // Plain JavaScript: the Node build, serve and bench scripts, and this file.
    files: ["**/*.{js,mjs}"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    // The benchmark and the consumer tests also run functions in the page (Playwright).
    files: ["bench/**/*.mjs", "tests/consumers/run.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
