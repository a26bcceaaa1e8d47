import { useCallback, useSyncExternalStore } from "react";
import { type Theme, systemDarkQuery, themeStorageKey, themes } from "../browserState";

// The theme lives on <html data-theme>, set before the first paint by the inlined
// src/inline/theme.ts and kept there by this module. A choice is saved only when the visitor
// toggles; until then the system preference is followed, live.

let query: MediaQueryList | undefined;
const darkQuery = () => (query ??= window.matchMedia(systemDarkQuery));
const listeners = new Set<() => void>();
let chosenThisVisit = false;

function isTheme(value: unknown): value is Theme {
  return themes.includes(value as Theme);
}

/** The saved choice; null if none, if storage holds something else, or if it throws. */
export function savedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(themeStorageKey);
    return isTheme(value) ? value : null;
  } catch {
    return null;
  }
}

function systemTheme(): Theme {
  return darkQuery().matches ? "dark" : "light";
}

function apply(theme: Theme) {
  const root = document.documentElement;
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
  for (const listener of listeners) listener();
}

function onSystemChange() {
  if (chosenThisVisit || savedTheme() !== null) return;
  const theme = systemTheme();
  if (document.documentElement.dataset.theme !== theme) apply(theme);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (listeners.size === 1) {
    darkQuery().addEventListener("change", onSystemChange);
    // The system may have changed since the pre-paint script (src/inline/theme.ts) chose (the app hydrates
    // after the first paint): catch up now that we are listening.
    onSystemChange();
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) darkQuery().removeEventListener("change", onSystemChange);
  };
}

function snapshot(): Theme {
  const current = document.documentElement.dataset.theme;
  return isTheme(current) ? current : (savedTheme() ?? systemTheme());
}

/** The theme in effect and a toggle that switches and saves it. */
export function useTheme(): { theme: Theme; toggle: () => void } {
  // The server renders light; the client's first render matches, then corrects.
  const theme = useSyncExternalStore(subscribe, snapshot, () => "light" as const);
  const toggle = useCallback(() => {
    const next: Theme = snapshot() === "dark" ? "light" : "dark";
    chosenThisVisit = true;
    try {
      localStorage.setItem(themeStorageKey, next);
    } catch {
      // Storage refused (private mode, quota, policy): the choice holds for this visit.
    }
    apply(next);
  }, []);
  return { theme, toggle };
}
