import { type RefObject, useEffect } from "react";
import type { FormHandle } from "../core";
import { PROOF_MEASURE, proveWork } from "../proof/proveWork";

/**
 * Does the rounds of proof of work the core's form asks for (`proofRound`): fetches each
 * challenge from `url` and solves it off the page's thread, reports how it went, shows
 * the form and makes any send that was waiting for it (`flush`). A round the form no
 * longer asks for is abandoned. Nothing happens without `url`.
 */
export function useProofOfWork(
  handle: RefObject<FormHandle | null>,
  show: (form: FormHandle) => void,
  flush: (form: FormHandle) => void,
  url: string | null,
  proofRound: number | null,
) {
  useEffect(() => {
    const form = handle.current;
    if (!form || url === null || proofRound === null) return;
    const controller = new AbortController();
    const start = performance.now();
    void proveWork(url, controller.signal).then((result) => {
      if (handle.current !== form || result.kind === "aborted") return;
      let changed: boolean;
      if (result.kind === "solved") {
        performance.measure(PROOF_MEASURE, { start, end: performance.now() });
        changed = form.solved(proofRound, result.payload);
      } else if (result.kind === "not-required") {
        changed = form.proofNotRequired(proofRound);
      } else {
        console.warn(`Lathe: no proof of work for the form (${result.why}).`);
        changed = form.unsolved(proofRound);
      }
      if (changed) {
        show(form);
        flush(form);
      }
    });
    return () => {
      controller.abort();
    };
  }, [handle, show, flush, url, proofRound]);
}
