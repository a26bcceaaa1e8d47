import { StrictMode } from "react";
import { App } from "./App";

/** The app as the browser runs it, at the page's own path (entry-server.tsx renders each). */
export const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
