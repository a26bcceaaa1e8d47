// The referral code a visitor arrived with (a friend's share link, `?ref=CODE`, on any
// page), kept for the visit so that the form sends it with the sign-up (`ref`). Kept in
// sessionStorage, which belongs to the tab and goes with it: no cookie, nothing that
// outlives the tab. Taken out of the address bar once kept, so that a link the visitor
// copies or bookmarks does not carry the friend's code on. Only builds that collect
// sign-ups call this; the core checks the code's shape before it is sent, and the server
// ignores one it cannot use, so nothing here can stop a sign-up.

import { referralParam, referralStorageKey } from "./browserState";

/** The longest value kept: far more than a code, far less than a storage quota. */
const KEPT_LIMIT = 64;

/**
 * Keeps the `ref` of `location` for the visit (the last one wins: the latest link
 * followed) and removes it from the address bar. Storage that throws changes nothing.
 */
export function keepReferral(
  location: Location = window.location,
  history: History = window.history,
) {
  const url = new URL(location.href);
  const code = url.searchParams.get(referralParam);
  if (code === null) return;
  if (code !== "" && code.length <= KEPT_LIMIT) {
    try {
      sessionStorage.setItem(referralStorageKey, code);
    } catch {
      // Disabled or full: the sign-up goes without it.
    }
  }
  url.searchParams.delete(referralParam);
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

/** The code kept for this visit, if any. */
export function keptReferral(): string | null {
  try {
    return sessionStorage.getItem(referralStorageKey);
  } catch {
    return null;
  }
}
