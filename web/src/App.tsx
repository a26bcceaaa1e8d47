import { Route, Routes } from "react-router";
import { Layout } from "./components/Layout";
import { ContactPage } from "./pages/ContactPage";
import { GdprPage } from "./pages/GdprPage";
import { HomePage } from "./pages/HomePage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { TermsPage } from "./pages/TermsPage";

/** The four routes of spec §2, and a page for any other path. */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<HomePage />} />
        <Route path="contact" element={<ContactPage />} />
        <Route path="gdpr" element={<GdprPage />} />
        <Route path="terms" element={<TermsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
