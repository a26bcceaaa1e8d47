import { useSyncExternalStore } from "react";

const subscribe = (changed: () => void) => {
  window.addEventListener("hashchange", changed);
  return () => {
    window.removeEventListener("hashchange", changed);
  };
};

/**
 * The token of a link from the waitlist's emails: the URL's fragment, which browsers never
 * send to a server (so it stays out of logs, and a mail scanner that fetches the link gets
 * only the page). `undefined` on the server and while the page hydrates, `""` when the
 * link came without it.
 */
export function useLinkToken(): string | undefined {
  return useSyncExternalStore(
    subscribe,
    () => window.location.hash.slice(1),
    () => undefined,
  );
}
