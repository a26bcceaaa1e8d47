import { useEffect } from "react";
import { useLocation } from "wouter";
import { product } from "../content/company";
import { type PageMeta, socialCardAlt } from "../content/site";
import { socialCard } from "../routes";

/**
 * Keeps the head in step with the page shown after client-side navigation. The built
 * HTML of each page already carries the same tags (scripts/prerender.mjs).
 */
export function usePageMeta({ title, description, card }: PageMeta) {
  const [pathname] = useLocation();
  useEffect(() => {
    const url = product.siteUrl + pathname;
    document.title = title;
    const set = (selector: string, attribute: string, value: string) => {
      document.querySelector(selector)?.setAttribute(attribute, value);
    };
    set('meta[name="description"]', "content", description);
    set('link[rel="canonical"]', "href", url);
    set('meta[property="og:title"]', "content", title);
    set('meta[property="og:description"]', "content", description);
    set('meta[property="og:url"]', "content", url);
    set('meta[property="og:image"]', "content", product.siteUrl + socialCard(pathname));
    set('meta[property="og:image:alt"]', "content", socialCardAlt(card));
  }, [title, description, card, pathname]);
}
