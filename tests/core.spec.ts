import { expect, test } from "@playwright/test";

test("the production bundle loads the wasm core and the form uses it", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));

  const wasm = page.waitForResponse((r) => r.url().endsWith(".wasm"));
  await page.goto("/contact");
  const response = await wasm;
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toBe("application/wasm");

  // Only the core knows these messages: seeing them means the wasm ran in the bundle.
  await page.getByRole("button", { name: "Request Early Access" }).click();
  await expect(page.getByText("Full name is required")).toBeVisible();
  await expect(page.getByText("Email address is required")).toBeVisible();
  await expect(page.getByText("Message is required")).toBeVisible();
  expect(errors).toEqual([]);
});
