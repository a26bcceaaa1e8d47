// The typed facade over the wasm core (the `lathe-core` package built into pkg/). It
// is the only module that imports the package, and nothing else touches the generated
// classes: hooks get handles (a form, a background) that say what they can do and are
// disposed of once. The core is loaded once, on demand, so pages render without waiting
// for it and keep working if it cannot load. Its constants need no wasm: the package
// ships them as JSON, written from the same Rust values (see `make pkg`).

import type {
  BackgroundConstants,
  FormConstants,
  FormState,
  FormUpdate,
  Outgoing,
  RetentionConstants,
  SubmitOutcome,
  Variant,
} from "lathe-core/web";
import constantsJson from "lathe-core/constants.json";
import wasmUrl from "lathe-core/wasm?url";
import { CoreError } from "./error";

/** Wakes a form at the times it asks for (the package's helper; no wasm needed). */
export { wakeUps } from "lathe-core/wake";

export type {
  BackgroundConstants,
  Control,
  Field,
  FieldError,
  FieldSpec,
  FormConstants,
  FormState,
  FormUpdate,
  FormValues,
  Interest,
  Notice,
  Outgoing,
  Phase,
  RetentionConstants,
  ShapeKind,
  SubmitOutcome,
  Variant,
} from "lathe-core/bundler";

/** The core's fixed values, there at once: for the first paint and the prerendered HTML. */
export const constants = constantsJson as {
  readonly form: FormConstants;
  readonly background: BackgroundConstants;
  readonly retention: RetentionConstants;
};

export { CoreError };

/** A field error as a server running the core's rules reports it. */
export interface ReportedFieldError {
  readonly field: string;
  readonly code: string;
}

/** One waitlist form in the core: idle → submitting → submitted → idle. */
export interface FormHandle {
  /** Sets the values given; a `CoreError` if the form is busy or a value is not allowed. */
  set(values: FormUpdate): void;
  /** Submits at `now` (the clock `tick` is given too). */
  submit(now: number): SubmitOutcome;
  /** The number of the last valid submit: a sending form reports its outcome with it. */
  attempt(): number;
  /** Submit `attempt` was delivered at `now`: the thank-you panel. False if stale. */
  delivered(attempt: number, now: number): boolean;
  /** Submit `attempt` could not be delivered: idle, everything kept, notice "not-sent". */
  failed(attempt: number): boolean;
  /** The server refused submit `attempt` for these fields: idle, with their errors. */
  refused(attempt: number, errors: readonly ReportedFieldError[]): boolean;
  /**
   * The send to make now, once (after `submit`, and after each report of proof of work):
   * the attempt to report with and the `altcha` field. Undefined when there is none.
   */
  takeSend(): Outgoing | undefined;
  /** Round `round` of proof of work (`state().proofRound`) is solved: its payload. */
  solved(round: number, payload: string): boolean;
  /** Round `round` could not be solved: a submit waiting for it fails. */
  unsolved(round: number): boolean;
  /** The server issues no challenges (round `round` found none): sends go without. */
  proofNotRequired(round: number): boolean;
  /** The server refused submit `attempt`'s proof at `now`: a new one, and one retry. */
  proofRefused(attempt: number, now: number): boolean;
  /** Advances to `now`; true if the state changed. Call it at `state().wakeAt`. */
  tick(now: number): boolean;
  /** Everything the form renders. */
  state(): FormState;
  /** Frees the form's wasm memory; the handle must not be used again. */
  dispose(): void;
}

/**
 * One background simulation in the core, and the core's painter: every number of the
 * drawing (outlines, inks, the fade behind text) is the core's.
 */
export interface BackgroundHandle {
  /** How many shapes it has: 25 on the landing page, 18 elsewhere. */
  readonly count: number;
  /**
   * Draws on `canvas` from now on, `pixelRatio` device pixels per CSS pixel: sizes it to
   * the viewport and draws at once. False where the canvas has no 2D context.
   */
  attach(canvas: HTMLCanvasElement, pixelRatio: number): boolean;
  /**
   * One refresh of the screen, `dtMs` milliseconds after the last: once the core's
   * `frameMs` have passed since the last drawn frame, moves the shapes on by all that time
   * and draws them (about 30 frames a second on any screen). Whether it drew.
   */
  frame(dtMs: number): boolean;
  /** Follows a viewport resize (CSS pixels) and a new pixel ratio; redraws. */
  resize(width: number, height: number, pixelRatio: number): void;
  /** Draws with the theme's ink (the core's, per theme); redraws. */
  setTheme(theme: keyof BackgroundConstants["inks"]): void;
  /** Shapes behind this band (CSS pixels from the left: the text column) show fainter. */
  setFade(band: { readonly left: number; readonly right: number } | null): void;
  /** Frees the simulation's wasm memory; the handle must not be used again. */
  dispose(): void;
}

