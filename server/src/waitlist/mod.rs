//! The waitlist's HTTP routes, served when the server is given a database
//! ([`crate::store`]): `POST /api/waitlist` ([`sign_up`]) and, when it sends email, the
//! requests of the pages its links open ([`links`]). Bodies are read one way
//! ([`body`]); who posts is checked one way ([`origin`]). Each route family answers with
//! its own error type, which logs and counts its own reasons.

pub mod body;
pub mod counts;
pub mod credits;
pub mod links;
pub mod origin;
pub mod proof;
pub mod sign_up;
pub mod unsubscribe;

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::FromRef;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tokio::sync::Notify;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::RequestBodyDeadlineLayer;

use self::links::Links;
use self::proof::Proofs;
use self::sign_up::SignUpError;
use crate::domain::Kind;
use crate::domain::token::Key;
use crate::operations::metrics;
use crate::store::{Allowance, Backend, Store};

pub use self::unsubscribe::UNSUBSCRIBE_PATH;

/// The path sign-ups are posted to.
pub const PATH: &str = "/api/waitlist";

/// How the endpoint is set up.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Sign-ups accepted per client per minute (a burst of as many, then one every
    /// 60/n s); `None` for no limit.
    pub per_minute: Option<NonZeroU32>,
    /// Origins other than the site's own allowed to post (a site on another host that
    /// uses this server as its form service), e.g. `https://www.example.com`.
    pub allowed_origins: Vec<String>,
    /// How many proxies in front of the server append to `X-Forwarded-For` (nginx with
    /// `$proxy_add_x_forwarded_for` is one); 0 when clients connect directly, and the
    /// header, which anyone can send, is ignored.
    pub trusted_proxies: usize,
    /// How long a body may take to arrive, whole (408 after). A limit on the connection,
    /// kept here because only these routes read a body; the others are in
    /// the connection limits.
    pub body_timeout: Duration,
    /// Places a confirmed friend moves their referrer ahead (`--places-per-referral`; 0
    /// turns referrals off).
    pub places_per_referral: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            per_minute: NonZeroU32::new(5),
            allowed_origins: Vec::new(),
            trusted_proxies: 0,
            body_timeout: Duration::from_secs(10),
            places_per_referral: lathe_core::line::PLACES_PER_REFERRAL,
        }
    }
}

/// The endpoint: a store, and its settings.
#[derive(Clone)]
pub struct Waitlist {
    store: Store,
    settings: Arc<Settings>,
    /// The allowance in memory, with SQLite.
    limiter: Option<Arc<DefaultKeyedRateLimiter<IpAddr>>>,
    confirming: Option<Confirming>,
    proofs: Option<Proofs>,
}

/// What confirming addresses takes: the key of the links, and the outbox worker to wake.
#[derive(Clone)]
struct Confirming {
    key: Key,
    outbox: Arc<Notify>,
}

impl FromRef<Waitlist> for Arc<Settings> {
    fn from_ref(waitlist: &Waitlist) -> Self {
        waitlist.settings.clone()
    }
}

impl Waitlist {
    /// The endpoint over `store`.
    pub fn new(store: Store, settings: Settings) -> Self {
        // SQLite has one process: the allowance is kept in its memory. PostgreSQL's
        // instances share theirs in the database (see `admit`).
        let limiter = settings
            .per_minute
            .filter(|_| store.backend() == Backend::Sqlite)
            .map(|n| Arc::new(RateLimiter::keyed(Quota::per_minute(n))));
        Self {
            store,
            settings: Arc::new(settings),
            limiter,
            confirming: None,
            proofs: None,
        }
    }

    /// Asks each sign-up for a proof of work, from challenges `proofs` issues at
    /// [`proof::CHALLENGE_PATH`].
    #[must_use]
    pub fn with_proofs(mut self, proofs: Proofs) -> Self {
        self.proofs = Some(proofs);
        self
    }

    /// Confirms addresses: new entries are pending, each sign-up queues its email (and
    /// wakes `outbox`), and the link routes check links signed with `key`.
    #[must_use]
    pub fn confirming(mut self, key: Key, outbox: Arc<Notify>) -> Self {
        self.confirming = Some(Confirming { key, outbox });
        self
    }

    /// An email was queued: counted, and the worker woken.
    fn queued(&self, kind: Kind) {
        if let Some(confirming) = &self.confirming {
            queued(&confirming.outbox, kind);
        }
    }

    /// The task that forgets clients once they are back to a full allowance (every
    /// minute, until dropped), when there is an allowance.
    pub fn forgetting(&self) -> Option<impl Future<Output = ()> + Send + 'static> {
        let limiter = self.limiter.clone()?;
        Some(async move {
            let mut every = tokio::time::interval(Duration::from_secs(60));
            loop {
                every.tick().await;
                limiter.retain_recent();
            }
        })
    }

    /// The routes.
    pub fn router(self) -> Router {
        // A site on another host that posts here needs CORS: its preflight is answered
        // for the allowed origins only (and the post itself is checked by FromOwnSite).
        let origins: Vec<HeaderValue> = self
            .settings
            .allowed_origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        let cors = CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([Method::POST])
            .allow_headers([header::CONTENT_TYPE])
            .max_age(Duration::from_secs(3600));
        let deadline = RequestBodyDeadlineLayer::new(self.settings.body_timeout);
        let links = match &self.confirming {
            Some(confirming) => links::router(Links {
                store: self.store.clone(),
                key: confirming.key.clone(),
                outbox: confirming.outbox.clone(),
                settings: self.settings.clone(),
            }),
            None => links::not_confirming(),
        };
        let proofs = self.proofs.clone();
        let challenge = move || std::future::ready(proof::challenge(proofs.as_ref()));
        Router::new()
            .route(PATH, post(sign_up::sign_up))
            .route(proof::CHALLENGE_PATH, get(challenge))
            .with_state(self)
            .merge(links)
            .layer(deadline)
            .layer(cors)
    }

    /// Takes one sign-up from `client`'s allowance on SQLite (one process: in memory).
    /// On PostgreSQL the allowance is taken in the database, with the sign-up, so that
    /// every server on it counts it together: what to give [`Store::sign_up`].
    fn admit<'a>(&self, ip: IpAddr, client: &'a str) -> Result<Option<Allowance<'a>>, SignUpError> {
        let Some(per_minute) = self.settings.per_minute else {
            return Ok(None);
        };
        let Some(limiter) = &self.limiter else {
            return Ok(Some(Allowance {
                client,
                per_minute,
                now_us: crate::now_us(),
            }));
        };
        let now = DefaultClock::default().now();
        match limiter.check_key(&ip) {
            Ok(()) => Ok(None),
            Err(not_until) => Err(too_many(not_until.wait_time_from(now))),
        }
    }
}

/// A sign-up refused for `wait` (rounded up to whole seconds, for `Retry-After`).
pub(crate) fn too_many(wait: Duration) -> SignUpError {
    SignUpError::TooMany(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
}

/// The route when no database was given: says so, instead of a 405 that would puzzle.
pub fn not_collecting() -> Router {
    Router::new().route(PATH, post(sign_up::not_collecting))
}

/// An email of `kind` was queued: counted, and `outbox` woken.
fn queued(outbox: &Notify, kind: Kind) {
    metrics::email(kind.as_str(), "queued");
    outbox.notify_one();
}

/// A JSON answer that nothing stores.
fn answer(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = (status, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
