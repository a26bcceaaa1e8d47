//! `POST /api/waitlist`: the waitlist form's endpoint, served when the server is given a
//! database ([`crate::store`]).
//!
//! A sign-up is checked with lathe-core's own rules, natively (the browser runs the same
//! code as wasm, so both say the same thing in the same words), then stored. Everything
//! else is refused with a status and a JSON body `{"error": "..."}` that says why:
//! 403 for a post from another site, 415 for a body that is not JSON, 413 for one over
//! [`BODY_LIMIT`], 400 for JSON that is not a sign-up (a missing field, a wrong type,
//! an unknown interest), 422 with `errors` for a sign-up that breaks the rules, 429
//! with `Retry-After` for too many from one client, 503 when the database fails.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use lathe_core::validation::{FieldError, FormValues, Interest, validate};
use serde::Deserialize;
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::store::{Entry, Store, Stored};

/// The path the endpoint answers on.
pub const PATH: &str = "/api/waitlist";
/// The largest body accepted, in bytes: far more than any real sign-up.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The longest privacy notice version accepted.
const VERSION_LIMIT: usize = 64;

/// A sign-up as the form posts it. Company, role, interest and the honeypot may be left
/// out; nothing else may be added.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SignUp {
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

/// How the endpoint is set up.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Sign-ups accepted per client per minute (a burst of as many, then one every
    /// 60/n s); `None` for no limit.
    pub per_minute: Option<NonZeroU32>,
    /// Origins other than the site's own allowed to post (a site on another host that
    /// uses this server as its form service), e.g. `https://www.example.com`.
    pub allowed_origins: Vec<String>,
    /// Take the client's address from the last `X-Forwarded-For` entry (behind a proxy
    /// that sets it) instead of the connection's.
    pub behind_proxy: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            per_minute: NonZeroU32::new(5),
            allowed_origins: Vec::new(),
            behind_proxy: false,
        }
    }
}

/// The endpoint: a store, and its settings.
#[derive(Clone)]
pub struct Waitlist {
    store: Store,
    settings: Arc<Settings>,
    limiter: Option<Arc<DefaultKeyedRateLimiter<IpAddr>>>,
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
        }
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
        // for the allowed origins only (and the post itself is checked by same_origin).
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
        Router::new()
            .route(PATH, post(sign_up).with_state(self))
            .layer(cors)
    }
}

/// The route when no database was given: says so, instead of a 405 that would puzzle.
pub fn not_collecting() -> Router {
    Router::new().route(
        PATH,
        post(|| async {
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "this server is not collecting sign-ups: start it with --database",
            )
        }),
    )
}

/// A refusal: `status`, and `{"error": message}`.
fn refuse(status: StatusCode, message: &str) -> Response {
    answer(status, &json!({ "error": message }))
}

