import { startTransition } from "react";
import "virtual:fonts.css";
import "virtual:demo-timeline.css";
import "./styles/index.css";
import { loadWebFont } from "./webFont";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

// The web font, if this browser has not got it yet: it downloads while the app starts.
void loadWebFont();

// React DOM, then the app (with its router and the content): each import is evaluated
// in a task of its own, so starting up never holds a slow phone's main thread for long.
// The inlined loader (src/inline/loader.ts) has already asked for every file.
void start(root);

async function start(root: HTMLElement) {
  const { createRoot, hydrateRoot } = await import("react-dom/client");
  const { app } = await import("./browserApp");
  // Built pages arrive rendered (scripts/prerender.mjs); the dev server's do not. As a
  // transition, hydration yields to the browser every few milliseconds.
  if (root.hasChildNodes()) {
    startTransition(() => {
      hydrateRoot(root, app);
    });
  } else createRoot(root).render(app);
}
