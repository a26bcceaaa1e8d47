import type { Feature } from "../content/site";

export function FeatureCard({ feature }: { readonly feature: Feature }) {
  return (
    <article className="card feature-card">
      <h3>{feature.title}</h3>
      <ul className="benefits">
        {feature.benefits.map((benefit) => (
          <li key={benefit}>{benefit}</li>
        ))}
      </ul>
    </article>
  );
}
