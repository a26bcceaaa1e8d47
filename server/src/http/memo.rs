//! [`Memo`]: `ServeDir`'s answers, kept and given again.
//!
//! The build is read once and never changes while the server runs, so what `ServeDir`
//! answers to a plain `GET` depends only on the path and the `Accept-Encoding` header:
//! the answer is kept under those two, and the next such request gets a copy of its
//! headers and the same body bytes. `ServeDir` still decides every answer the first time,
//! and every request that asks for something else (`HEAD`, a range, a condition such as
//! `If-None-Match`) still goes to it. Without this, each answer cost `ServeDir` its path
//! parsing, its lookups, its dates and tags, and a copy of the file through a 64 KB
//! buffer: a third of the server's requests per second on the largest asset.
//!
//! Only 200s are kept, in a cache bounded by the bytes of their bodies ([`CAPACITY`]):
//! a flood of made-up `Accept-Encoding` values evicts, it never grows the server.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::hash::Hash;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use http_body_util::BodyExt;
use quick_cache::sync::Cache;
use quick_cache::{Equivalent, Weighter};
use tower::{Layer, Service};

/// The most body bytes kept: the whole build in every encoding is about a megabyte.
pub const CAPACITY: u64 = 16 << 20;

/// Headers that make an answer depend on more than the path and the encodings accepted.
const ASKING_MORE: [header::HeaderName; 6] = [
    header::RANGE,
    header::IF_RANGE,
    header::IF_NONE_MATCH,
    header::IF_MODIFIED_SINCE,
    header::IF_MATCH,
    header::IF_UNMODIFIED_SINCE,
];

/// What an answer is kept under.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    path: Box<str>,
    accepted: Box<[u8]>,
}

/// A request's [`Key`], borrowed from it (hashes as the key does).
#[derive(Hash)]
struct Asked<'a> {
    path: &'a str,
    accepted: &'a [u8],
}

impl Equivalent<Key> for Asked<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        *self.path == *key.path && *self.accepted == *key.accepted
    }
}

impl Asked<'_> {
    fn to_key(&self) -> Key {
        Key {
            path: self.path.into(),
            accepted: self.accepted.into(),
        }
    }
}

/// A kept answer: its headers and its body.
struct Kept {
    headers: HeaderMap,
    body: Bytes,
}

impl Kept {
    fn response(&self) -> Response {
        let mut response = Response::new(Body::from(self.body.clone()));
        *response.headers_mut() = self.headers.clone();
        response
    }
}

#[derive(Clone)]
struct ByBodySize;

impl Weighter<Key, Arc<Kept>> for ByBodySize {
    fn weight(&self, key: &Key, kept: &Arc<Kept>) -> u64 {
        (key.path.len() + key.accepted.len() + kept.body.len()) as u64
    }
}

type Answers = Cache<Key, Arc<Kept>, ByBodySize>;

/// `inner`'s 200s to plain `GET`s, kept by path and `Accept-Encoding`.
#[derive(Clone)]
pub struct Memo<S> {
    inner: S,
    answers: Arc<Answers>,
}

impl<S> Memo<S> {
    /// A layer whose services share one cache of at most [`CAPACITY`] body bytes.
    pub fn layer() -> impl Layer<S, Service = Self> + Clone {
        Self::layer_holding(CAPACITY)
    }

    /// A layer whose services share one cache of at most `capacity` body bytes.
    pub fn layer_holding(capacity: u64) -> impl Layer<S, Service = Self> + Clone {
        let answers = Arc::new(Cache::with_weighter(256, capacity, ByBodySize));
        tower::layer::layer_fn(move |inner| Self {
            inner,
            answers: Arc::clone(&answers),
        })
    }
}

/// The request's key, if its answer may be kept.
fn asked(request: &Request) -> Option<Asked<'_>> {
    let plain = request.method() == Method::GET
        && !ASKING_MORE
            .iter()
            .any(|name| request.headers().contains_key(name));
    plain.then(|| Asked {
        path: request.uri().path(),
        accepted: request
            .headers()
            .get(header::ACCEPT_ENCODING)
            .map_or(&[][..], |value| value.as_bytes()),
    })
}

type Answered = Result<Response, Infallible>;
type Keeping = Pin<Box<dyn Future<Output = Answered> + Send>>;

