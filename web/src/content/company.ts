// Every name, address and number a site owner would change, in one place.
// All placeholders: the real names are withheld by the specification.

export const product = {
  name: "Lathe",
  /** Where the site lives: canonical links, Open Graph and the sitemap use it. */
  siteUrl: "https://lathe.example.com",
  /** The desktop systems it is made for, each available soon. */
  platforms: ["Windows", "macOS", "Linux"],
} as const;

export const company = {
  parent: "Lathe Holdings Ltd",
  subsidiary: "Lathe Labs Ltd",
  jurisdiction: "England and Wales",
  parentNumber: "00000001",
  subsidiaryNumber: "00000002",
  registeredOffice: {
    street: "1 Example Street",
    city: "London",
    postcode: "EC1A 1AA",
    country: "United Kingdom",
    /** ISO 3166 code of the country, for machines (structured data). */
    countryCode: "GB",
  },
  email: "hello@example.com",
} as const;
