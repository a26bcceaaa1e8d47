import { type PageMeta, pages } from "./content/site";

/** A page the build writes as complete HTML, and where it writes it in dist/. */
export interface PrerenderedPage {
  readonly path: string;
  readonly file: string;
  readonly meta: PageMeta;
  /** Listed in sitemap.xml. */
  readonly indexed: boolean;
}

/** The four routes of spec §2, and the not-found page for static hosts (404.html). */
export const prerendered: readonly PrerenderedPage[] = [
  { path: "/", file: "index.html", meta: pages.home, indexed: true },
  { path: "/contact", file: "contact/index.html", meta: pages.contact, indexed: true },
  { path: "/gdpr", file: "gdpr/index.html", meta: pages.gdpr, indexed: true },
  { path: "/terms", file: "terms/index.html", meta: pages.terms, indexed: true },
  { path: "/404", file: "404.html", meta: pages.notFound, indexed: false },
];

/** Where a page's social card is in the built site; the not-found page shows the home page's. */
export function socialCard(path: string): string {
  const own = path !== "/" && prerendered.some((page) => page.indexed && page.path === path);
  const name = own ? path.slice(1) : "home";
  return `/social/${name}.png`;
}
