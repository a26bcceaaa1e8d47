//! The site's own layers, as plain tower services: [`Guard`] before the files, [`Metered`]
//! around what is logged, [`Headed`] around everything.
//!
//! They were axum `from_fn` middlewares, each applied with `Router::layer`. Such a
//! middleware boxes its future and clones the service inside it on every request, and
//! `Router::layer` boxes every route once more: with three of them the server answered
//! about a quarter fewer requests per second (make bench, "Servers"). These wrap their
//! service once; a request costs them a clone of its `Uri` (a reference count) and
//! nothing boxed, except the rare hidden path answered with the 404 page.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready as ready_poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};
use pin_project_lite::pin_project;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

use super::headers::Rule;
use super::target::{BadTarget, judge};
use crate::operations::metrics;

/// A service answering with one page whatever is asked: the 404 page.
pub type Page = BoxCloneSyncService<Request, Response, Infallible>;

/// Refuses what is not a plain `GET` or `HEAD` of a plain path ([`judge`]): 405 for
/// another method, 400 for a malformed path, and the 404 page for a hidden one, as if it
/// were missing.
#[derive(Clone)]
pub struct Guard<S> {
    inner: S,
    not_found: Page,
}

impl<S> Guard<S> {
    /// `inner` behind the guard; `not_found` answers hidden paths.
    pub fn layer(not_found: Page) -> impl Layer<S, Service = Self> + Clone {
        tower::layer::layer_fn(move |inner| Self {
            inner,
            not_found: not_found.clone(),
        })
    }
}

type Answered = Result<Response, Infallible>;

impl<S> Service<Request> for Guard<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Answered>, Either<S::Future, BoxFuture<'static, Answered>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.method() != Method::GET && request.method() != Method::HEAD {
            let mut response =
                (StatusCode::METHOD_NOT_ALLOWED, "405 Method Not Allowed\n").into_response();
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Either::Left(ready(Ok(response)));
        }
        match judge(request.uri().path()) {
            Ok(()) => Either::Right(Either::Left(self.inner.call(request))),
            Err(BadTarget::Malformed) => {
                Either::Left(ready(Ok(
                    (StatusCode::BAD_REQUEST, "400 Bad Request\n").into_response()
                )))
            }
            Err(BadTarget::Hidden) => {
                let page = self.not_found.clone().oneshot(request);
                Either::Right(Either::Right(Box::pin(async move {
                    let Ok(page) = page.await;
                    Ok((StatusCode::NOT_FOUND, page).into_response())
                })))
            }
        }
    }
}

/// A service whose every answer is finished by `F`: what [`Metered`] and [`Headed`] are.
#[derive(Clone)]
pub struct Wrapped<S, F> {
    inner: S,
    finish: F,
}

/// What a [`Wrapped`] service does: notes what it needs when a request comes, and
/// finishes the answer with it.
pub trait Finish {
    /// What is kept from the request until its answer.
    type Noted;
    /// Notes what [`Finish::finish`] will need from `request`.
    fn note(&self, request: &Request) -> Self::Noted;
    /// Finishes `response`.
    fn finish(noted: Self::Noted, response: &mut Response);
}

impl<S, F: Clone> Wrapped<S, F> {
    /// The layer that wraps a service with `finish`.
    pub fn layer(finish: F) -> impl Layer<S, Service = Self> + Clone {
        tower::layer::layer_fn(move |inner| Self {
            inner,
            finish: finish.clone(),
        })
    }
}

impl<S, F> Service<Request> for Wrapped<S, F>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    F: Finish,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Finishing<S::Future, F>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Finishing {
            noted: Some(self.finish.note(&request)),
            inner: self.inner.call(request),
        }
    }
}

pin_project! {
    /// A [`Wrapped`] request under way.
    pub struct Finishing<Fut, F: Finish> {
        #[pin]
        inner: Fut,
        noted: Option<F::Noted>,
    }
}

impl<Fut: Future<Output = Answered>, F: Finish> Future for Finishing<Fut, F> {
    type Output = Answered;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answered> {
        let this = self.project();
        let Ok(mut response) = ready_poll!(this.inner.poll(cx));
        if let Some(noted) = this.noted.take() {
            F::finish(noted, &mut response);
        }
        Poll::Ready(Ok(response))
    }
}

/// Counts and times every request it wraps, by route class and status
/// ([`crate::operations::metrics`]).
pub type Metered<S> = Wrapped<S, Meter>;

/// Which kind of route a path is, for the metrics' labels: few values, never the path.
pub type RouteClass = fn(&str) -> &'static str;

/// [`Metered`]'s work: a request's route class and start, its answer's status and time.
#[derive(Clone, Copy)]
pub struct Meter(pub RouteClass);

impl Finish for Meter {
    type Noted = (&'static str, Instant);

    fn note(&self, request: &Request) -> Self::Noted {
        ((self.0)(request.uri().path()), Instant::now())
    }

    fn finish((route, started): Self::Noted, response: &mut Response) {
        metrics::answered(route, response.status(), started.elapsed());
    }
}

/// Gives every response, errors included, the headers of the build's `_headers` file:
/// `/*`'s always, the other rules' (the assets' cache policy) only on successful ones;
/// `no-cache` wherever no rule set a cache policy. A header the response set itself is
/// kept: a page the server makes (the one-click unsubscribe's) has a
/// Content-Security-Policy of its own, which the site's would break.
pub type Headed<S> = Wrapped<S, Heads>;

/// [`Headed`]'s work: the build's header rules, for the path asked for.
#[derive(Clone)]
pub struct Heads(pub Arc<[Rule]>);

impl Finish for Heads {
    type Noted = (Uri, Arc<[Rule]>);

    fn note(&self, request: &Request) -> Self::Noted {
        (request.uri().clone(), self.0.clone())
    }

    fn finish((uri, rules): Self::Noted, response: &mut Response) {
        add_headers(&rules, uri.path(), response);
    }
}

/// [`Headed`]'s work on one response to a request for `path`.
fn add_headers(rules: &[Rule], path: &str, response: &mut Response<Body>) {
    let status = response.status();
    let succeeded = status.is_success() || status == StatusCode::NOT_MODIFIED;
    let out = response.headers_mut();
    // The response's own, before any rule's (empty, so no allocation, for the files).
    let its_own: Vec<&HeaderName> = rules
        .iter()
        .flat_map(|rule| rule.headers.iter().map(|(name, _)| name))
        .filter(|name| out.contains_key(*name))
        .collect();
    for rule in rules {
        // `/*` is every response's, whatever was asked for (`*` itself included).
        let everywhere = rule.pattern == "/*";
        if everywhere || (succeeded && rule.matches(path)) {
            for (name, value) in &rule.headers {
                if !its_own.contains(&name) {
                    out.insert(name.clone(), value.clone());
                }
            }
        }
    }
    out.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-cache"));
    // A 304 stands for the 200 it revalidates, which varies with the encoding asked for
    // (ServeDir says so on its 200s only).
    if status == StatusCode::NOT_MODIFIED {
        out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(typed) = with_charset(out.get(header::CONTENT_TYPE)) {
        out.insert(header::CONTENT_TYPE, typed);
    }
}

/// Text types say their encoding (every file of the build is UTF-8).
fn with_charset(content_type: Option<&HeaderValue>) -> Option<HeaderValue> {
    let value = content_type?.to_str().ok()?;
    let text = value.starts_with("text/")
        || value == "application/json"
        || value == "image/svg+xml"
        || value == "application/xml";
    if !text || value.contains("charset") {
        return None;
    }
    HeaderValue::try_from(format!("{value}; charset=utf-8")).ok()
}
