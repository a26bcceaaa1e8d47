// The proof-of-work solver's thread: takes a challenge's JSON text, answers with the
// core's payload for it (or why there is none). The work blocks for as long as it takes,
// which is why it is done here and not on the page's thread; the page ends it by
// terminating the worker.

import { loadCore } from "../core";
import type { WorkerAnswer } from "./proveWork";

self.addEventListener("message", (event: MessageEvent<string>) => {
  const answer = (message: WorkerAnswer) => {
    self.postMessage(message);
  };
  loadCore()
    .then((core) => {
      answer({ payload: core.solveChallenge(event.data) });
    })
    .catch((cause: unknown) => {
      answer({ error: cause instanceof Error ? cause.message : String(cause) });
    });
});
