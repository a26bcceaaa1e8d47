//! `lathe-site`: serves the Lathe site's static build (`web/dist`).
//!
//! tower-http's `ServeDir` does the file serving: clean URLs (`/contact` is
//! `contact/index.html`), the build's brotli and gzip variants chosen by `Accept-Encoding`
//! (q-values and case honoured, `Vary: Accept-Encoding` always), `ETag` and
//! `Last-Modified` with 304s, ranges, and no path outside the folder. Around it, two
//! layers of this crate's own: [`guard`] refuses what is not a plain request for a page
//! (400 for a malformed target, 405 for another method, 404 for dotfiles and `_headers`),
//! and [`add_headers`] gives every response, errors included, the headers of the build's
//! `_headers` file, and a cache policy: a year, immutable, for hashed assets that exist,
//! `no-cache` for everything else.

pub mod compress;
pub mod confirmation;
pub mod connection;
pub mod export;
pub mod headers;
pub mod health;
pub mod mail;
pub mod memory;
pub mod outbox;
pub mod prometheus;
pub mod retention;
pub mod store;
pub mod token;
pub mod waitlist;

/// Now, in ms since the Unix epoch: the time the rules are given (they never read a
/// clock themselves).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::ConnectInfo;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;

use axum::http::Uri;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

use crate::headers::{HSTS, Rule};
use crate::memory::Memory;
use crate::waitlist::Waitlist;

/// A service answering with one page whatever is asked: the 404 page.
type Page = BoxCloneSyncService<Request, Response, Infallible>;

