// @vitest-environment node
import { formDefaults, interestLabels } from "../content/form";
import { CoreError, call, errorFor, loadCore, setField } from ".";

describe("the core facade", () => {
  it("loads the wasm core once for every caller", async () => {
    const [a, b] = await Promise.all([loadCore(), loadCore()]);
    expect(a).toBe(b);
  });

  it("exposes the spec's form constants", async () => {
    const { form } = await loadCore();
    expect(form).toEqual({
      submitDelayMs: 2000,
      thankYouMs: 5000,
      messageRows: 4,
      interests: ["general", "enterprise", "developer", "partnership", "press"],
      requiredFields: ["name", "email", "message"],
      submitLabel: "Request Early Access",
      submittingLabel: "Submitting...",
    });
  });

  it("matches the first-paint defaults the UI renders before the core loads", async () => {
    const core = await loadCore();
    const form = core.createForm();
    try {
      expect(form.state().values).toEqual(formDefaults.values);
      expect(formDefaults.messageRows).toBe(core.form.messageRows);
      expect(formDefaults.submitLabel).toBe(core.form.submitLabel);
      expect(Object.keys(interestLabels)).toEqual(core.form.interests);
    } finally {
      form.free();
    }
  });

  it("exposes the background constants: 25/18 shapes, five kinds, eight colours", async () => {
    const { background } = await loadCore();
    expect(background.landingShapes).toBe(25);
    expect(background.pageShapes).toBe(18);
    expect(background.kinds).toEqual(["block", "node", "triangle", "hexagon", "connection"]);
    expect(background.palette).toHaveLength(8);
    expect(new Set(background.palette).size).toBe(8);
    for (const colour of background.palette) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("reads shapes in place, reusing the view until memory grows", async () => {
    const core = await loadCore();
    const { stride, offsets } = core.background;
    const bg = core.createBackground("landing", 1280, 720, 1);
    const page = core.createBackground("page", 1280, 720, 1);
    try {
      const view = core.shapes(bg);
      expect(view).toHaveLength(25 * stride);
      expect(core.shapes(page)).toHaveLength(18 * stride);
      expect(core.shapes(bg)).toBe(view);
      const x0 = view[offsets.x];
      bg.step(16);
      expect(core.shapes(bg)).toBe(view);
      const x1 = view[offsets.x];
      expect(x1).not.toBe(x0);

      // Grow wasm memory with a large allocation: the old view's buffer is detached.
      const form = core.createForm();
      setField(form, "message", "x".repeat(4_000_000));
      expect(view.buffer.byteLength).toBe(0);
      const fresh = core.shapes(bg);
      expect(Object.is(fresh, view)).toBe(false);
      expect(fresh).toHaveLength(25 * stride);
      expect(fresh[offsets.x]).toBe(x1);
      form.free();
    } finally {
      bg.free();
      page.free();
    }
  });

  it("turns the core's refusals into CoreErrors with clear text", async () => {
    const core = await loadCore();
    const form = core.createForm();
    try {
      expect(() => {
        setField(form, "interest", "sales");
      }).toThrow(
        new CoreError(
          "set interest: unknown interest: expected one of general, enterprise, developer, partnership, press",
        ),
      );
      expect(() => {
        call("parse", () => {
          JSON.parse("{");
        });
      }).toThrow(CoreError);
    } finally {
      form.free();
    }
  });

  it("finds a field's error message", async () => {
    const core = await loadCore();
    const form = core.createForm();
    form.submit(0);
    const { errors } = form.state();
    expect(errorFor(errors, "name")).toBe("Full name is required");
    expect(errorFor(errors, "email")).toBe("Email address is required");
    expect(errorFor(errors, "message")).toBe("Message is required");
    expect(errorFor(errors, "company")).toBeUndefined();
    expect(core.isValidEmail("ada@example.com")).toBe(true);
    expect(core.isValidEmail("ada@example")).toBe(false);
    form.free();
  });
});
