// What the site keeps in the browser, the preference it reads, and the one element the
// first paint waits for: code, not content a site owner edits. The pre-paint script
// (src/inline/theme.ts) and the app share each. The privacy policy lists the stored items
// (content/legal.ts, "Cookies").

/** The theme's storage key (localStorage) and values (spec §9). */
export const themeStorageKey = "theme";
export const themes = ["light", "dark"] as const;
export type Theme = (typeof themes)[number];
/** The system's preference, followed until the visitor uses the toggle. */
export const systemDarkQuery = "(prefers-color-scheme: dark)";

/**
 * This browser's copy of the site's web font (web/scripts/fonts.mjs, src/fontNote.ts), in
 * localStorage: written once the font has downloaded, read before the first paint.
 */
export const fontStorageKey = "font";

/** Where a draft of the form is kept in this tab's sessionStorage until it is sent. */
export const draftStorageKey = "lathe:waitlist-draft";

/** A share link's query parameter: `/?ref=CODE`, on any page. */
export const referralParam = "ref";
/**
 * Where the code of the share link a visitor arrived by is kept for the visit, in this
 * tab's sessionStorage (builds that collect sign-ups only).
 */
export const referralStorageKey = "lathe:ref";

/**
 * The footer's id. The pre-paint script holds the first paint back until the footer has
 * arrived (`<link rel="expect" blocking="render">`), so that a page whose HTML comes in
 * parts is never painted with half its main content (docs/architecture.md, "Loading").
 */
export const pageEndId = "site-footer";
