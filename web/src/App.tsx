import { Suspense, lazy } from "react";
import { Route, Routes } from "react-router";
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
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<HomePage />} />
        <Route path="contact" element={<ContactPage />} />
        <Route
          path="gdpr"
          element={
            <Suspense>
              <GdprPage />
            </Suspense>
          }
        />
        <Route
          path="terms"
          element={
            <Suspense>
              <TermsPage />
            </Suspense>
          }
        />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
