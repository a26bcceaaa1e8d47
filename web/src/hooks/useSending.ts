import { type RefObject, useCallback, useEffect, useRef } from "react";
import type { FormHandle, Phase } from "../core";
import { sendSignUp } from "./sendSignUp";

/** Where a form that sends posts its sign-ups, and what it says with them. */
export interface SendTo {
  /** The endpoint (WAITLIST_URL). */
  readonly endpoint: string;
  /** The version of the privacy notice shown beside the form. */
  readonly privacyNotice: string;
  /**
   * Where the proof-of-work challenges come from (the endpoint's `/challenge`); null for
   * a form that sends without one.
   */
  readonly challenge: string | null;
  /** The code of the share link the visitor came by (`ref`), or null. */
  readonly referral: string | null;
}

/** A form's sending: what `useSending` returns. */
export interface Sending {
  /** After a submit the core started: keeps `honeypot` for its sends and makes the first. */
  readonly send: (form: FormHandle, honeypot: string) => void;
  /** Makes the send the core has queued, if any (after each report to it). */
  readonly flush: (form: FormHandle) => void;
}

/**
 * Makes the sends the core queues (`takeSend`) to `sendTo` and reports to the core how
 * each went (the core decides what the form shows, retries a refused proof of work once,
 * and gives up after 10 s). A request the form no longer waits for, because it timed out
 * or the form is gone, is abandoned.
 */
export function useSending(
  handle: RefObject<FormHandle | null>,
  show: (form: FormHandle) => void,
  sendTo: SendTo | null,
  phase: Phase,
): Sending {
  /** The request under way. */
  const request = useRef<AbortController | null>(null);
  /** The honeypot as it was at the submit under way. */
  const honeypot = useRef("");
  useEffect(() => {
    if (phase !== "submitting") request.current?.abort();
  }, [phase]);
  useEffect(
    () => () => {
      request.current?.abort();
    },
    [],
  );

  const endpoint = sendTo?.endpoint;
  const privacyNotice = sendTo?.privacyNotice ?? "";
  const referral = sendTo?.referral ?? null;
  const flush = useCallback(
    function flush(form: FormHandle) {
      if (endpoint === undefined) return;
      const outgoing = form.takeSend();
      if (!outgoing) return;
      const { attempt, altcha } = outgoing;
      const controller = new AbortController();
      request.current = controller;
      const signUp = {
        ...form.state().values,
        privacyNotice,
        website: honeypot.current,
        ...(altcha === null ? {} : { altcha }),
        ...(referral === null ? {} : { ref: referral }),
      };
      void sendSignUp(endpoint, signUp, controller.signal).then((delivery) => {
        // A form since disposed, or a request abandoned: nobody waits for the answer.
        if (handle.current !== form || delivery.kind === "aborted") return;
        const now = performance.now();
        const changed =
          delivery.kind === "delivered"
            ? form.delivered(attempt, now)
            : delivery.kind === "refused"
              ? form.refused(attempt, delivery.errors)
              : delivery.kind === "proof-refused"
                ? form.proofRefused(attempt, now)
                : form.failed(attempt);
        if (changed) {
          show(form);
          flush(form);
        }
      });
    },
    [endpoint, privacyNotice, referral, handle, show],
  );
  const send = useCallback(
    (form: FormHandle, value: string) => {
      honeypot.current = value;
      flush(form);
    },
    [flush],
  );
  return { send, flush };
}
