import { Link } from "wouter";
import { features, hero } from "../content/site";
import { ProductDemo } from "./ProductDemo";

export function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-heading">
      <div className="container hero-inner">
        <div className="hero-text">
          <p className="eyebrow">{hero.eyebrow}</p>
          <h1 id="hero-heading">{hero.headline}</h1>
          <p className="lead">{hero.lead}</p>
          <div className="actions">
            <Link to="/contact" className="button button-primary">
              {hero.primary}
            </Link>
            {/* A plain anchor: CSS makes the scroll smooth, or instant under reduced motion. */}
            <a href={`#${features.id}`} className="button button-secondary">
              {hero.secondary}
            </a>
          </div>
          <p className="hero-platforms">{hero.platforms}</p>
        </div>
        <ProductDemo />
      </div>
    </section>
  );
}
