import { LegalDocument } from "../components/LegalDocument";
import { gdpr } from "../content/legal";
import { pages } from "../content/site";
import { usePageMeta } from "../hooks/usePageMeta";

export function GdprPage() {
  usePageMeta(pages.gdpr);
  return <LegalDocument document={gdpr} />;
}
