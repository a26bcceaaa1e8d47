import { StrictMode } from "react";
import { App } from "./App";
import { waitlistEndpoint } from "./config";
import { keepReferral } from "./referral";

// A friend's share link: its code is kept for the sign-up, before the app renders (only
// where sign-ups are sent; the original site ignores it).
if (waitlistEndpoint) keepReferral();

/** The app as the browser runs it, at the page's own path (entry-server.tsx renders each). */
export const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
