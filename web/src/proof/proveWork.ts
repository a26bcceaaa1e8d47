/** What the solver's worker answers: the payload, or why there is none. */
export type WorkerAnswer = { readonly payload: string } | { readonly error: string };

/** How one round of proof of work ended. */
export type ProofResult =
  | { readonly kind: "solved"; readonly payload: string }
  | { readonly kind: "not-required" }
  | { readonly kind: "failed"; readonly why: string }
  | { readonly kind: "aborted" };

/** The User Timing measure of each round, from its start to its solution (make bench). */
export const PROOF_MEASURE = "lathe:proof-of-work";

/**
 * One round of proof of work: fetches a challenge from `url` and has the solver solve it
 * in a worker of its own, ended when `signal` aborts. A 204 (or 404) means the server
 * asks for none. Never throws.
 */
export async function proveWork(url: string, signal: AbortSignal): Promise<ProofResult> {
  let challenge: string;
  try {
    const response = await fetch(url, { cache: "no-store", signal });
    // 204: a server that asks for no proof; 404: one that knows nothing of them.
    if (response.status === 204 || response.status === 404) return { kind: "not-required" };
    if (!response.ok)
      return { kind: "failed", why: `the challenge: HTTP ${String(response.status)}` };
    challenge = await response.text();
  } catch (cause) {
    return signal.aborted ? { kind: "aborted" } : { kind: "failed", why: String(cause) };
  }
  return solveInWorker(challenge, signal);
}

/** Solves `challenge` in a new worker, terminated when done or when `signal` aborts. */
function solveInWorker(challenge: string, signal: AbortSignal): Promise<ProofResult> {
  if (signal.aborted) return Promise.resolve({ kind: "aborted" });
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./solver.worker.ts", import.meta.url), { type: "module" });
    const end = (result: ProofResult) => {
      worker.terminate();
      signal.removeEventListener("abort", abort);
      resolve(result);
    };
    const abort = () => {
      end({ kind: "aborted" });
    };
    signal.addEventListener("abort", abort);
    worker.addEventListener("message", (event: MessageEvent<WorkerAnswer>) => {
      const answer = event.data;
      end(
        "payload" in answer
          ? { kind: "solved", payload: answer.payload }
          : { kind: "failed", why: answer.error },
      );
    });
    worker.addEventListener("error", (event) => {
      end({ kind: "failed", why: event.message || "the solver's worker failed" });
    });
    worker.postMessage(challenge);
  });
}
