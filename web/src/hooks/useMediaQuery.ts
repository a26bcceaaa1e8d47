import { useSyncExternalStore } from "react";

/** Whether a media query matches, live; false when rendered on the server. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = matchMedia(query);
      list.addEventListener("change", onChange);
      return () => {
        list.removeEventListener("change", onChange);
      };
    },
    () => matchMedia(query).matches,
    () => false,
  );
}
