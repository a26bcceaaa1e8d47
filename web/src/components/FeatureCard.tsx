import { useId } from "react";
import type { Feature } from "../content/site";
import { FeatureIcon } from "./FeatureIcon";

export function FeatureCard({ feature }: { readonly feature: Feature }) {
  // Each card is named by its heading: six unnamed articles read alike to a screen reader.
  const heading = useId();
  return (
    <article className="card feature-card" aria-labelledby={heading}>
      <FeatureIcon name={feature.icon} />
      <h3 id={heading}>{feature.title}</h3>
      <ul className="benefits ticks">
        {feature.benefits.map((benefit) => (
          <li key={benefit}>{benefit}</li>
        ))}
      </ul>
    </article>
  );
}
