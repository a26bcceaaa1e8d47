// Vitest, with no configuration: the package in the test's own environment.
import * as core from "lathe-core";
import { expect, test } from "vitest";
import { scenario } from "../scenario.js";

test("a form reaches submitted and a background steps", () => {
  expect(scenario(core)).toBe("submitted 25");
  expect(core.isValidEmail("ada@example.com")).toBe(true);
});
