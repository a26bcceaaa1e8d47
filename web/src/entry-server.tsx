// The build's server entry: renders a route to HTML for scripts/prerender.mjs.
import { StrictMode } from "react";
import { prerender } from "react-dom/static";
import { Router } from "wouter";
import { App } from "./App";

export { prerendered, socialCard } from "./routes";
export { socialCardAlt } from "./content/site";
export { product } from "./content/company";
export { structuredData } from "./content/structuredData";

/** The route's HTML, once every lazy page in it has loaded. */
export async function render(path: string): Promise<string> {
  const { prelude } = await prerender(
    <StrictMode>
      <Router ssrPath={path}>
        <App />
      </Router>
    </StrictMode>,
  );
  return new Response(prelude).text();
}
