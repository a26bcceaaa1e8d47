import { contactPage, faq } from "../content/site";

export function Faq() {
  return (
    <section id={contactPage.faqId} className="section faq" aria-labelledby="faq-heading">
      <h2 id="faq-heading">{contactPage.faqHeading}</h2>
      {faq.map((item) => (
        <details key={item.question} className="faq-item">
          <summary>{item.question}</summary>
          <p>{item.answer}</p>
        </details>
      ))}
    </section>
  );
}
