import { CallToAction } from "../components/CallToAction";
import { Features } from "../components/Features";
import { Hero } from "../components/Hero";
import { pages } from "../content/site";
import { usePageMeta } from "../hooks/usePageMeta";

export function HomePage() {
  usePageMeta(pages.home);
  return (
    <>
      <Hero />
      <Features />
      <CallToAction />
    </>
  );
}
