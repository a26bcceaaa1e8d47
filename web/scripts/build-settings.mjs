// The build's settings, read from the environment once, for vite.config.ts and
// scripts/prerender.mjs alike.
//
// WAITLIST_URL: where the waitlist form sends its sign-ups, as JSON: a path on the site
//   itself (`/api/waitlist`, served by `lathe-site serve --database`) or the absolute
//   http(s) URL of a form service. Unset: the form sends nothing, as the original site
//   did (a 2 s wait, then the thank-you panel).
// LATHE_OUT_DIR: the folder under web/ the build is written to (`dist` unless set); the
//   server-side bundle goes beside it, in `<folder>-server`.

/** @param {string | undefined} value */
function parseWaitlistUrl(value) {
  if (!value) return { url: "", origin: null };
  if (value.startsWith("/") && !value.startsWith("//")) return { url: value, origin: null };
  let parsed;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new Error(
      `WAITLIST_URL must be a path on the site (/api/waitlist) or an http(s) URL, not ${JSON.stringify(value)}`,
    );
  }
  return { url: parsed.href, origin: parsed.origin };
}

const waitlist = parseWaitlistUrl(process.env.WAITLIST_URL);

/** Where sign-ups are posted; "" when the form sends nothing. */
export const waitlistUrl = waitlist.url;
/** The endpoint's origin when it is another site's (for the CSP's connect-src); else null. */
export const waitlistOrigin = waitlist.origin;
/** The build's folder name under web/. */
export const outDir = process.env.LATHE_OUT_DIR || "dist";
