//! `POST /api/waitlist`: the waitlist form's endpoint, served when the server is given a
//! database ([`crate::store`]).
//!
//! A sign-up is checked with lathe-core's own rules, natively (the browser runs the same
//! code as wasm, so both say the same thing in the same words), then stored. Everything
//! else is a [`Refusal`], with its status and a JSON body `{"error": "..."}` that says why.
//! The handler reads as the order of the checks: where the post comes from
//! ([`FromOwnSite`]), what it holds ([`SignUp`]), the rules, the honeypot, the client's
//! allowance ([`Client`]), the store.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use lathe_core::validation::{FieldError, FormValues, Interest, is_control_or_format, validate};
use serde::Deserialize;
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::RequestBodyDeadlineLayer;

use crate::mail::Kind;
use crate::store::{Entry, Store, StoreError};
use crate::token::Key;

/// The path the endpoint answers on.
pub const PATH: &str = "/api/waitlist";
/// The largest body accepted, in bytes: far more than any real sign-up.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The longest privacy notice version accepted.
const VERSION_LIMIT: usize = 64;

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
    /// How long a sign-up's body may take to arrive, whole (408 after). A limit on the
    /// connection, kept here because only this endpoint reads a body; the others are in
    /// [`crate::connection::Limits`].
    pub body_timeout: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            per_minute: NonZeroU32::new(5),
            allowed_origins: Vec::new(),
            trusted_proxies: 0,
            body_timeout: Duration::from_secs(10),
        }
    }
}

/// Why a post was not stored. Each is answered with its status and `{"error": message}`
/// (and `errors` for a sign-up that breaks the rules); none is ever a 5xx unless the
/// server, not the input, is at fault.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A post from another site's page: 403.
    #[error("sign-ups are accepted from the site's own pages only")]
    OtherSite,
    /// A body that is not JSON: 415.
    #[error("send the sign-up as JSON (Content-Type: application/json)")]
    NotJson,
    /// A body over [`BODY_LIMIT`]: 413.
    #[error("the sign-up is larger than {} KiB", BODY_LIMIT / 1024)]
    TooLarge,
    /// A body that did not arrive within the body timeout: 408.
    #[error("the sign-up arrived too slowly: please try again")]
    TooSlow,
    /// JSON that is not a sign-up (a missing field, a wrong type, an unknown field or
    /// interest, no privacy notice version): 400.
    #[error("not a sign-up: {0}")]
    NotASignUp(String),
    /// A sign-up that breaks the form's rules: 422, with the core's field errors.
    #[error("the sign-up breaks the form's rules")]
    BreaksRules(Vec<FieldError>),
    /// Too many sign-ups from one client: 429, with `Retry-After` in seconds.
    #[error("too many sign-ups from your address: try again in {0} s")]
    TooMany(u64),
    /// The database failed or cannot be reached: 503 (the cause is logged, not sent).
    #[error("the sign-up could not be stored just now: please try again")]
    NotStored(#[source] StoreError),
    /// The server was started without a database: 503.
    #[error("this server is not collecting sign-ups: start it with --database")]
    NotCollecting,
    /// A link's request to a server that sends no email (no `--smtp`): 404.
    #[error("this server does not confirm addresses: start it with --smtp")]
    NotConfirming,
}

impl Refusal {
    /// The status it is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::OtherSite => StatusCode::FORBIDDEN,
            Refusal::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Refusal::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::TooSlow => StatusCode::REQUEST_TIMEOUT,
            Refusal::NotASignUp(_) => StatusCode::BAD_REQUEST,
            Refusal::BreaksRules(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Refusal::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            Refusal::NotStored(_) | Refusal::NotCollecting => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::NotConfirming => StatusCode::NOT_FOUND,
        }
    }
}

