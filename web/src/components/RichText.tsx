import { Fragment } from "react";
import { Link } from "react-router";
import { company } from "../content/company";
import { gdpr, terms } from "../content/legal";

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
            {gdpr.heading}
          </Link>
        );
      case "{terms}":
        return (
          <Link key={i} to="/terms">
            {terms.heading}
          </Link>
        );
      default:
        return <Fragment key={i}>{part}</Fragment>;
    }
  });
}
