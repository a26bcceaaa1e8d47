import { Suspense, lazy } from "react";
import { Route, Switch } from "wouter";
import { Layout } from "./components/Layout";
import { ContactPage } from "./pages/ContactPage";
import { HomePage } from "./pages/HomePage";
import { NotFoundPage } from "./pages/NotFoundPage";

// The legal pages' long text loads with them, not with every page. Prerendered, they are
// whole before any script runs; hydration waits for their file.
const GdprPage = lazy(() => import("./pages/GdprPage").then((m) => ({ default: m.GdprPage })));
const TermsPage = lazy(() => import("./pages/TermsPage").then((m) => ({ default: m.TermsPage })));

/** The four routes of spec §2, and a page for any other path. */
export function App() {
  return (
    <Layout>
      <Switch>
        <Route path="/">
          <HomePage />
        </Route>
        <Route path="/contact">
          <ContactPage />
        </Route>
        <Route path="/gdpr">
          <Suspense>
            <GdprPage />
          </Suspense>
        </Route>
        <Route path="/terms">
          <Suspense>
            <TermsPage />
          </Suspense>
        </Route>
        <Route>
          <NotFoundPage />
        </Route>
      </Switch>
    </Layout>
  );
}
