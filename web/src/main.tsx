import { StrictMode, startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App";
import "./styles/index.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
const app = (
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>
);
// Built pages arrive rendered (scripts/prerender.mjs); the dev server's do not. As a
// transition, hydration yields to the browser every few milliseconds instead of holding
// the main thread for one long task on a slow phone.
if (root.hasChildNodes()) {
  startTransition(() => {
    hydrateRoot(root, app);
  });
} else createRoot(root).render(app);
