/** Where sign-ups are posted; "" when the form sends nothing. */
export const waitlistUrl: string;
/** The endpoint's origin when it is another site's (for the CSP's connect-src); else null. */
export const waitlistOrigin: string | null;
/** The build's folder name under web/. */
export const outDir: string;
