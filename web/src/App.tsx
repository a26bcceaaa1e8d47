import { type ReactNode, Suspense, lazy } from "react";
import { Route, Switch } from "wouter";
import { Layout } from "./components/Layout";
import { ContactPage } from "./pages/ContactPage";
import { HomePage } from "./pages/HomePage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { type Route as RoutePath, linkPages, routes } from "./routes";

// The legal pages' long text loads with them, not with every page. Prerendered, they are
// whole before any script runs; hydration waits for their file.
const GdprPage = lazy(() => import("./pages/GdprPage").then((m) => ({ default: m.GdprPage })));
const TermsPage = lazy(() => import("./pages/TermsPage").then((m) => ({ default: m.TermsPage })));
// The pages the waitlist's emails link to (builds with WAITLIST_URL only).
const ConfirmPage = lazy(() =>
  import("./pages/ConfirmPage").then((m) => ({ default: m.ConfirmPage })),
);
const ManagePage = lazy(() =>
  import("./pages/ManagePage").then((m) => ({ default: m.ManagePage })),
);
const linkViews: Record<(typeof linkPages)[number]["path"], ReactNode> = {
  "/confirm": <ConfirmPage />,
  "/manage": <ManagePage />,
};

/** What each route shows. */
const views: Record<RoutePath, ReactNode> = {
  "/": <HomePage />,
  "/contact": <ContactPage />,
  "/gdpr": (
    <Suspense>
      <GdprPage />
    </Suspense>
  ),
  "/terms": (
    <Suspense>
      <TermsPage />
    </Suspense>
  ),
};

/** The four routes of spec §2, and a page for any other path. */
export function App() {
  return (
    <Layout>
      <Switch>
        {routes.map(({ path }) => (
          <Route key={path} path={path}>
            {views[path]}
          </Route>
        ))}
        {linkPages.map(({ path }) => (
          <Route key={path} path={path}>
            <Suspense>{linkViews[path]}</Suspense>
          </Route>
        ))}
        <Route>
          <NotFoundPage />
        </Route>
      </Switch>
    </Layout>
  );
}
