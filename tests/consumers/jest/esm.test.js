// Jest with no configuration, as ES modules: `import` of the default entry.
import { expect, test } from "@jest/globals";
import * as core from "lathe-core";
import { scenario } from "../scenario.js";

test("import: a form reaches submitted and a background steps", () => {
  expect(scenario(core)).toBe("submitted 25");
  expect(core.isValidEmail("ada@example.com")).toBe(true);
});