impl Refusal {
    /// A short name for the logs and metrics: never anything the visitor sent.
    pub const fn reason(&self) -> &'static str {
        match self {
            Refusal::OtherSite => "other-site",
            Refusal::NotJson => "not-json",
            Refusal::TooLarge => "too-large",
            Refusal::TooSlow => "too-slow",
            Refusal::NotASignUp(_) => "not-a-sign-up",
            Refusal::BreaksRules(_) => "breaks-rules",
            Refusal::TooMany(_) => "too-many",
            Refusal::NotStored(_) => "not-stored",
            Refusal::NotCollecting => "not-collecting",
            Refusal::NotConfirming => "not-confirming",
        }
    }

    /// One log line: the reason and status, the fields and rules a sign-up broke, the
    /// database's own words for a failure. Never a value the visitor typed.
    fn log(&self) {
        let (reason, status) = (self.reason(), self.status().as_u16());
        metrics::counter!(crate::prometheus::SIGN_UPS_REFUSED, "reason" => reason).increment(1);
        match self {
            Refusal::NotStored(cause) => {
                tracing::error!(reason, status, "could not store a sign-up: {cause}");
            }
            Refusal::BreaksRules(errors) => {
                let broken: Vec<String> = errors
                    .iter()
                    .map(|e| format!("{}:{}", e.field.as_str(), e.code.as_str()))
                    .collect();
                tracing::info!(reason, status, rules = %broken.join(","), "sign-up refused");
            }
            _ => tracing::info!(reason, status, "sign-up refused"),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        self.log();
        let mut body = json!({ "error": self.to_string() });
        if let Refusal::BreaksRules(errors) = &self {
            body["errors"] = errors
                .iter()
                .map(|e| json!({ "field": e.field, "code": e.code, "message": e.message }))
                .collect();
        }
        let mut response = answer(self.status(), &body);
        if let Refusal::TooMany(seconds) = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// The one answer to a sign-up that is accepted, whether it is new, repeats an address
/// already there, or fills the honeypot: no one learns from it who is on the list.
fn added() -> Response {
    answer(StatusCode::CREATED, &json!({ "status": "added" }))
}

pub(crate) fn answer(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = (status, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The endpoint: a store, and its settings.
#[derive(Clone)]
pub struct Waitlist {
    store: Store,
    settings: Arc<Settings>,
    limiter: Option<Arc<DefaultKeyedRateLimiter<IpAddr>>>,
    confirming: Option<Confirming>,
}

/// What confirming addresses takes: the key of the links, and the outbox worker to wake.
#[derive(Clone)]
struct Confirming {
    key: Key,
    outbox: Arc<tokio::sync::Notify>,
}

impl Waitlist {
    /// The endpoint over `store`.
    pub fn new(store: Store, settings: Settings) -> Self {
        let limiter = settings
            .per_minute
            .map(|n| Arc::new(RateLimiter::keyed(Quota::per_minute(n))));
        Self {
            store,
            settings: Arc::new(settings),
            limiter,
            confirming: None,
        }
    }

    /// Confirms addresses: new entries are pending, each sign-up queues its email (and
    /// wakes `outbox`), and the confirmation routes check links signed with `key`.
    #[must_use]
    pub fn confirming(mut self, key: Key, outbox: Arc<tokio::sync::Notify>) -> Self {
        self.confirming = Some(Confirming { key, outbox });
        self
    }

    /// The links' key, when confirming.
    pub(crate) fn key(&self) -> Option<&Key> {
        self.confirming.as_ref().map(|c| &c.key)
    }

    /// An email was queued: counted, and the worker woken.
    pub(crate) fn queued(&self, kind: Kind) {
        metrics::counter!(crate::outbox::EMAILS, "kind" => kind.as_str(), "outcome" => "queued")
            .increment(1);
        if let Some(confirming) = &self.confirming {
            confirming.outbox.notify_one();
        }
    }

    /// The database it stores into.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The route, and a task that forgets clients once they are back to a full allowance.
    pub fn router(self) -> Router {
        if let Some(limiter) = self.limiter.clone() {
            tokio::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(60));
                loop {
                    every.tick().await;
                    limiter.retain_recent();
                }
            });
        }
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
        // The links' routes are there without --smtp too, to say so in JSON.
        Router::new()
            .route(PATH, post(sign_up).with_state(self.clone()))
            .merge(crate::confirmation::router(self))
            .layer(deadline)
            .layer(cors)
    }

    /// Takes one sign-up from `client`'s allowance.
    fn admit(&self, client: &Client) -> Result<(), Refusal> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        limiter.check_key(&client.0).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Refusal::TooMany(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
        })
    }
}

