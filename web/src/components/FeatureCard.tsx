import type { Feature } from "../content/site";
import { FeatureIcon } from "./FeatureIcon";

export function FeatureCard({ feature }: { readonly feature: Feature }) {
  return (
    <article className="card feature-card">
      <FeatureIcon name={feature.icon} />
      <h3>{feature.title}</h3>
      <ul className="benefits ticks">
        {feature.benefits.map((benefit) => (
          <li key={benefit}>{benefit}</li>
        ))}
      </ul>
    </article>
  );
}
