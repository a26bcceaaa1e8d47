import { Fragment } from "react";
import { company } from "../content/company";
import { contactPage } from "../content/site";

const { street, city, postcode, country } = company.registeredOffice;
const officeLines = [street, city, postcode, country];

export function ContactInfo() {
  const labels = contactPage.contactLabels;
  return (
    <section className="card" aria-labelledby="contact-info-heading">
      <h2 id="contact-info-heading">{contactPage.contactHeading}</h2>
      <dl className="contact-list">
        <dt>{labels.email}</dt>
        <dd>
          <a href={`mailto:${company.email}`}>{company.email}</a>
        </dd>
        {[
          [labels.parent, company.parent, company.parentNumber],
          [labels.subsidiary, company.subsidiary, company.subsidiaryNumber],
        ].map(([role, name, number]) => (
          <Fragment key={role}>
            <dt>{role}</dt>
            <dd>
              {name}
              <br />
              {labels.number}: {number}
            </dd>
          </Fragment>
        ))}
        <dt>{labels.office}</dt>
        <dd>
          <address>
            {officeLines.map((line) => (
              <span key={line} className="address-line">
                {line}
              </span>
            ))}
          </address>
        </dd>
      </dl>
      <p className="small">{contactPage.registeredIn}</p>
    </section>
  );
}
