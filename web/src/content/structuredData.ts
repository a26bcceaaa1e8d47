// What search engines read about the companies and the product (schema.org JSON-LD),
// made from the same content as the pages. scripts/prerender.mjs puts it in every page.

import { company, product } from "./company";
import { pages } from "./site";

const office = company.registeredOffice;

function organisation(name: string, number: string, id: string) {
  return {
    "@type": "Organization",
    "@id": `${product.siteUrl}/#${id}`,
    name,
    legalName: name,
    email: company.email,
    identifier: {
      "@type": "PropertyValue",
      propertyID: `Company number (${company.jurisdiction})`,
      value: number,
    },
    address: {
      "@type": "PostalAddress",
      streetAddress: office.street,
      addressLocality: office.city,
      postalCode: office.postcode,
      addressCountry: office.countryCode,
    },
  };
}

/** The parent company, its subsidiary and the product, as one schema.org graph. */
export function structuredData() {
  const parent = organisation(company.parent, company.parentNumber, "parent");
  const subsidiary = organisation(company.subsidiary, company.subsidiaryNumber, "subsidiary");
  return {
    "@context": "https://schema.org",
    "@graph": [
      {
        ...parent,
        url: `${product.siteUrl}/`,
        logo: `${product.siteUrl}/favicon.svg`,
        subOrganization: { "@id": subsidiary["@id"] },
      },
      { ...subsidiary, parentOrganization: { "@id": parent["@id"] } },
      {
        "@type": "SoftwareApplication",
        "@id": `${product.siteUrl}/#product`,
        name: product.name,
        url: `${product.siteUrl}/`,
        description: pages.home.description,
        applicationCategory: "DeveloperApplication",
        operatingSystem: product.platforms.join(", "),
        publisher: { "@id": parent["@id"] },
        // In beta, free: the FAQ says so.
        offers: { "@type": "Offer", price: "0", priceCurrency: "GBP" },
      },
    ],
  };
}
