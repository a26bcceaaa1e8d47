// The typed facade over the wasm core (the `lathe-core` package built into pkg/).
// It is the only module that imports the package. The core is loaded once, on demand,
// so pages render without waiting for it and keep working if it cannot load.

import type {
  Background,
  BackgroundConstants,
  Field,
  FieldError,
  FormValues,
  FormConstants,
  FormState,
  WaitlistForm,
} from "lathe-core";

export type {
  Background,
  BackgroundConstants,
  Field,
  FieldError,
  FormConstants,
  FormState,
  FormValues,
  Interest,
  Phase,
  ShapeKind,
  SubmitOutcome,
  WaitlistForm,
} from "lathe-core";

/** Which page a background is behind: 25 shapes on the landing page, 18 elsewhere. */
export type Variant = "landing" | "page";

/** A call into the core that failed: a programmer error, never a visitor's. */
export class CoreError extends Error {
  override readonly name = "CoreError";
}

/** The core, loaded and ready. */
export interface Core {
  readonly form: FormConstants;
  readonly background: BackgroundConstants;
  /** A new idle, empty form. The caller owns it and must `free()` it. */
  createForm(): WaitlistForm;
  /** A new background for a viewport. The caller owns it and must `free()` it. */
  createBackground(variant: Variant, width: number, height: number, seed: number): Background;
  /**
   * The background's shape rows, read in place from wasm memory: `stride` numbers per
   * shape. The view is reused across frames and made anew only when memory grows.
   */
  shapes(background: Background): Float32Array;
  isValidEmail(email: string): boolean;
}

type Package = typeof import("lathe-core");

let loading: Promise<Core> | undefined;

/** Loads the core once; every caller shares the same promise. */
export function loadCore(): Promise<Core> {
  loading ??= import("lathe-core").then(createCore);
  return loading;
}

/** Runs a call into the core, turning what it throws into a `CoreError`. */
export function call<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new CoreError(`${what}: ${detail}`, { cause });
  }
}

function createCore(pkg: Package): Core {
  const form = pkg.formConstants();
  const background = pkg.backgroundConstants();
  const memory = pkg.wasmMemory();
  const views = new WeakMap<Background, Float32Array>();

  return {
    form,
    background,
    createForm: () => new pkg.WaitlistForm(),
    createBackground: (variant, width, height, seed) =>
      variant === "landing"
        ? pkg.Background.landing(width, height, seed)
        : pkg.Background.page(width, height, seed),
    shapes(bg) {
      let view = views.get(bg);
      // When memory grows, `memory.buffer` is a new buffer and old views are detached.
      if (view?.buffer !== memory.buffer) {
        view = new Float32Array(memory.buffer, bg.shapesPtr(), bg.count * background.stride);
        views.set(bg, view);
      }
      return view;
    },
    isValidEmail: (email) => pkg.isValidEmail(email),
  };
}

/** Sets a form field through the core; a `CoreError` if the core refuses. */
export function setField(form: WaitlistForm, field: keyof FormState["values"], value: string) {
  call(`set ${field}`, () => {
    form.set(field, value);
  });
}

/** Sets every field of a form from a set of values. */
export function setValues(form: WaitlistForm, values: FormValues) {
  for (const [field, value] of Object.entries(values) as [Field, string][]) {
    setField(form, field, value);
  }
}

/** The message to show beneath a field, if it has an error. */
export function errorFor(errors: readonly FieldError[], field: Field): string | undefined {
  return errors.find((e) => e.field === field)?.message;
}
