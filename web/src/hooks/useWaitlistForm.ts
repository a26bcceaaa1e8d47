import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import {
  type Core,
  type Field,
  type FieldError,
  type FormHandle,
  type FormValues,
  type Phase,
  type SubmitOutcome,
  constants,
} from "../core";
import { clearDraft, loadDraft, saveDraft } from "./formDraft";

export interface WaitlistFormView {
  readonly phase: Phase;
  readonly values: FormValues;
  readonly errors: readonly FieldError[];
  readonly submitLabel: string;
}

export interface SubmitResult {
  readonly outcome: SubmitOutcome;
  readonly errors: readonly FieldError[];
}

export interface WaitlistFormHandle extends WaitlistFormView {
  readonly set: (field: Field, value: string) => void;
  /** What the core did with the submit and the errors it found; null without a core. */
  readonly submit: () => SubmitResult | null;
}

/**
 * The longest the form sleeps at once while it waits for its next transition. Firefox may
 * fire a timer up to an eighth of its delay late (a 5 s timer: up to 625 ms) to batch
 * wake-ups; in steps of 100 ms, a transition is never more than ~12 ms late.
 */
const MAX_SLEEP_MS = 100;

/** The draft is written this long after typing pauses, and on leaving the page. */
const DRAFT_SAVE_DELAY_MS = 300;

/**
 * Owns one form handle from the core for the component's life: creates it when the core is
 * ready (handing over whatever was typed before), frees it on unmount, and wakes it at
 * the times it asks for. The clock is `performance.now()`, so a test clock that fakes
 * timers fakes both.
 */
export function useWaitlistForm(core: Core | null): WaitlistFormHandle {
  const formRef = useRef<FormHandle | null>(null);
  // Before the core is here: the state of a new form, as the core describes it.
  const [view, setView] = useState<WaitlistFormView & { wakeAt: number | null }>(
    constants.form.initial,
  );
  // What was typed before the core was ready goes into the new form, nothing lost.
  const handOverDraft = useEffectEvent((form: FormHandle) => {
    form.set(view.values);
  });

  useEffect(() => {
    if (!core) return;
    const form = core.createForm();
    handOverDraft(form);
    // No re-render needed: the view already shows the draft the form was just given.
    formRef.current = form;
    return () => {
      formRef.current = null;
      form.dispose();
    };
  }, [core]);

  // A draft from before a refresh, restored after hydration (the server has no
  // sessionStorage, so the first render must match its HTML). Runs after the effect
  // above, so a form that already exists receives the draft directly.
  useEffect(() => {
    const draft = loadDraft();
    if (!draft) return;
    const form = formRef.current;
    form?.set(draft);
    setView((v) => (form ? form.state() : { ...v, values: draft }));
  }, []);

  const { wakeAt } = view;
  useEffect(() => {
    const form = formRef.current;
    if (!form || wakeAt === null) return;
    let timer: ReturnType<typeof setTimeout>;
    // Woken early (a timer, clock rounding), sleep again; never more than MAX_SLEEP_MS at
    // once, so that a browser that fires long timers late lands within a few ms of wakeAt.
    const sleep = () => {
      timer = setTimeout(wake, Math.min(MAX_SLEEP_MS, Math.max(0, wakeAt - performance.now())));
    };
    const wake = () => {
      const now = performance.now();
      if (now < wakeAt) sleep();
      else if (form.tick(now)) setView(form.state());
    };
    sleep();
    return () => {
      clearTimeout(timer);
    };
  }, [wakeAt]);

  // Keep a draft while idle; a submit that starts clears it (the reset empties the form).
  const { values, phase } = view;
  useEffect(() => {
    if (phase !== "idle") {
      clearDraft();
      return;
    }
    const timer = setTimeout(() => {
      saveDraft(values);
    }, DRAFT_SAVE_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [values, phase]);

  const saveNow = useEffectEvent(() => {
    if (phase === "idle") saveDraft(values);
  });
  useEffect(() => {
    const onLeave = () => {
      saveNow();
    };
    addEventListener("pagehide", onLeave);
    return () => {
      removeEventListener("pagehide", onLeave);
    };
  }, []);

  const set = useCallback((field: Field, value: string) => {
    const form = formRef.current;
    if (form) {
      form.set({ [field]: value });
      setView(form.state());
    } else {
      setView((v) => ({ ...v, values: { ...v.values, [field]: value } }));
    }
  }, []);

  const submit = useCallback((): SubmitResult | null => {
    const form = formRef.current;
    if (!form) return null;
    const outcome = form.submit(performance.now());
    const state = form.state();
    setView(state);
    return { outcome, errors: state.errors };
  }, []);

  return { ...view, set, submit };
}
