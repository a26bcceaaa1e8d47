// `lathe-core/wake`: wakes a form at the times it asks for, so that no caller has to get
// timers right. A timer may fire early (the clock and the timer disagree by a
// millisecond) or late (browsers batch long timers: Firefox fires a 5 s timer up to
// 625 ms late); this sleeps in steps of at most `maxSleepMs`, and after an early wake-up
// sleeps the rest, until `tick` moves the form on.

/** What `wakeUps` needs of a form; `WaitlistForm` has both. */
export interface Wakeable {
  /** Advances to `now`; true if the state changed. */
  tick(now: number): boolean;
  /** When `tick` should next be called, or null. */
  state(): { readonly wakeAt: number | null | undefined };
}

/**
 * The longest single sleep by default, in ms: Firefox may fire a timer up to an eighth of
 * its delay late to batch wake-ups; in steps of 100 ms, a transition is never more than
 * ~12 ms late.
 */
export const MAX_SLEEP_MS = 100;

/** Options for `wakeUps`. */
export interface WakeOptions {
  /** The clock the form is given (`performance.now` by default). */
  readonly now?: () => number;
  /** The longest single sleep, in ms (`MAX_SLEEP_MS` by default). */
  readonly maxSleepMs?: number;
}

/** The wake-ups of one form. */
export interface WakeUps {
  /**
   * Reads the form's `wakeAt` again and sleeps until then: call it after anything that
   * may change it (`submit`, `delivered`, `failed`, `refused`, `update`).
   */
  rearm(): void;
  /** Stops waking the form (before `free()`). */
  stop(): void;
}

/**
 * Wakes `form` at every `wakeAt` it asks for, calling `onChange` after each `tick` that
 * changed its state, until `stop()`.
 *
 * ```ts
 * const wake = wakeUps(form, () => render(form.state()));
 * form.submit(performance.now());
 * wake.rearm(); // "submitting" → "submitted" after 2 s → "idle" after 5 s more
 * ```
 */
export function wakeUps(form: Wakeable, onChange: () => void, options: WakeOptions = {}): WakeUps {
  const now = options.now ?? (() => performance.now());
  const maxSleepMs = options.maxSleepMs ?? MAX_SLEEP_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const sleep = () => {
    clearTimeout(timer);
    timer = undefined;
    // Stopped (perhaps by onChange, which may also have freed the form): never touch it.
    if (stopped) return;
    const at = form.state().wakeAt;
    if (at === null || at === undefined) return;
    timer = setTimeout(wake, Math.min(maxSleepMs, Math.max(0, at - now())));
  };
  const wake = () => {
    timer = undefined;
    if (stopped) return;
    const at = form.state().wakeAt;
    if (at === null || at === undefined) return;
    const t = now();
    if (t >= at) {
      // Due: a form that does not move on now would not later either.
      if (!form.tick(t)) return;
      onChange();
    }
    // Early, or moved on to a new deadline (the panel's 5 s): sleep again.
    sleep();
  };

  return {
    rearm: sleep,
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