/// The route when no database was given: says so, instead of a 405 that would puzzle.
pub fn not_collecting() -> Router {
    Router::new().route(PATH, post(|| async { Refusal::NotCollecting }))
}

async fn sign_up(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite,
    client: Client,
    sign_up: SignUp,
) -> Result<Response, Refusal> {
    let (values, privacy_notice, honeypot) = sign_up.checked()?;
    if honeypot {
        // A bot: told what a person would be told; nothing is kept, nothing counted.
        tracing::info!(reason = "honeypot", status = 201, "sign-up dropped");
        metrics::counter!(crate::prometheus::SIGN_UPS_REFUSED, "reason" => "honeypot").increment(1);
        return Ok(added());
    }
    // Only what would be stored is counted: a visitor who mistypes is not locked out.
    waitlist.admit(&client)?;
    let entry = Entry::new(values, privacy_notice, crate::now_ms());
    let started = std::time::Instant::now();
    let stored = waitlist
        .store
        .sign_up(&entry, waitlist.confirming.is_some())
        .await;
    crate::prometheus::database(started.elapsed(), stored.is_err());
    let queued = stored.map_err(Refusal::NotStored)?;
    tracing::info!(
        status = 201,
        queued = queued.map(Kind::as_str),
        "sign-up stored"
    );
    metrics::counter!(crate::prometheus::SIGN_UPS_STORED).increment(1);
    if let Some(kind) = queued {
        waitlist.queued(kind);
    }
    Ok(added())
}

/// A sign-up as the form posts it, read from a JSON object. Company, role, interest and
/// the honeypot may be left out; nothing else may be added.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SignUp {
    name: String,
    email: String,
    #[serde(default)]
    company: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    interest: Interest,
    message: String,
    /// The version of the privacy notice the visitor was shown.
    privacy_notice: String,
    /// The honeypot: a field people never see and bots fill in.
    #[serde(default)]
    website: String,
}

impl SignUp {
    /// The form's values and the privacy notice's version, if the core's rules pass, and
    /// whether the honeypot was filled.
    fn checked(self) -> Result<(FormValues, String, bool), Refusal> {
        let version = self.privacy_notice.trim();
        if version.is_empty()
            || version.len() > VERSION_LIMIT
            || version.chars().any(is_control_or_format)
        {
            return Err(Refusal::NotASignUp(
                "privacyNotice must name the version of the privacy notice shown".into(),
            ));
        }
        let version = version.to_owned();
        let values = FormValues {
            name: self.name,
            email: self.email,
            company: self.company,
            role: self.role,
            interest: self.interest,
            message: self.message,
        };
        let errors = validate(&values);
        if !errors.is_empty() {
            return Err(Refusal::BreaksRules(errors));
        }
        Ok((values, version, !self.website.is_empty()))
    }
}

impl<S: Send + Sync> FromRequest<S> for SignUp {
    type Rejection = Refusal;

    async fn from_request(request: Request, _: &S) -> Result<Self, Refusal> {
        if !is_json(request.headers()) {
            return Err(Refusal::NotJson);
        }
        let body = axum::body::to_bytes(request.into_body(), BODY_LIMIT)
            .await
            .map_err(|e| body_refusal(&e))?;
        // A JSON object with the sign-up's fields (serde alone would also take an array).
        match serde_json::from_slice(&body) {
            Ok(object @ serde_json::Value::Object(_)) => serde_json::from_value(object),
            Ok(_) => return Err(Refusal::NotASignUp("expected a JSON object".into())),
            Err(e) => Err(e),
        }
        .map_err(|e| Refusal::NotASignUp(e.to_string()))
    }
}

