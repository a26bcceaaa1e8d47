import type { LegalDocument as Document } from "../content/legal";
import { legalTitles } from "../content/site";
import { RichText } from "./RichText";

/** A policy page: heading, last-updated date, and numbered sections. */
export function LegalDocument({ document }: { readonly document: Document }) {
  return (
    <article className="container legal">
      <header className="legal-header">
        <h1>{document.heading}</h1>
        <p className="legal-updated">
          {legalTitles.lastUpdated}{" "}
          <time dateTime={document.lastUpdated.iso}>{document.lastUpdated.text}</time>
        </p>
        <p className="lead">{document.intro}</p>
      </header>
      {document.sections.map((section, index) => (
        <section key={section.heading} aria-labelledby={`section-${String(index + 1)}`}>
          <h2 id={`section-${String(index + 1)}`}>
            {index + 1}. {section.heading}
          </h2>
          {section.blocks.map((block, i) =>
            typeof block === "string" ? (
              <p key={i}>
                <RichText text={block} />
              </p>
            ) : (
              <ul key={i}>
                {block.list.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
            ),
          )}
        </section>
      ))}
    </article>
  );
}
