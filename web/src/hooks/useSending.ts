import { type RefObject, useCallback, useEffect, useRef } from "react";
import type { FormHandle, Phase } from "../core";
import { sendSignUp } from "./sendSignUp";

/** Where a form that sends posts its sign-ups, and what it says with them. */
export interface SendTo {
  /** The endpoint (WAITLIST_URL). */
  readonly endpoint: string;
  /** The version of the privacy notice shown beside the form. */
  readonly privacyNotice: string;
}

/**
 * Sends a form's started submits to `sendTo` and reports to the core how each went (the
 * core decides what the form shows, and gives up after 10 s). A request the form no
 * longer waits for, because it timed out or the form is gone, is abandoned. Returns
 * `send(form, honeypot)`, to call once the core has started a submit.
 */
export function useSending(
  handle: RefObject<FormHandle | null>,
  show: (form: FormHandle) => void,
  sendTo: SendTo | null,
  phase: Phase,
) {
  /** The request under way. */
  const request = useRef<AbortController | null>(null);
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
  return useCallback(
    (form: FormHandle, honeypot: string) => {
      if (endpoint === undefined) return;
      const attempt = form.attempt();
      const controller = new AbortController();
      request.current = controller;
      const signUp = { ...form.state().values, privacyNotice, website: honeypot };
      void sendSignUp(endpoint, signUp, controller.signal).then((delivery) => {
        // A form since disposed, or a request abandoned: nobody waits for the answer.
        if (handle.current !== form || delivery.kind === "aborted") return;
        const changed =
          delivery.kind === "delivered"
            ? form.delivered(attempt, performance.now())
            : delivery.kind === "refused"
              ? form.refused(attempt, delivery.errors)
              : form.failed(attempt);
        if (changed) show(form);
      });
    },
    [endpoint, privacyNotice, handle, show],
  );
}
