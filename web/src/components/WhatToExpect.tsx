import { contactPage } from "../content/site";

export function WhatToExpect() {
  return (
    <section className="card" aria-labelledby="expect-heading">
      <h2 id="expect-heading">{contactPage.expectHeading}</h2>
      <ul className="expect-list">
        {contactPage.expect.map((item) => (
          <li key={item.title}>
            <strong>{item.title}</strong>
            <span>{item.body}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
