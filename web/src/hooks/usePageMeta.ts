import { useEffect } from "react";
import type { PageMeta } from "../content/site";

/** Keeps the document's title and description in step with the page shown. */
export function usePageMeta({ title, description }: PageMeta) {
  useEffect(() => {
    document.title = title;
    document.querySelector('meta[name="description"]')?.setAttribute("content", description);
  }, [title, description]);
}
