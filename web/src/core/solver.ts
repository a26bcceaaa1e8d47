// The facade's other half: the proof-of-work solver (`lathe-core/solver`, a wasm module of
// its own, core/solver). A module apart from index.ts so that the worker that runs it
// loads nothing else; like the core, it is loaded once, on demand.

import solverWasmUrl from "lathe-core/solver/wasm?url";
import { CoreError } from "./error";

/** The solver, loaded and ready. */
export interface Solver {
  /**
   * Solves an ALTCHA challenge (the JSON text the server sent): the `altcha` payload. It
   * blocks for as long as the work takes: call it in a worker. A `CoreError` if the text
   * is not a challenge the solver can solve.
   */
  solve(challenge: string): string;
}

let loading: Promise<Solver> | undefined;

/** Loads the solver once; every caller shares the same promise. */
export function loadSolver(): Promise<Solver> {
  loading ??= import("lathe-core/solver").then(async (solver) => {
    await solver.default({ module_or_path: solverWasmUrl });
    return {
      solve: (challenge) => {
        try {
          return solver.solveChallenge(challenge);
        } catch (cause) {
          const detail = cause instanceof Error ? cause.message : String(cause);
          throw new CoreError(`solve a challenge: ${detail}`, { cause });
        }
      },
    };
  });
  return loading;
}
