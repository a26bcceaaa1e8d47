import { LegalDocument } from "../components/LegalDocument";
import { terms } from "../content/legal";
import { pages } from "../content/site";
import { usePageMeta } from "../hooks/usePageMeta";

export function TermsPage() {
  usePageMeta(pages.terms);
  return <LegalDocument document={terms} />;
}
