//! Serving the site's static build (`web/dist`); no database here.
//!
//! tower-http's `ServeDir` does the file serving: clean URLs (`/contact` is
//! `contact/index.html`), the build's brotli and gzip variants chosen by `Accept-Encoding`
//! (q-values and case honoured, `Vary: Accept-Encoding` always), `ETag` and
//! `Last-Modified` with 304s, ranges, and no path outside the folder. It reads the build
//! from memory ([`memory`]), and a [`memo`] keeps its answers to plain `GET`s. Around it,
//! layers of this crate's own ([`layers`]): [`Guard`] refuses what is not a plain request
//! for a page (400 for a malformed target, 405 for another method, 404 for dotfiles and
//! `_headers`), and [`Headed`] gives every response, errors included, the headers of the
//! build's `_headers` file, and a cache policy: a year, immutable, for hashed assets that
//! exist, `no-cache` for everything else. [`connection`] bounds every connection.

pub mod compress;
pub mod connection;
pub mod headers;
pub mod layers;
pub mod memo;
pub mod memory;
pub mod target;

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{Uri, header};
use axum::response::{IntoResponse, Response};
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceBuilder, ServiceExt};
use tower_http::services::ServeDir;

use self::headers::{HSTS, Rule};
use self::layers::{Guard, Headed, Heads, Page};
use self::memo::Memo;
use self::memory::Memory;

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
}

impl Site {
    /// Reads the build at `dist`, every file into memory. Without `hsts`,
    /// `Strict-Transport-Security` is left out of the headers: it belongs to deployments
    /// behind TLS.
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
        Ok(Self { dist, files, rules })
    }

    /// The files behind [`Guard`] and the [`Memo`], the 404 page for what is missing.
    pub fn files(
        &self,
    ) -> impl Service<Request, Response = Response, Error = Infallible, Future: Send + 'static>
    + Clone
    + Send
    + Sync
    + 'static {
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
        ServiceBuilder::new()
            .layer(Guard::layer(not_found))
            .layer(Memo::layer())
            .map_response(IntoResponse::into_response)
            .service(files)
    }

    /// `service`, every response given the build's headers ([`Headed`]).
    pub fn headed<S>(&self, service: S) -> Headed<S>
    where
        S: Service<Request, Response = Response, Error = Infallible>,
    {
        Headed::layer(Heads(self.rules.clone().into())).layer(service)
    }
}
