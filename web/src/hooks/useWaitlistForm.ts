import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import {
  type Core,
  type Field,
  type FieldError,
  type FormHandle,
  type FormValues,
  type Notice,
  type Phase,
  type SubmitOutcome,
  constants,
  wakeUps,
} from "../core";
import { clearDraft, loadDraft, saveDraft } from "./formDraft";
import { sendSignUp } from "./sendSignUp";

export interface WaitlistFormView {
  readonly phase: Phase;
  readonly values: FormValues;
  readonly errors: readonly FieldError[];
  readonly submitLabel: string;
  /** "not-sent" when the last submit could not be delivered (a form that sends only). */
  readonly notice: Notice | null;
}

/** Where a form that sends posts its sign-ups, and what it says with them. */
export interface SendTo {
  /** The endpoint (WAITLIST_URL). */
  readonly endpoint: string;
  /** The version of the privacy notice shown beside the form. */
  readonly privacyNotice: string;
}

export interface SubmitResult {
  readonly outcome: SubmitOutcome;
  readonly errors: readonly FieldError[];
}

export interface WaitlistFormHandle extends WaitlistFormView {
  readonly set: (field: Field, value: string) => void;
  /**
   * What the core did with the submit and the errors it found; null without a core. A
   * form that sends posts its values (and `honeypot`) once the core has started.
   */
  readonly submit: (honeypot?: string) => SubmitResult | null;
  /** How many submits have ended back in idle (not delivered, refused, timed out). */
  readonly failures: number;
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
 *
 * Given `sendTo`, the form sends: a valid submit posts the values there and reports to
 * the core how it went (the core decides what the form shows, and gives up after 10 s,
 * when the request is abandoned). Without, it behaves as the original site did.
 */
export function useWaitlistForm(
  core: Core | null,
  sendTo: SendTo | null = null,
): WaitlistFormHandle {
  const formRef = useRef<FormHandle | null>(null);
  /** The request under way, abandoned once the form stops waiting for it. */
  const sendingRef = useRef<AbortController | null>(null);
  const sending = sendTo !== null;
  // Before the core is here: the state of a new form, as the core describes it.
  const [view, setView] = useState<WaitlistFormView & { wakeAt: number | null }>(
    constants.form.initial,
  );
  const [failures, setFailures] = useState(0);
  /** The phase last shown, to tell a submit that ended back in idle: a failure. */
  const shownPhase = useRef<Phase>(view.phase);
  /** Shows the form's new state. */
  const show = useCallback((form: FormHandle) => {
    const state = form.state();
    setView(state);
    if (shownPhase.current === "submitting" && state.phase === "idle") setFailures((n) => n + 1);
    shownPhase.current = state.phase;
  }, []);
  // What was typed before the core was ready goes into the new form, nothing lost.
  const handOverDraft = useEffectEvent((form: FormHandle) => {
    form.set(view.values);
  });

  useEffect(() => {
    if (!core) return;
    const form = core.createForm({ sending });
    handOverDraft(form);
    // No re-render needed: the view already shows the draft the form was just given.
    formRef.current = form;
    return () => {
      formRef.current = null;
      sendingRef.current?.abort();
      form.dispose();
    };
  }, [core, sending]);

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

  // Woken at each wakeAt (the package's wakeUps: early timers sleep the rest, long
  // sleeps are cut into MAX_SLEEP_MS steps so a browser that fires them late is never
  // more than a few ms late).
  const { wakeAt } = view;
  useEffect(() => {
    const form = formRef.current;
    if (!form || wakeAt === null) return;
    const wake = wakeUps(
      form,
      () => {
        show(form);
      },
      { maxSleepMs: MAX_SLEEP_MS },
    );
    wake.rearm();
    return () => {
      wake.stop();
    };
  }, [wakeAt, show]);

  // A request the form no longer waits for (it timed out) is abandoned.
  const { values, phase } = view;
  useEffect(() => {
    if (phase !== "submitting") sendingRef.current?.abort();
  }, [phase]);

  // Keep a draft while idle, and while a submit is under way (it may fail); the thank-you
  // panel clears it (the reset empties the form).
  useEffect(() => {
    if (phase === "submitted") {
      clearDraft();
      return;
    }
    if (phase !== "idle") return;
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

  const endpoint = sendTo?.endpoint;
  const privacyNotice = sendTo?.privacyNotice ?? "";
  const submit = useCallback(
    (honeypot = ""): SubmitResult | null => {
      const form = formRef.current;
      if (!form) return null;
      const outcome = form.submit(performance.now());
      show(form);
      const state = form.state();
      if (outcome === "started" && endpoint !== undefined) {
        const attempt = form.attempt();
        const controller = new AbortController();
        sendingRef.current = controller;
        const signUp = { ...state.values, privacyNotice, website: honeypot };
        void sendSignUp(endpoint, signUp, controller.signal).then((delivery) => {
          // A form since disposed, or a request abandoned: nobody waits for the answer.
          if (formRef.current !== form || delivery.kind === "aborted") return;
          const changed =
            delivery.kind === "delivered"
              ? form.delivered(attempt, performance.now())
              : delivery.kind === "refused"
                ? form.refused(attempt, delivery.errors)
                : form.failed(attempt);
          if (changed) show(form);
        });
      }
      return { outcome, errors: state.errors };
    },
    [endpoint, privacyNotice, show],
  );

  return { ...view, failures, set, submit };
}
