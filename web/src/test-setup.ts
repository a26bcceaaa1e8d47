import "@testing-library/jest-dom/vitest";

// Testing Library advances fake timers inside its async wrapper only when it sees
// Jest's API; give it Vitest's, so user-event works under vi.useFakeTimers().
Object.assign(globalThis, {
  jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) },
});

/** jsdom has no matchMedia: a controllable stand-in. `setMedia` changes what matches. */
const matching = new Set<string>();
const lists = new Map<string, Set<(e: MediaQueryListEvent) => void>>();

export function setMedia(query: string, matches: boolean) {
  if (matches) matching.add(query);
  else matching.delete(query);
  for (const listener of lists.get(query) ?? []) {
    listener({ matches, media: query } as MediaQueryListEvent);
  }
}

/** Makes every call to Web Storage throw a `name` DOMException, as a browser whose storage
 * is full (`QuotaExceededError`) or denied (`SecurityError`) does. */
export function refuseStorage(name: string) {
  const refuse = () => {
    throw new DOMException(name, name);
  };
  for (const method of ["getItem", "setItem", "removeItem"] as const) {
    vi.spyOn(Storage.prototype, method).mockImplementation(refuse);
  }
}

// The facade's tests run in Node, with no DOM to stand in for.
if (typeof window !== "undefined") {
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    value: (query: string) => {
      const listeners = lists.get(query) ?? new Set();
      lists.set(query, listeners);
      return {
        media: query,
        get matches() {
          return matching.has(query);
        },
        addEventListener: (_: string, l: (e: MediaQueryListEvent) => void) => listeners.add(l),
        removeEventListener: (_: string, l: (e: MediaQueryListEvent) => void) =>
          listeners.delete(l),
      };
    },
  });

  // jsdom draws nothing: no 2D context, as on a browser without canvas support.
  HTMLCanvasElement.prototype.getContext = () => null;

  afterEach(() => {
    matching.clear();
    localStorage.clear();
    sessionStorage.clear();
    delete document.documentElement.dataset.theme;
  });
}
