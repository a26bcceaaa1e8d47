// @vitest-environment node
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { fieldText, interestLabels } from "../content/form";
import { CoreError, type FormUpdate, constants, loadCore } from ".";
import { loadSolver } from "./solver";

describe("the core facade", () => {
  it("loads the wasm core once for every caller", async () => {
    const [a, b] = await Promise.all([loadCore(), loadCore()]);
    expect(a).toBe(b);
  });

  it("has the retention periods the privacy notice states and the server enforces", () => {
    expect(constants.retention).toEqual({
      confirmLinkHours: 48,
      pendingDays: 7,
      inactiveYears: 2,
      mailsPerDay: 3,
    });
  });

  it("has the spec's form constants and field table before any wasm loads", async () => {
    const { form } = constants;
    expect(form.submitDelayMs).toBe(2000);
    expect(form.thankYouMs).toBe(5000);
    expect(form.deliveryTimeoutMs).toBe(10_000);
    expect(form.messageRows).toBe(4);
    expect(form.interests).toEqual(["general", "enterprise", "developer", "partnership", "press"]);
    expect(form.submitLabel).toBe("Request Early Access");
    expect(form.submittingLabel).toBe("Submitting...");
    expect(form.fields.map((f) => [f.field, f.control, f.required, f.marked])).toEqual([
      ["name", "text", true, true],
      ["email", "email", true, true],
      ["company", "text", false, false],
      ["role", "text", false, false],
      ["interest", "choice", false, false],
      ["message", "multiline", true, false],
    ]);
    // A new form's state, as the core builds it, is the state the core announces.
    const core = await loadCore();
    const fresh = core.createForm();
    expect(fresh.state()).toEqual(form.initial);
    fresh.dispose();
    expect(form.initial).toEqual({
      phase: "idle",
      values: { name: "", email: "", company: "", role: "", message: "", interest: "general" },
      errors: [],
      submitLabel: "Request Early Access",
      wakeAt: null,
      notice: null,
      proofRound: null,
    });
  });

  it("has words for every field and interest the core has, and no others", () => {
    expect(Object.keys(fieldText).sort()).toEqual(constants.form.fields.map((f) => f.field).sort());
    expect(Object.keys(interestLabels)).toEqual(constants.form.interests);
  });

  it("exposes the background constants: 25/18 shapes, five kinds, eight colours", () => {
    const { background } = constants;
    expect(background.landingShapes).toBe(25);
    expect(background.pageShapes).toBe(18);
    expect(background.kinds).toEqual(["block", "node", "triangle", "hexagon", "connection"]);
    expect(background.palette).toHaveLength(8);
    expect(new Set(background.palette).size).toBe(8);
    for (const colour of background.palette) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("runs a form through a handle: set, submit, tick, state, dispose", async () => {
    const core = await loadCore();
    const form = core.createForm();
    try {
      expect(form.submit(0)).toBe("invalid");
      expect(form.state().errors.map((e) => e.message)).toEqual([
        "Full name is required",
        "Email address is required",
        "Message is required",
      ]);
      form.set({ name: "Ada", email: "ada@example.com", message: "Hi", interest: "press" });
      expect(form.submit(10)).toBe("started");
      expect(form.state()).toMatchObject({
        phase: "submitting",
        submitLabel: "Submitting...",
        wakeAt: 2010,
      });
      expect(form.tick(2009)).toBe(false);
      expect(form.tick(2010)).toBe(true);
      expect(form.state().phase).toBe("submitted");
    } finally {
      form.dispose();
    }
  });

  it("makes backgrounds of the spec's counts that say when a canvas cannot be drawn on", async () => {
    const core = await loadCore();
    const bg = core.createBackground("landing", 1280, 720, 1);
    const page = core.createBackground("page", 1280, 720, 1);
    try {
      expect(bg.count).toBe(25);
      expect(page.count).toBe(18);
      // A canvas with another kind of context has no 2D one: no painter, no throw.
      const taken = { getContext: () => null } as unknown as HTMLCanvasElement;
      expect(bg.attach(taken, 1)).toBe(false);
      // Unattached, frames and settings move the shapes and draw nothing.
      bg.frame(16);
      bg.setFade({ left: 0, right: 100 });
      bg.setTheme("dark");
      bg.resize(390, 844, 2);
    } finally {
      bg.dispose();
      page.dispose();
    }
  });

  it("turns the core's refusals into CoreErrors with clear text, changing nothing", async () => {
    const core = await loadCore();
    const form = core.createForm();
    try {
      // The types forbid these; JavaScript callers can still make them.
      const untyped = (values: unknown) => {
        form.set(values as FormUpdate);
      };
      expect(() => {
        untyped({ interest: "sales" });
      }).toThrow(
        new CoreError(
          "set interest: unknown interest: expected one of general, enterprise, developer, partnership, press",
        ),
      );
      expect(() => {
        untyped({ phone: "1" });
      }).toThrow(/unknown field: expected one of name, email, company, role, interest, message/);
      expect(() => {
        untyped({ name: 42 });
      }).toThrow(/every form value must be a string/);
      expect(form.state()).toEqual(constants.form.initial);
      form.set({ name: "A", email: "a@b.co", message: "m" });
      form.submit(0);
      expect(() => {
        form.set({ name: "B" });
      }).toThrow(/cannot be edited while it is submitting/);
      expect(() => core.createBackground("home" as "page", 1, 1, 1)).toThrow(
        new CoreError("create a home background: unknown variant: expected landing or page"),
      );
    } finally {
      form.dispose();
    }
  });

  describe("the proof-of-work solver (./solver.ts), against ALTCHA's reference implementation", () => {
    // PyPI's altcha, as scripts/setup.sh installs it (core/solver/tests/altcha_reference.py).
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const reference = (args: string[], input = "") => {
      const run = spawnSync(
        `${root}.tools/python/bin/python`,
        [`${root}core/solver/tests/altcha_reference.py`, ...args],
        { input, encoding: "utf8" },
      );
      return { ok: run.status === 0, out: `${run.stdout}${run.stderr}`.trim() };
    };

    it("solves the reference's challenges, and the reference verifies what the wasm sends", async () => {
      const solver = await loadSolver();
      for (const counter of ["0", "700"]) {
        const created = reference(["create", "wasm secret", "100", counter]);
        expect(created.ok, created.out).toBe(true);
        const payload = solver.solve(created.out);
        const decoded = JSON.parse(Buffer.from(payload, "base64").toString()) as {
          challenge: unknown;
          solution: { counter: number };
        };
        expect(decoded.challenge).toEqual(JSON.parse(created.out));
        expect(decoded.solution.counter).toBe(Number(counter));
        expect(reference(["verify", "wasm secret"], payload)).toEqual({
          ok: true,
          out: "verified",
        });
        expect(reference(["verify", "another secret"], payload).ok).toBe(false);
      }
    });

    it("refuses what is not a challenge it can solve, with a CoreError", async () => {
      const solver = await loadSolver();
      const created = JSON.parse(reference(["create", "s", "10", "1"]).out) as {
        parameters: Record<string, unknown>;
      };
      const not = (parameters: Record<string, unknown>) =>
        JSON.stringify({ ...created, parameters: { ...created.parameters, ...parameters } });
      for (const text of [
        "",
        "{",
        "[]",
        '{"parameters":null}',
        not({ algorithm: "SCRYPT" }),
        not({ cost: 1.5 }),
        not({ cost: "10" }),
        not({ keyLength: 0 }),
        not({ nonce: "zz" }),
        not({ keyPrefix: undefined }),
      ]) {
        expect(() => solver.solve(text), text).toThrow(
          new CoreError("solve a challenge: not an ALTCHA challenge to solve"),
        );
      }
    });
  });
});
