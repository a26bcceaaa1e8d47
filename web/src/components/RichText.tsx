import { Fragment } from "react";
import { Link } from "wouter";
import { company } from "../content/company";
import { legalTitles } from "../content/site";

/** A paragraph of content with {email}, {gdpr} and {terms} made into links. */
export function RichText({ text }: { readonly text: string }) {
  return text.split(/(\{email\}|\{gdpr\}|\{terms\})/).map((part, i) => {
    switch (part) {
      case "{email}":
        return (
          <a key={i} href={`mailto:${company.email}`}>
            {company.email}
          </a>
        );
      case "{gdpr}":
        return (
          <Link key={i} to="/gdpr">
            {legalTitles.gdpr}
          </Link>
        );
      case "{terms}":
        return (
          <Link key={i} to="/terms">
            {legalTitles.terms}
          </Link>
        );
      default:
        return <Fragment key={i}>{part}</Fragment>;
    }
  });
}
