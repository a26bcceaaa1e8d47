import { Link } from "wouter";
import { callToAction } from "../content/site";

export function CallToAction() {
  return (
    <section className="section" aria-labelledby="cta-heading">
      <div className="container">
        <div className="cta-band">
          <h2 id="cta-heading">{callToAction.heading}</h2>
          <p>{callToAction.body}</p>
          <div className="actions">
            <Link to="/contact" className="button button-primary">
              {callToAction.primary}
            </Link>
            {/* Does nothing yet (spec §2); the note says why. */}
            <button type="button" className="button button-secondary" aria-describedby="cta-note">
              {callToAction.secondary}
            </button>
          </div>
          <p id="cta-note" className="cta-note">
            {callToAction.secondaryNote}
          </p>
        </div>
      </div>
    </section>
  );
}