/** The core, loaded and ready. */
export interface Core {
  /**
   * A new idle, empty form. With `sending`, a valid submit waits for the caller to send
   * the values and report the outcome (at most 10 s); without, it thanks after 2 s. With
   * `proof` too, each send carries a proof of work the caller fetches and solves
   * (`loadSolver`, ./solver.ts) when `state().proofRound` asks.
   */
  createForm(options?: { readonly sending?: boolean; readonly proof?: boolean }): FormHandle;
  /** A new background for a `width` × `height` viewport; the same seed, the same shapes. */
  createBackground(variant: Variant, width: number, height: number, seed: number): BackgroundHandle;
  /** Whether `code` has a referral code's shape (the share link's `?ref=`). */
  isReferralCode(code: string): boolean;
}

type Package = typeof import("lathe-core/web");

let loading: Promise<Core> | undefined;

/**
 * Loads the core once; every caller shares the same promise. Through the package's `web`
 * entry, which starts the `.wasm` (a file of its own, compiled as it streams in) when
 * called: no module with a top-level `await`, which WebKit's module loader can spin on
 * forever (see README, "Why not vite-plugin-wasm"). A core that cannot load
 * (blocked, an old browser) is said once on the console, with its cause: some engines
 * (WebKit, when a policy blocks the wasm) report nothing else at all.
 */
export function loadCore(): Promise<Core> {
  loading ??= import("lathe-core/web")
    .then(async (pkg) => {
      await pkg.default({ module_or_path: wasmUrl });
      return createCore(pkg);
    })
    .catch((cause: unknown) => {
      console.error("Lathe: the wasm core could not load; the form cannot be sent.", cause);
      throw cause;
    });
  return loading;
}

/** Runs a call into the core, turning what it throws into a `CoreError`. */
function call<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new CoreError(`${what}: ${detail}`, { cause });
  }
}

function createCore(pkg: Package): Core {
  return {
    createForm(options) {
      const form = !options?.sending
        ? new pkg.WaitlistForm()
        : options.proof
          ? pkg.WaitlistForm.sendingWithProof()
          : pkg.WaitlistForm.sending();
      return {
        set: (values) => {
          call(`set ${Object.keys(values).join(", ")}`, () => {
            form.update(values);
          });
        },
        submit: (now) => form.submit(now),
        attempt: () => form.attempt(),
        delivered: (attempt, now) => form.delivered(attempt, now),
        failed: (attempt) => form.failed(attempt),
        refused: (attempt, errors) => call("report a refusal", () => form.refused(attempt, errors)),
        takeSend: () => form.takeSend(),
        solved: (round, payload) => form.solved(round, payload),
        unsolved: (round) => form.unsolved(round),
        proofNotRequired: (round) => form.proofNotRequired(round),
        proofRefused: (attempt, now) => form.proofRefused(attempt, now),
        tick: (now) => form.tick(now),
        state: () => form.state(),
        dispose: () => {
          form.free();
        },
      };
    },
    createBackground(variant, width, height, seed) {
      const background = call(
        `create a ${variant} background`,
        () => new pkg.Background(variant, width, height, seed),
      );
      return {
        count: background.count,
        attach: (canvas, pixelRatio) => {
          try {
            background.attach(canvas, pixelRatio);
            return true;
          } catch {
            return false; // another kind of context was taken first
          }
        },
        frame: (dtMs) => background.frame(dtMs),
        resize: (width, height, pixelRatio) => {
          background.resize(width, height, pixelRatio);
        },
        setTheme: (theme) => {
          const { fill, stroke } = constants.background.inks[theme];
          background.setInk(fill, stroke);
        },
        setFade: (band) => {
          if (band) background.setFade(band.left, band.right);
          else background.clearFade();
        },
        dispose: () => {
          background.free();
        },
      };
    },
    isReferralCode: (code) => pkg.isReferralCode(code),
  };
}