impl<S> Service<Request> for Memo<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Answered>, Either<S::Future, Keeping>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let Some(key) = asked(&request) else {
            return Either::Right(Either::Left(self.inner.call(request)));
        };
        if let Some(kept) = self.answers.get(&key) {
            return Either::Left(ready(Ok(kept.response())));
        }
        let key = key.to_key();
        let answers = Arc::clone(&self.answers);
        let answer = self.inner.call(request);
        Either::Right(Either::Right(Box::pin(async move {
            let Ok(response) = answer.await;
            if response.status() != StatusCode::OK {
                return Ok(response);
            }
            let (parts, body) = response.into_parts();
            // The body is the build's bytes in memory: reading it cannot fail.
            let body = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(e) => {
                    tracing::error!("a file of the build could not be read: {e}");
                    return Ok(StatusCode::INTERNAL_SERVER_ERROR.into_response());
                }
            };
            let kept = Arc::new(Kept {
                headers: parts.headers,
                body,
            });
            answers.insert(key, Arc::clone(&kept));
            Ok(kept.response())
        })))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::http::HeaderValue;
    use tower::ServiceExt;

    use super::*;
    use crate::http::layers::Page;

    /// A stand-in for `ServeDir`: the path and the encodings asked for in the body, 404
    /// for `/missing`, and a count of the calls that reached it.
    fn counted(calls: Arc<AtomicUsize>) -> Memo<Page> {
        Memo::layer_holding(4096).layer(Page::new(tower::service_fn(move |request: Request| {
            calls.fetch_add(1, Ordering::Relaxed);
            let accepted = request
                .headers()
                .get(header::ACCEPT_ENCODING)
                .map_or("none", |v| v.to_str().unwrap())
                .to_owned();
            let path = request.uri().path().to_owned();
            async move {
                let status = if path == "/missing" {
                    StatusCode::NOT_FOUND
                } else {
                    StatusCode::OK
                };
                let mut response = (status, format!("{path} {accepted}")).into_response();
                response
                    .headers_mut()
                    .insert(header::ETAG, HeaderValue::from_static("\"1\""));
                Ok::<_, Infallible>(response)
            }
        })))
    }

    fn get(path: &str, headers: &[(&str, &str)]) -> Request {
        let mut request = Request::get(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(Body::empty()).unwrap()
    }

    async fn answer(memo: &Memo<Page>, request: Request) -> (StatusCode, HeaderMap, String) {
        let response = memo.clone().oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        (
            parts.status,
            parts.headers,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    #[tokio::test]
    async fn a_plain_get_is_answered_again_from_what_was_kept() {
        let calls = Arc::new(AtomicUsize::new(0));
        let memo = counted(calls.clone());
        let first = answer(&memo, get("/contact", &[("accept-encoding", "br")])).await;
        let again = answer(&memo, get("/contact", &[("accept-encoding", "br")])).await;
        assert_eq!(first, again);
        assert_eq!(first.2, "/contact br");
        assert_eq!(first.1.get(header::ETAG).unwrap(), "\"1\"");
        assert_eq!(calls.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn another_path_or_other_encodings_are_asked_for_again() {
        let calls = Arc::new(AtomicUsize::new(0));
        let memo = counted(calls.clone());
        answer(&memo, get("/", &[("accept-encoding", "br")])).await;
        let identity = answer(&memo, get("/", &[])).await;
        let gzip = answer(&memo, get("/", &[("accept-encoding", "gzip")])).await;
        let other = answer(&memo, get("/terms", &[("accept-encoding", "br")])).await;
        assert_eq!(identity.2, "/ none");
        assert_eq!(gzip.2, "/ gzip");
        assert_eq!(other.2, "/terms br");
        assert_eq!(calls.load(Ordering::Relaxed), 4);
    }

    #[tokio::test]
    async fn conditions_ranges_heads_and_errors_always_reach_the_files() {
        let calls = Arc::new(AtomicUsize::new(0));
        let memo = counted(calls.clone());
        answer(&memo, get("/", &[])).await;
        for name in ASKING_MORE {
            answer(&memo, get("/", &[(name.as_str(), "x")])).await;
        }
        let head = Request::head("/").body(Body::empty()).unwrap();
        memo.clone().oneshot(head).await.unwrap();
        let (status, _, _) = answer(&memo, get("/missing", &[])).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        answer(&memo, get("/missing", &[])).await;
        assert_eq!(calls.load(Ordering::Relaxed), 1 + ASKING_MORE.len() + 1 + 2);
    }

    #[tokio::test]
    async fn made_up_encodings_never_grow_it_past_its_capacity() {
        let calls = Arc::new(AtomicUsize::new(0));
        let memo = counted(calls.clone());
        for n in 0..1000 {
            let made_up = format!("x-{n:0>100}");
            answer(&memo, get("/", &[("accept-encoding", &made_up)])).await;
        }
        assert!(memo.answers.weight() <= 4096, "{}", memo.answers.weight());
        assert!(memo.answers.weight() > 2048, "{}", memo.answers.weight());
        assert_eq!(calls.load(Ordering::Relaxed), 1000);
    }
}