fn answer(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = (status, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn sign_up(
    State(waitlist): State<Waitlist>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let headers = request.headers();
    if let Err(message) = same_origin(headers, &waitlist.settings.allowed_origins) {
        return refuse(StatusCode::FORBIDDEN, message);
    }
    if !is_json(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the sign-up as JSON (Content-Type: application/json)",
        );
    }
    if let Some(limiter) = &waitlist.limiter {
        let client = client(headers, peer, waitlist.settings.behind_proxy);
        if let Err(not_until) = limiter.check_key(&client) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut response = refuse(
                StatusCode::TOO_MANY_REQUESTS,
                &format!("too many sign-ups from your address: try again in {seconds} s"),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            return response;
        }
    }
    let Ok(body) = axum::body::to_bytes(request.into_body(), BODY_LIMIT).await else {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the sign-up is larger than {} KiB", BODY_LIMIT / 1024),
        );
    };
    let sign_up = match read(&body) {
        Ok(sign_up) => sign_up,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("not a sign-up: {e}")),
    };
    let version = sign_up.privacy_notice.trim();
    if version.is_empty() || version.len() > VERSION_LIMIT {
        return refuse(
            StatusCode::BAD_REQUEST,
            "not a sign-up: privacyNotice must name the version of the privacy notice shown",
        );
    }
    let values = FormValues {
        name: sign_up.name,
        email: sign_up.email,
        company: sign_up.company,
        role: sign_up.role,
        interest: sign_up.interest,
        message: sign_up.message,
    };
    let errors = validate(&values);
    if !errors.is_empty() {
        return answer(
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!({
                "error": "the sign-up breaks the form's rules",
                "errors": errors.iter().map(field_error).collect::<Vec<_>>(),
            }),
        );
    }
    if !sign_up.website.is_empty() {
        // A bot: told what a person would be told, and nothing is kept.
        return answer(StatusCode::CREATED, &json!({ "status": "added" }));
    }
    let entry = Entry::new(values, version.to_owned(), now_ms());
    match waitlist.store.sign_up(&entry).await {
        Ok(Stored::Added) => answer(StatusCode::CREATED, &json!({ "status": "added" })),
        Ok(Stored::Updated) => answer(
            StatusCode::OK,
            &json!({
                "status": "updated",
                "message": "this address was already on the waitlist: its entry now holds this sign-up",
            }),
        ),
        Err(e) => {
            eprintln!("lathe-site: could not store a sign-up: {e}");
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "the sign-up could not be stored just now: please try again",
            )
        }
    }
}

/// A JSON object with the sign-up's fields (serde alone would also take an array).
fn read(body: &[u8]) -> Result<SignUp, String> {
    match serde_json::from_slice(body).map_err(|e| e.to_string())? {
        object @ serde_json::Value::Object(_) => {
            serde_json::from_value(object).map_err(|e| e.to_string())
        }
        _ => Err("expected a JSON object".into()),
    }
}

fn field_error(error: &FieldError) -> serde_json::Value {
    json!({ "field": error.field, "code": error.code, "message": error.message })
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The client a rate limit counts against.
fn client(headers: &HeaderMap, peer: SocketAddr, behind_proxy: bool) -> IpAddr {
    let forwarded = || {
        let list = headers.get("x-forwarded-for")?.to_str().ok()?;
        list.rsplit(',').next()?.trim().parse().ok()
    };
    if behind_proxy {
        forwarded().unwrap_or(peer.ip())
    } else {
        peer.ip()
    }
}

/// Browsers say where a post comes from: `Origin`, and `Sec-Fetch-Site`. A post from a
/// page of another site is refused unless its origin is allowed; a post without either
/// header (a script, curl) is not a browser's and passes.
fn same_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), &'static str> {
    const REFUSED: &str = "sign-ups are accepted from the site's own pages only";
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match text("origin") {
        Some(origin) => {
            let own = origin
                .split_once("://")
                .is_some_and(|(_, authority)| Some(authority) == text("host"));
            if own || allowed.iter().any(|a| a == origin) {
                Ok(())
            } else {
                Err(REFUSED)
            }
        }
        None if text("sec-fetch-site") == Some("cross-site") => Err(REFUSED),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn origins() {
        let allowed = ["https://site.test".to_owned()];
        let check = |pairs: &[(&'static str, &str)]| same_origin(&headers(pairs), &allowed);
        assert!(check(&[]).is_ok(), "no browser");
        assert!(check(&[("host", "a.test:8080"), ("origin", "http://a.test:8080")]).is_ok());
        assert!(check(&[("host", "a.test"), ("origin", "https://site.test")]).is_ok());
        assert!(check(&[("host", "a.test"), ("origin", "https://evil.test")]).is_err());
        assert!(check(&[("host", "a.test"), ("origin", "null")]).is_err());
        assert!(check(&[("sec-fetch-site", "cross-site")]).is_err());
        assert!(check(&[("sec-fetch-site", "same-origin")]).is_ok());
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
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 2.2.2.2")]);
        assert_eq!(client(&h, peer, false), peer.ip(), "not trusted by default");
        assert_eq!(client(&h, peer, true), "2.2.2.2".parse::<IpAddr>().unwrap());
        assert_eq!(client(&HeaderMap::new(), peer, true), peer.ip());
    }
}
