import { waitlistEndpoint } from "./config";
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

/**
 * The pages the waitlist's emails link to, in builds that collect sign-ups (WAITLIST_URL):
 * confirming an address, and seeing, downloading or erasing an entry. Not in the header,
 * the sitemap or search engines.
 */
export const linkPages = waitlistEndpoint
  ? ([
      { path: "/confirm", meta: pages.confirm },
      { path: "/manage", meta: pages.manage },
    ] as const)
  : [];

const file = (path: string) => (path === "/" ? "index.html" : `${path.slice(1)}/index.html`);

/** The four routes, the email's pages, and the not-found page for static hosts (404.html). */
export const prerendered: readonly PrerenderedPage[] = [
  ...routes.map(({ path, meta }) => ({ path, file: file(path), meta, indexed: true })),
  ...linkPages.map(({ path, meta }) => ({ path, file: file(path), meta, indexed: false })),
  { path: "/404", file: "404.html", meta: pages.notFound, indexed: false },
];

/** Where a page's social card is in the built site; the not-found page shows the home page's. */
export function socialCard(path: string): string {
  const own = path !== "/" && prerendered.some((page) => page.indexed && page.path === path);
  const name = own ? path.slice(1) : "home";
  return `/social/${name}.png`;
}
