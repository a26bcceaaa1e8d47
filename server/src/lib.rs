//! `lathe-site`: serves the Lathe site's static build (`web/dist`).
//!
//! tower-http's `ServeDir` does the file serving: clean URLs (`/contact` is
//! `contact/index.html`), the build's brotli and gzip variants chosen by `Accept-Encoding`
//! (q-values and case honoured, `Vary: Accept-Encoding` always), `ETag` and
//! `Last-Modified` with 304s, ranges, and no path outside the folder. Around it, layers of
//! this crate's own ([`layers`]): [`Guard`] refuses what is not a plain request for a page
//! (400 for a malformed target, 405 for another method, 404 for dotfiles and `_headers`),
//! and [`Headed`] gives every response, errors included, the headers of the build's
//! `_headers` file, and a cache policy: a year, immutable, for hashed assets that exist,
//! `no-cache` for everything else.

pub mod compress;
pub mod confirmation;
pub mod connection;
pub mod export;
pub mod headers;
pub mod health;
pub mod layers;
pub mod mail;
pub mod memo;
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

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::{Uri, header};
use axum::response::{IntoResponse, Response};
use tower::util::BoxCloneSyncService;
use tower::{ServiceBuilder, ServiceExt};
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;

use crate::headers::{HSTS, Rule};
use crate::layers::{Guard, Headed, Metered, Page};
use crate::memo::Memo;
use crate::memory::Memory;
use crate::waitlist::Waitlist;

/// The site as one service: what [`Site::router`] makes and [`serve`] serves.
pub type App = Headed<Router>;

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

    /// The service: files behind [`Guard`], the waitlist's endpoint (or a route that says
    /// the server is not collecting), both logged and [`Metered`]; `/healthz` and
    /// `/readyz`; and [`Headed`] around all. Each layer wraps its service once (see
    /// [`layers`]); the two routers are the only boxes a request goes through.
    pub fn router(self) -> App {
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
        let files = ServiceBuilder::new()
            .layer(Guard::layer(not_found))
            .layer(Memo::layer())
            .map_response(IntoResponse::into_response)
            .service(files);
        let health = health::Health {
            draining: self.draining,
            store: self.waitlist.as_ref().map(|w| w.store().clone()),
        };
        let api = self
            .waitlist
            .map_or_else(waitlist::not_collecting, Waitlist::router);
        let logged = ServiceBuilder::new()
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_span as fn(&Request) -> tracing::Span)
                    .on_request(())
                    .on_response(log_answer as fn(&Response, Duration, &tracing::Span))
                    .on_body_chunk(())
                    .on_eos(())
                    .on_failure(()),
            )
            .layer(Metered::layer())
            .service(Router::new().merge(api).fallback_service(files));
        // Probed every few seconds by a load balancer: not logged.
        let routed = Router::new()
            .merge(health.router())
            .fallback_service(logged);
        ServiceBuilder::new()
            .layer(Headed::layer(self.rules.into()))
            .service(routed)
    }
}

/// The span of a request's log line: method, path (never the query) and client.
fn request_span(request: &Request) -> tracing::Span {
    // Fields are written only if the span is enabled (at `RUST_LOG=info` or finer).
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        client = client.map(tracing::field::display),
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