/// What reading a body failed on: its size, its deadline (or the connection's idle
/// timeout), or the connection.
fn body_refusal(error: &axum::Error) -> Refusal {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if e.is::<http_body_util::LengthLimitError>() {
            return Refusal::TooLarge;
        }
        let idle = e
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut);
        if idle || e.is::<tower_http::timeout::TimeoutError>() {
            return Refusal::TooSlow;
        }
        cause = e.source();
    }
    Refusal::NotASignUp(format!("the body could not be read: {error}"))
}

pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The client a rate limit counts against: the connection's address, or, behind
/// trusted proxies, the address the first of them saw.
#[derive(Debug, PartialEq, Eq)]
pub struct Client(IpAddr);

impl FromRequestParts<Waitlist> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        waitlist: &Waitlist,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from(Ipv6Addr::UNSPECIFIED), |c| c.0.ip());
        Ok(client(
            &parts.headers,
            peer,
            waitlist.settings.trusted_proxies,
        ))
    }
}

/// Every `X-Forwarded-For` line, read as one list (RFC 9110 §5.3), in order.
fn forwarded_for(headers: &HeaderMap) -> Vec<&str> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|line| line.to_str().ok())
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .collect()
}

/// The client behind `trusted` proxies: each appends the address it was reached from, so
/// the entries a client wrote itself come first and the trusted ones last. The client is
/// the `trusted`-th from the right (the first trusted proxy's peer); a list shorter than
/// that has no entry a client wrote, and its first is taken. Counted per address, an IPv6
/// client per /64 (one household or host has a whole /64).
fn client(headers: &HeaderMap, peer: IpAddr, trusted: usize) -> Client {
    let address = if trusted == 0 {
        peer
    } else {
        let list = forwarded_for(headers);
        list.len()
            .checked_sub(trusted)
            .or((!list.is_empty()).then_some(0))
            .and_then(|i| list[i].parse::<IpAddr>().ok())
            .unwrap_or(peer)
    };
    Client(match address.to_canonical() {
        IpAddr::V6(v6) => {
            let [a, b, c, d, ..] = v6.segments();
            IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
        }
        v4 @ IpAddr::V4(_) => v4,
    })
}

/// A post that a browser says comes from the site's own pages, or from an allowed
/// origin; a post that says nothing of where it comes from is not a browser's (a script,
/// curl) and passes. What a browser says: `Origin` (scheme, host and port, compared
/// whole), or, without it, `Referer`'s origin, or `Sec-Fetch-Site: cross-site`.
pub struct FromOwnSite;

impl FromRequestParts<Waitlist> for FromOwnSite {
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, waitlist: &Waitlist) -> Result<Self, Refusal> {
        let settings = &waitlist.settings;
        let own = own_origin(&parts.headers, settings.trusted_proxies > 0);
        if from_own_site(&parts.headers, own.as_deref(), &settings.allowed_origins) {
            Ok(FromOwnSite)
        } else {
            Err(Refusal::OtherSite)
        }
    }
}

/// The origin of the site's own pages: this server's host, by `http`, or by the scheme a
/// trusted proxy says it was reached with (`X-Forwarded-Proto`, the last one).
fn own_origin(headers: &HeaderMap, behind_proxy: bool) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let forwarded = || {
        let proto = headers.get_all("x-forwarded-proto").iter().next_back()?;
        let proto = proto.to_str().ok()?.rsplit(',').next()?.trim();
        matches!(proto, "http" | "https").then_some(proto)
    };
    let scheme = if behind_proxy { forwarded() } else { None }.unwrap_or("http");
    Some(format!("{scheme}://{}", host.to_ascii_lowercase()))
}

fn from_own_site(headers: &HeaderMap, own: Option<&str>, allowed: &[String]) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let welcome = |origin: &str| Some(origin) == own || allowed.iter().any(|a| a == origin);
    if let Some(origin) = text(header::ORIGIN) {
        return welcome(&origin.to_ascii_lowercase());
    }
    if text(header::HeaderName::from_static("sec-fetch-site")) == Some("cross-site") {
        return false;
    }
    match text(header::REFERER) {
        Some(referer) => referer_origin(referer).is_some_and(|origin| welcome(&origin)),
        None => true,
    }
}