/// What a site needs before it can be served.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The folder, its `index.html` or its `404.html` is missing.
    #[error("{} is not a built site (no index.html and 404.html): run `make build` first", .0.display())]
    NotABuild(PathBuf),
    /// `_headers` could not be read.
    #[error("cannot read {path}: {source}", path = .0.display(), source = .1)]
    Headers(PathBuf, #[source] std::io::Error),
    /// `_headers` could not be understood.
    #[error("{path}: {source}", path = .0.display(), source = .1)]
    HeadersSyntax(PathBuf, #[source] headers::ParseError),
    /// The build could not be read.
    #[error("cannot read {path}: {source}", path = .0.display(), source = .1)]
    Read(PathBuf, #[source] std::io::Error),
}

/// A built site, ready to serve.
pub struct Site {
    dist: PathBuf,
    files: Memory,
    rules: Vec<Rule>,
    waitlist: Option<Waitlist>,
    /// Set once the server is told to stop: `/readyz` then says 503.
    draining: Arc<AtomicBool>,
}

impl Site {
    /// Reads the build at `dist`, every file into memory. Without `hsts`, `Strict-Transport-Security` is left out
    /// of the headers: it belongs to deployments behind TLS.
    ///
    /// # Errors
    /// No build there, or a `_headers` file that cannot be read or understood.
    pub fn load(dist: &Path, hsts: bool) -> Result<Self, LoadError> {
        if !dist.join("index.html").is_file() || !dist.join("404.html").is_file() {
            return Err(LoadError::NotABuild(dist.to_owned()));
        }
        let file = dist.join("_headers");
        let text =
            std::fs::read_to_string(&file).map_err(|e| LoadError::Headers(file.clone(), e))?;
        let mut rules =
            headers::parse(&text).map_err(|e| LoadError::HeadersSyntax(file.clone(), e))?;
        if !hsts {
            for rule in &mut rules {
                rule.headers.retain(|(name, _)| name != HSTS);
            }
        }
        // Absolute: ServeDir asks for `./dist/...` when given a relative folder, and the
        // files must be found under the names it asks for.
        let read = |e| LoadError::Read(dist.to_owned(), e);
        let dist = dist.canonicalize().map_err(read)?;
        let files = Memory::load(&dist).map_err(read)?;
        Ok(Self {
            dist,
            files,
            rules,
            waitlist: None,
            draining: Arc::default(),
        })
    }

    /// The site, collecting its waitlist's sign-ups at [`waitlist::PATH`].
    #[must_use]
    pub fn with_waitlist(mut self, waitlist: Waitlist) -> Self {
        self.waitlist = Some(waitlist);
        self
    }

    /// The service: files behind [`guard`], the waitlist's endpoint (or a route that says
    /// the server is not collecting), `/healthz` and `/readyz`, and [`add_headers`]
    /// around all.
    pub fn router(self) -> Router {
        let serve = || {
            ServeDir::with_backend(&self.dist, self.files.clone())
                .precompressed_br()
                .precompressed_gzip()
        };
        let not_found: Page = BoxCloneSyncService::new(
            serve()
                .map_request(|mut request: Request| {
                    *request.uri_mut() = Uri::from_static("/404.html");
                    // The 404 page is an error's body, not a resource of its own: no
                    // 304 for it, and no part of it (nor validators or ranges offered,
                    // below).
                    for name in [
                        header::IF_NONE_MATCH,
                        header::IF_MODIFIED_SINCE,
                        header::IF_MATCH,
                        header::IF_UNMODIFIED_SINCE,
                        header::IF_RANGE,
                        header::RANGE,
                    ] {
                        request.headers_mut().remove(name);
                    }
                    request
                })
                .map_response(|response| {
                    let mut response = response.into_response();
                    for name in [header::ETAG, header::LAST_MODIFIED, header::ACCEPT_RANGES] {
                        response.headers_mut().remove(name);
                    }
                    response
                }),
        );
        let files = serve()
            .precompressed_gzip()
            .append_index_html_on_directories(true)
            .redirect_to_trailing_slash(false)
            .not_found_service(not_found.clone());
        let rules = Arc::new(self.rules);
        let health = health::Health {
            draining: self.draining,
            store: self.waitlist.as_ref().map(|w| w.store().clone()),
        };
        let api = self
            .waitlist
            .map_or_else(waitlist::not_collecting, Waitlist::router);
        Router::new()
            .fallback_service(files)
            .layer(middleware::from_fn_with_state(not_found, guard))
            .merge(api)
            .layer(middleware::from_fn(prometheus::record))
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_span as fn(&Request) -> tracing::Span)
                    .on_request(())
                    .on_response(log_answer as fn(&Response, Duration, &tracing::Span))
                    .on_body_chunk(())
                    .on_eos(())
                    .on_failure(()),
            )
            // Probed every few seconds by a load balancer: not logged.
            .merge(health.router())
            .layer(middleware::from_fn_with_state(rules, add_headers))
    }
}

/// The span of a request's log line: method, path (never the query) and client.
fn request_span(request: &Request) -> tracing::Span {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip().to_string())
        .unwrap_or_default();
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        client = %client,
    )
}

/// A request's log line, when it is answered: status, bytes and duration, in its span.
fn log_answer(response: &Response, latency: Duration, _: &tracing::Span) {
    // The body's length as sent, where it is known before it is (not for a streamed
    // export).
    let bytes = response
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| axum::body::HttpBody::size_hint(response.body()).exact());
    tracing::info!(
        status = response.status().as_u16(),
        bytes,
        duration_ms = (latency.as_secs_f64() * 1_000_000.0).round() / 1000.0,
        "answered"
    );
}

/// Serves `site` on `listener` within `limits` until `stop` resolves; then `/readyz`
/// answers 503 while the server goes on serving for [`connection::Limits::shutdown_delay`]
/// (time for a load balancer to notice), then it finishes the requests under way
/// ([`connection::serve`]).
///
/// # Errors
/// The listener failing.
pub async fn serve(
    listener: tokio::net::TcpListener,
    site: Site,
    limits: connection::Limits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let draining = site.draining.clone();
    let stop = async move {
        stop.await;
        draining.store(true, Ordering::SeqCst);
        tokio::time::sleep(limits.shutdown_delay).await;
    };
    connection::serve(listener, site.router(), limits, stop).await
}

