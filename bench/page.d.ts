// What bench/background.mjs's init script adds to the pages it times, for the type check
// of the functions it runs in them (bench/tsconfig.json).
export {};

declare global {
  interface Window {
    /** Resolves once `n` more drawing callbacks have run: each one's id and wall ms. */
    timeFrames(n: number): Promise<[id: number, ms: number][]>;
    /** Resolves once `n` more animation-frame callbacks of any kind have run: their ids. */
    timeCallbacks(n: number): Promise<number[]>;
  }
}
