import { type PageMeta, pages } from "./content/site";

/** A page the build writes as complete HTML, and where it writes it in dist/. */
export interface PrerenderedPage {
  readonly path: string;
  readonly file: string;
  readonly meta: PageMeta;
  /** Listed in sitemap.xml. */
  readonly indexed: boolean;
}

/**
 * The four routes of spec §2, in the header's order, with their pages' data: the site's
 * one list of its routes (App.tsx renders each; the tests and make bench read it too).
 */
export const routes = [
  { path: "/", meta: pages.home },
  { path: "/contact", meta: pages.contact },
  { path: "/gdpr", meta: pages.gdpr },
  { path: "/terms", meta: pages.terms },
] as const;
export type Route = (typeof routes)[number]["path"];

/** The four routes, and the not-found page for static hosts (404.html). */
export const prerendered: readonly PrerenderedPage[] = [
  ...routes.map(({ path, meta }) => ({
    path,
    file: path === "/" ? "index.html" : `${path.slice(1)}/index.html`,
    meta,
    indexed: true,
  })),
  { path: "/404", file: "404.html", meta: pages.notFound, indexed: false },
];

/** Where a page's social card is in the built site; the not-found page shows the home page's. */
export function socialCard(path: string): string {
  const own = path !== "/" && prerendered.some((page) => page.indexed && page.path === path);
  const name = own ? path.slice(1) : "home";
  return `/social/${name}.png`;
}