/// Why a request target is refused before any file is looked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a plain path: 400.
    Malformed,
    /// A dotfile or the build's `_headers`: 404, as if absent.
    Hidden,
}

/// Judges a request path (as sent, still percent-encoded).
///
/// # Errors
/// The [`Refusal`], when the path is not one to look a file up for.
pub fn judge(path: &str) -> Result<(), Refusal> {
    if !path.starts_with('/') || path.contains("//") || path.contains('\\') {
        return Err(Refusal::Malformed);
    }
    let Ok(decoded) = percent_decode(path) else {
        return Err(Refusal::Malformed);
    };
    if decoded.chars().any(char::is_control) || decoded.contains('\\') || decoded.contains("//") {
        return Err(Refusal::Malformed);
    }
    let segments = || decoded.split('/').skip(1);
    let encoded = path.to_ascii_lowercase();
    if segments().any(|s| s == ".." || s == ".")
        || encoded.contains("%2f")
        || encoded.contains("%5c")
    {
        // A step out or in place, or a slash hidden from the path's own structure.
        return Err(Refusal::Malformed);
    }
    if segments().any(|s| s.starts_with('.')) || decoded == "/_headers" {
        return Err(Refusal::Hidden);
    }
    Ok(())
}

/// `%XX` decoding to UTF-8; `Err` for a broken escape or bytes that are not UTF-8.
fn percent_decode(path: &str) -> Result<String, ()> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(())?;
            let hex = std::str::from_utf8(hex).map_err(|_| ())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

/// Refuses what is not a plain `GET` or `HEAD` of a plain path; a hidden file is
/// answered as a missing one, with the 404 page.
pub async fn guard(State(not_found): State<Page>, request: Request, next: Next) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response =
            (StatusCode::METHOD_NOT_ALLOWED, "405 Method Not Allowed\n").into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match judge(request.uri().path()) {
        Ok(()) => next.run(request).await,
        Err(Refusal::Malformed) => (StatusCode::BAD_REQUEST, "400 Bad Request\n").into_response(),
        Err(Refusal::Hidden) => match not_found.oneshot(request).await {
            Ok(page) => (StatusCode::NOT_FOUND, page).into_response(),
            Err(never) => match never {},
        },
    }
}

/// The `_headers` file's headers on every response; its other rules (the assets' cache
/// policy) only on successful ones; `no-cache` wherever no rule set a cache policy.
pub async fn add_headers(
    State(rules): State<Arc<Vec<Rule>>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    let path = request.uri().path().to_owned();
    let mut response = next.run(request).await;
    let succeeded = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    let not_modified = response.status() == StatusCode::NOT_MODIFIED;
    let out = response.headers_mut();
    for rule in rules.iter() {
        // `/*` is every response's, whatever was asked for (`*` itself included).
        let everywhere = rule.pattern == "/*";
        if everywhere || (succeeded && rule.matches(&path)) {
            for (name, value) in &rule.headers {
                out.insert(name.clone(), value.clone());
            }
        }
    }
    out.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-cache"));
    // A 304 stands for the 200 it revalidates, which varies with the encoding asked for
    // (ServeDir says so on its 200s only).
    if not_modified {
        out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(typed) = with_charset(out.get(header::CONTENT_TYPE)) {
        out.insert(header::CONTENT_TYPE, typed);
    }
    response
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_pass() {
        for path in [
            "/",
            "/contact",
            "/contact/",
            "/assets/index-Ab_1.js",
            "/caf%C3%A9",
            "/a%20b",
        ] {
            assert_eq!(judge(path), Ok(()), "{path}");
        }
    }

    // Malformed targets are refused over real HTTP: tests/http.rs, hostile_targets_….

    #[test]
    fn dotfiles_and_the_headers_file_are_hidden() {
        for path in ["/_headers", "/.env", "/assets/.secret", "/.well-known/x"] {
            assert_eq!(judge(path), Err(Refusal::Hidden), "{path}");
        }
    }
}
