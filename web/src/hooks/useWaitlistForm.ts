import { useCallback } from "react";
import type { Core, Field, FieldError, FormState, SubmitOutcome } from "../core";
import { useFormDraft } from "./useFormDraft";
import { useFormHandle } from "./useFormHandle";
import { useProofOfWork } from "./useProofOfWork";
import { type SendTo, useSending } from "./useSending";

export type { SendTo } from "./useSending";

export interface SubmitResult {
  readonly outcome: SubmitOutcome;
  readonly errors: readonly FieldError[];
}

export interface WaitlistFormHandle extends FormState {
  readonly set: (field: Field, value: string) => void;
  /**
   * What the core did with the submit and the errors it found; null without a core. A
   * form that sends posts its values (and `honeypot`) once the core has started.
   */
  readonly submit: (honeypot?: string) => SubmitResult | null;
  /** How many submits have ended back in idle: not delivered, refused or timed out. */
  readonly submitsReturned: number;
}

/**
 * The waitlist form: the core's form (useFormHandle), a draft that survives a refresh
 * (useFormDraft) and, given `sendTo`, sending (useSending) with a proof of work when it
 * names where challenges come from (useProofOfWork). Without `sendTo` it behaves as the
 * original site did.
 */
export function useWaitlistForm(
  core: Core | null,
  sendTo: SendTo | null = null,
): WaitlistFormHandle {
  const { state, handle, show, setValues, submitsReturned } = useFormHandle(core, {
    sending: sendTo !== null,
    proof: sendTo?.challenge != null,
  });
  useFormDraft(state.values, state.phase, setValues);
  const { send, flush } = useSending(handle, show, sendTo, state.phase);
  useProofOfWork(handle, show, flush, sendTo?.challenge ?? null, state.proofRound);

  const set = useCallback(
    (field: Field, value: string) => {
      setValues({ [field]: value });
    },
    [setValues],
  );

  const submit = useCallback(
    (honeypot = ""): SubmitResult | null => {
      const form = handle.current;
      if (!form) return null;
      const outcome = form.submit(performance.now());
      show(form);
      if (outcome === "started") send(form, honeypot);
      return { outcome, errors: form.state().errors };
    },
    [handle, show, send],
  );

  return { ...state, submitsReturned, set, submit };
}
