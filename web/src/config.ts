// The build's settings, as the app sees them (set in the environment of `make build`;
// see web/scripts/build-settings.mjs).

declare const __WAITLIST_URL__: string;

/**
 * Where the waitlist form posts its sign-ups (WAITLIST_URL), or null: then it sends
 * nothing and thanks the visitor after 2 s, as the original site did.
 */
export const waitlistEndpoint: string | null =
  // Outside a Vite build (the browser tests' Node reads routes.ts) there is no setting.
  (typeof __WAITLIST_URL__ === "undefined" ? "" : __WAITLIST_URL__) || null;

/**
 * Where a form posting to `endpoint` asks for its proof-of-work challenges: the
 * endpoint's `/challenge` (a server without `--proof-of-work` has none, and the form then
 * sends without).
 */
export function challengeUrl(endpoint: string): string {
  return `${endpoint.replace(/\/$/, "")}/challenge`;
}
