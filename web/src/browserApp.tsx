import { StrictMode } from "react";
import { BrowserRouter } from "react-router";
import { App } from "./App";

/** The app as the browser runs it (entry-server.tsx renders the same under StaticRouter). */
export const app = (
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>
);