/// `scheme://host[:port]` of a `Referer`, in lower case.
fn referer_origin(referer: &str) -> Option<String> {
    let (scheme, rest) = referer.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty() && !authority.contains('@'))
        .then(|| format!("{scheme}://{authority}").to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn origins() {
        let allowed = ["https://site.test".to_owned()];
        let check = |pairs: &[(&'static str, &str)]| {
            let h = headers(pairs);
            from_own_site(&h, own_origin(&h, false).as_deref(), &allowed)
        };
        assert!(check(&[]), "no browser");
        assert!(check(&[
            ("host", "a.test:8080"),
            ("origin", "http://a.test:8080")
        ]));
        assert!(check(&[
            ("host", "a.test"),
            ("origin", "https://site.test")
        ]));
        assert!(!check(&[
            ("host", "a.test"),
            ("origin", "https://evil.test")
        ]));
        assert!(!check(&[("host", "a.test"), ("origin", "null")]));
        assert!(
            !check(&[("host", "a.test:8080"), ("origin", "https://a.test:8080")]),
            "the scheme is part of the origin"
        );
        assert!(!check(&[("sec-fetch-site", "cross-site")]));
        assert!(check(&[("sec-fetch-site", "same-origin")]));
        assert!(check(&[
            ("host", "a.test"),
            ("referer", "http://a.test/contact")
        ]));
        assert!(!check(&[
            ("host", "a.test"),
            ("referer", "https://evil.test/a.test")
        ]));
        assert!(!check(&[
            ("host", "a.test"),
            ("referer", "http://evil.test@a.test/")
        ]));
        assert!(!check(&[("host", "a.test"), ("referer", "nonsense")]));
        assert!(check(&[
            ("host", "a.test"),
            ("referer", "https://site.test/x?y")
        ]));
    }

    #[test]
    fn behind_a_proxy_the_scheme_is_the_proxys() {
        let h = headers(&[("host", "lathe.test"), ("x-forwarded-proto", "https")]);
        assert_eq!(own_origin(&h, true).as_deref(), Some("https://lathe.test"));
        assert_eq!(own_origin(&h, false).as_deref(), Some("http://lathe.test"));
    }

    #[test]
    fn json_content_types() {
        for (value, json) in [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("Application/JSON", true),
            ("text/plain", false),
            ("application/x-www-form-urlencoded", false),
            ("application/jsonx", false),
        ] {
            assert_eq!(
                is_json(&headers(&[("content-type", value)])),
                json,
                "{value}"
            );
        }
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn clients() {
        let peer: IpAddr = "10.0.0.1".parse().unwrap();
        let ip = |s: &str| Client(s.parse().unwrap());
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 2.2.2.2")]);
        assert_eq!(client(&h, peer, 0), Client(peer), "not trusted by default");
        assert_eq!(client(&h, peer, 1), ip("2.2.2.2"));
        assert_eq!(client(&h, peer, 2), ip("1.1.1.1"));
        assert_eq!(
            client(&h, peer, 3),
            ip("1.1.1.1"),
            "fewer entries than proxies"
        );
        assert_eq!(client(&HeaderMap::new(), peer, 1), Client(peer));
        // A client's own line first, the proxy's after: one list, read from the right.
        let two_lines = headers(&[
            ("x-forwarded-for", "203.0.113.7"),
            ("x-forwarded-for", "198.51.100.1, 192.0.2.1"),
        ]);
        assert_eq!(client(&two_lines, peer, 1), ip("192.0.2.1"));
        assert_eq!(client(&two_lines, peer, 2), ip("198.51.100.1"));
        // IPv6 per /64; IPv4 mapped into IPv6 as IPv4.
        let v6 = |s: &str| client(&headers(&[("x-forwarded-for", s)]), peer, 1);
        assert_eq!(v6("2001:db8:1:2:aaaa::1"), v6("2001:db8:1:2:bbbb::2"));
        assert_ne!(v6("2001:db8:1:2::1"), v6("2001:db8:1:3::1"));
        assert_eq!(v6("::ffff:192.0.2.9"), ip("192.0.2.9"));
    }
}
