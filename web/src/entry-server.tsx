// The build's server entry: renders a route to HTML for scripts/prerender.mjs.
import { StrictMode } from "react";
import { prerender } from "react-dom/static";
import { StaticRouter } from "react-router";
import { App } from "./App";

export { prerendered } from "./routes";
export { product } from "./content/company";

/** The route's HTML, once every lazy page in it has loaded. */
export async function render(path: string): Promise<string> {
  const { prelude } = await prerender(
    <StrictMode>
      <StaticRouter location={path}>
        <App />
      </StaticRouter>
    </StrictMode>,
  );
  return new Response(prelude).text();
}
