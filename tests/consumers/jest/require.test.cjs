// Jest with no configuration, as most React projects run it: require() of the default
// entry (what babel-jest and ts-jest compile imports to).
const core = require("lathe-core");

test("require: a form reaches submitted and a background steps", async () => {
  const { scenario } = await import("../scenario.js");
  expect(scenario(core)).toBe("submitted 25");
  expect(core.isValidEmail("ada@example.com")).toBe(true);
});
