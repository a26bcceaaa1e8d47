// The proof-of-work solver's thread: takes a challenge's JSON text, answers with the
// solver's payload for it (or why there is none). The work blocks for as long as it takes,
// which is why it is done here and not on the page's thread; the page ends it by
// terminating the worker.

import { loadSolver } from "../core/solver";
import type { WorkerAnswer } from "./proveWork";

self.addEventListener("message", (event: MessageEvent<string>) => {
  const answer = (message: WorkerAnswer) => {
    self.postMessage(message);
  };
  loadSolver()
    .then((solver) => {
      answer({ payload: solver.solve(event.data) });
    })
    .catch((cause: unknown) => {
      answer({ error: cause instanceof Error ? cause.message : String(cause) });
    });
});
