import { features } from "../content/site";
import { FeatureCard } from "./FeatureCard";

export function Features() {
  return (
    <section id={features.id} className="section features" aria-labelledby="features-heading">
      <div className="container">
        <h2 id="features-heading">{features.heading}</h2>
        <p className="section-intro">{features.intro}</p>
        <div className="feature-grid">
          {features.cards.map((feature) => (
            <FeatureCard key={feature.title} feature={feature} />
          ))}
        </div>
      </div>
    </section>
  );
}
