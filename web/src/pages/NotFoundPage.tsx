import { Link } from "wouter";
import { notFound, pages } from "../content/site";
import { usePageMeta } from "../hooks/usePageMeta";

export function NotFoundPage() {
  usePageMeta(pages.notFound);
  return (
    <div className="container page not-found">
      <h1>{notFound.heading}</h1>
      <p className="lead">{notFound.body}</p>
      <Link to="/" className="button button-primary">
        {notFound.home}
      </Link>
    </div>
  );
}
