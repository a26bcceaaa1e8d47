import "@testing-library/jest-dom/vitest";

// Testing Library advances fake timers inside its async wrapper only when it sees
// Jest's API; give it Vitest's, so user-event works under vi.useFakeTimers().
Object.assign(globalThis, {
  jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) },
});
