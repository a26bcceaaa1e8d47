import { Link } from "wouter";
import { ContactInfo } from "../components/ContactInfo";
import { Faq } from "../components/Faq";
import { WaitlistForm } from "../components/WaitlistForm";
import { WhatToExpect } from "../components/WhatToExpect";
import { formText } from "../content/form";
import { contactPage, pages } from "../content/site";
import { useCore } from "../hooks/useCore";
import { usePageMeta } from "../hooks/usePageMeta";

export function ContactPage() {
  usePageMeta(pages.contact);
  const status = useCore();
  return (
    <div className="container page">
      <Link to="/" className="back-link">
        <span aria-hidden="true">←</span>
        {contactPage.back}
      </Link>
      <header className="page-header">
        <h1>{contactPage.heading}</h1>
        <p className="lead">{contactPage.lead}</p>
      </header>
      <div className="contact-grid">
        <section className="card form-card" aria-labelledby="waitlist-heading">
          <h2 id="waitlist-heading">{formText.heading}</h2>
          <p>{formText.intro}</p>
          <WaitlistForm
            core={status.state === "ready" ? status.core : null}
            unavailable={status.state === "failed"}
          />
        </section>
        {/* Named by the two headings it holds (a complementary landmark needs a name). */}
        <aside className="contact-aside" aria-labelledby="contact-info-heading expect-heading">
          <ContactInfo />
          <WhatToExpect />
        </aside>
      </div>
      <Faq />
    </div>
  );
}
