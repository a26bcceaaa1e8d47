import { useSyncExternalStore } from "react";

const subscribe = () => () => undefined;

/**
 * False on the server and while the prerendered page hydrates, true from then on: for
 * controls that do nothing until React owns them, so they can say so (`disabled`).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
