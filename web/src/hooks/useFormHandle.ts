import { type RefObject, useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import {
  type Core,
  type FormHandle,
  type FormState,
  type FormValues,
  constants,
  wakeUps,
} from "../core";

export interface FormHandleView {
  /** The form's state as last shown (before the core is here: a new form's). */
  readonly state: FormState;
  /** The core's form, once the core is ready; null before and after. */
  readonly handle: RefObject<FormHandle | null>;
  /** Shows `form`'s current state. */
  readonly show: (form: FormHandle) => void;
  /** Sets values: in the core's form, or, until it exists, in what is shown. */
  readonly setValues: (values: Partial<FormValues>) => void;
  /** How many submits have ended back in idle: not delivered, refused or timed out. */
  readonly submitsReturned: number;
}

/**
 * Owns one form of the core's for the component's life: creates it when the core is ready
 * (handing over whatever was typed before), frees it on unmount, and wakes it at the
 * times it asks for. The clock is `performance.now()`, so a test clock that fakes timers
 * fakes both.
 */
export function useFormHandle(
  core: Core | null,
  { sending, proof }: { readonly sending: boolean; readonly proof: boolean },
): FormHandleView {
  const handle = useRef<FormHandle | null>(null);
  const [state, setState] = useState<FormState>(constants.form.initial);
  const [submitsReturned, setSubmitsReturned] = useState(0);
  /** The phase last shown, to tell a submit that ended back in idle. */
  const shownPhase = useRef(state.phase);
  const show = useCallback((form: FormHandle) => {
    const next = form.state();
    setState(next);
    if (shownPhase.current === "submitting" && next.phase === "idle") {
      setSubmitsReturned((n) => n + 1);
    }
    shownPhase.current = next.phase;
  }, []);

  // What was typed before the core was ready goes into the new form, nothing lost.
  const handOver = useEffectEvent((form: FormHandle) => {
    form.set(state.values);
  });
  useEffect(() => {
    if (!core) return;
    const form = core.createForm({ sending, proof });
    handOver(form);
    // No re-render needed: what is shown already has the values the form was just given.
    handle.current = form;
    return () => {
      handle.current = null;
      form.dispose();
    };
  }, [core, sending, proof]);

  // Woken at each wakeAt, by the package's wakeUps.
  const { wakeAt } = state;
  useEffect(() => {
    const form = handle.current;
    if (!form || wakeAt === null) return;
    const wake = wakeUps(form, () => {
      show(form);
    });
    wake.rearm();
    return () => {
      wake.stop();
    };
  }, [wakeAt, show]);

  const setValues = useCallback((values: Partial<FormValues>) => {
    const form = handle.current;
    if (form) {
      form.set(values);
      setState(form.state());
    } else {
      setState((s) => ({ ...s, values: { ...s.values, ...values } }));
    }
  }, []);

  return { state, handle, show, setValues, submitsReturned };
}
