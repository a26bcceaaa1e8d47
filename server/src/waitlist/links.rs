//! Confirming an address (double opt-in), served when the server sends email (`--smtp`):
//!
//! - `POST /api/waitlist/confirm` `{"token": "..."}`: the confirmation page posts the
//!   token of its link when the visitor presses Confirm (a GET of the link confirms
//!   nothing, so the mail scanners that open every link confirm nothing either); answered
//!   with `line`, the entry's place and share code ([`Standing`]), unless referrals are off.
//! - `POST /api/waitlist/resend` `{"token": "..."}`: an expired link asks for a new one.
//! - `POST /api/waitlist/manage` `{"token": "..."}`: the manage page (the link in every
//!   email) asks for what is stored, which it shows and offers as a JSON download;
//!   answered `found` 200 with `entry`, as the owner's export has it, and `line`, as the
//!   confirmation's.
//! - `POST /api/waitlist/erase` `{"token": "..."}`: the manage page's Erase, once pressed
//!   and confirmed; recorded as an erasure by the visitor.
//!
//! - `/api/waitlist/unsubscribe?token=...`: an invitation's one-click unsubscribe
//!   ([`super::unsubscribe`]), a page of its own.
//!
//! Each of the four answers `{"status": ...}` (and `error`, a sentence for the page, when it failed):
//! `confirmed` 200, `erased` 200, `sent` 202, `used` 409, `expired` 410, `unknown` 404
//! (no entry: erased or deleted unconfirmed), `invalid` 400 (not a link of ours). A
//! request that never gets as far as its link is a [`LinkError`], answered as the
//! sign-up's are (`{"error": ...}`: 403, 415, 413, 408, 503) and logged and counted as a
//! link's, never as a sign-up's. Mounted only when the server sends email; otherwise
//! [`not_confirming`] answers the five paths.

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Notify;

use super::body::{BodyError, Json, Posted};
use super::origin::{FromOwnSite, OtherSite};
use super::unsubscribe::{self, UNSUBSCRIBE_PATH};
use super::{Settings, answer};
use crate::domain::token::{Claims, Key, Purpose, TokenError};
use crate::domain::{ErasedBy, Kind};
use crate::operations::metrics;
use crate::store::{Confirmed, Resent, Standing, Store, StoreError};

/// The confirmation's path.
pub const CONFIRM_PATH: &str = "/api/waitlist/confirm";
/// The path that sends a new confirmation link.
pub const RESEND_PATH: &str = "/api/waitlist/resend";
/// The path that shows an entry to its owner.
pub const MANAGE_PATH: &str = "/api/waitlist/manage";
/// The path that erases an entry for its owner.
pub const ERASE_PATH: &str = "/api/waitlist/erase";
/// The largest body accepted: a token is about 120 bytes.
const BODY_LIMIT: usize = 1024;

/// What became of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The address is confirmed now.
    Confirmed,
    /// The entry is erased now.
    Erased,
    /// A new link is on its way (or, past the day's emails to the address, is not: the
    /// answer is the same).
    Sent,
    /// Used already: the address is confirmed.
    Used,
    /// Too old: a new one can be sent.
    Expired,
    /// Its entry is gone (erased, or deleted unconfirmed).
    Unknown,
    /// Not a link of ours.
    Invalid,
}

impl Outcome {
    fn status(self) -> StatusCode {
        match self {
            Outcome::Confirmed | Outcome::Erased => StatusCode::OK,
            Outcome::Sent => StatusCode::ACCEPTED,
            Outcome::Used => StatusCode::CONFLICT,
            Outcome::Expired => StatusCode::GONE,
            Outcome::Unknown => StatusCode::NOT_FOUND,
            Outcome::Invalid => StatusCode::BAD_REQUEST,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Outcome::Confirmed => "confirmed",
            Outcome::Erased => "erased",
            Outcome::Sent => "sent",
            Outcome::Used => "used",
            Outcome::Expired => "expired",
            Outcome::Unknown => "unknown",
            Outcome::Invalid => "invalid",
        }
    }

    const fn error(self) -> Option<&'static str> {
        match self {
            Outcome::Confirmed | Outcome::Erased | Outcome::Sent => None,
            Outcome::Used => Some("This link has been used already: your address is confirmed."),
            Outcome::Expired => Some("This link has expired."),
            Outcome::Unknown => Some("There is nothing on the waitlist for this link any more."),
            Outcome::Invalid => {
                Some("This link is not one of ours: check that it was copied whole.")
            }
        }
    }
}

impl From<TokenError> for Outcome {
    fn from(e: TokenError) -> Self {
        match e {
            TokenError::Expired => Outcome::Expired,
            TokenError::Malformed | TokenError::Forged | TokenError::WrongPurpose => {
                Outcome::Invalid
            }
        }
    }
}

impl Outcome {
    /// Its answer, with the entry's place in the line (`line`) when there is one to show.
    fn answer(self, line: Option<Standing>) -> Response {
        tracing::info!(outcome = self.name(), "confirmation link");
        let mut body = json!({ "status": self.name() });
        if let Some(error) = self.error() {
            body["error"] = error.into();
        }
        if let Some(line) = line {
            body["line"] = json!(line);
        }
        answer(self.status(), &body)
    }
}

impl IntoResponse for Outcome {
    fn into_response(self) -> Response {
        self.answer(None)
    }
}

/// Why a link's request was not answered with an [`Outcome`]: with its status and
/// `{"error": message}`, logged, and counted in [`metrics::LINKS_REFUSED`] by reason.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A post from another site's page: 403.
    #[error("links are opened from the site's own pages only")]
    OtherSite,
    /// A body that is not JSON: 415.
    #[error("send the link's token as JSON (Content-Type: application/json)")]
    NotJson,
    /// A body over the limit: 413.
    #[error("the request is larger than a link's token")]
    TooLarge,
    /// A body that did not arrive within the body timeout: 408.
    #[error("the request arrived too slowly: please try again")]
    TooSlow,
    /// The database failed or cannot be reached: 503 (the cause is logged, not sent).
    #[error("the waitlist cannot be reached just now: please try again")]
    NotStored(#[source] StoreError),
    /// The server sends no email (no `--smtp`): 404.
    #[error("this server does not confirm addresses: start it with --smtp")]
    NotConfirming,
}

impl LinkError {
    fn status(&self) -> StatusCode {
        match self {
            LinkError::OtherSite => StatusCode::FORBIDDEN,
            LinkError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            LinkError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            LinkError::TooSlow => StatusCode::REQUEST_TIMEOUT,
            LinkError::NotStored(_) => StatusCode::SERVICE_UNAVAILABLE,
            LinkError::NotConfirming => StatusCode::NOT_FOUND,
        }
    }

    /// A short name for the logs and metrics.
    pub const fn reason(&self) -> &'static str {
        match self {
            LinkError::OtherSite => "other-site",
            LinkError::NotJson => "not-json",
            LinkError::TooLarge => "too-large",
            LinkError::TooSlow => "too-slow",
            LinkError::NotStored(_) => "not-stored",
            LinkError::NotConfirming => "not-confirming",
        }
    }
}

impl IntoResponse for LinkError {
    fn into_response(self) -> Response {
        let (reason, status) = (self.reason(), self.status());
        metrics::link_refused(reason);
        if let LinkError::NotStored(cause) = &self {
            tracing::error!(
                reason,
                status = status.as_u16(),
                "could not answer a link: {cause}"
            );
        } else {
            tracing::info!(reason, status = status.as_u16(), "link request refused");
        }
        answer(status, &json!({ "error": self.to_string() }))
    }
}

impl From<OtherSite> for LinkError {
    fn from(_: OtherSite) -> Self {
        LinkError::OtherSite
    }
}

impl From<StoreError> for LinkError {
    fn from(e: StoreError) -> Self {
        LinkError::NotStored(e)
    }
}

/// `{"token": "..."}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBody {
    token: String,
}

impl Posted for TokenBody {
    const LIMIT: usize = BODY_LIMIT;
    type Error = Refused;
}

/// What a link's request is answered with when it goes no further: an [`Outcome`] (a
/// token that is not ours, or expired; JSON that is not a token), or a [`LinkError`].
pub enum Refused {
    /// Answered as the link's fate.
    Outcome(Outcome),
    /// Refused before the link was read.
    Error(LinkError),
}

impl From<BodyError> for Refused {
    fn from(e: BodyError) -> Self {
        match e {
            BodyError::NotJson => Refused::Error(LinkError::NotJson),
            BodyError::TooLarge => Refused::Error(LinkError::TooLarge),
            BodyError::TooSlow => Refused::Error(LinkError::TooSlow),
            BodyError::Invalid(_) => Refused::Outcome(Outcome::Invalid),
        }
    }
}

impl From<TokenError> for Refused {
    fn from(e: TokenError) -> Self {
        Refused::Outcome(e.into())
    }
}

impl<E: Into<LinkError>> From<E> for Refused {
    fn from(e: E) -> Self {
        Refused::Error(e.into())
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self {
            Refused::Outcome(outcome) => outcome.into_response(),
            Refused::Error(e) => e.into_response(),
        }
    }
}

/// What the link routes need: the store, the links' key, and the outbox worker to wake.
#[derive(Clone)]
pub struct Links {
    pub(super) store: Store,
    pub(super) key: Key,
    pub(super) outbox: Arc<Notify>,
    pub(super) settings: Arc<Settings>,
}

impl FromRef<Links> for Arc<Settings> {
    fn from_ref(links: &Links) -> Self {
        links.settings.clone()
    }
}

/// The four routes, and the one-click unsubscribe's ([`super::unsubscribe`]).
pub fn router(links: Links) -> Router {
    Router::new()
        .route(CONFIRM_PATH, post(confirm))
        .route(RESEND_PATH, post(resend))
        .route(MANAGE_PATH, post(manage))
        .route(ERASE_PATH, post(erase))
        .route(
            UNSUBSCRIBE_PATH,
            get(unsubscribe::page).post(unsubscribe::unsubscribe),
        )
        .with_state(links)
}

/// The five paths on a server that sends no email: each says so.
pub fn not_confirming() -> Router {
    let refused = || async { LinkError::NotConfirming };
    Router::new()
        .route(CONFIRM_PATH, post(refused))
        .route(RESEND_PATH, post(refused))
        .route(MANAGE_PATH, post(refused))
        .route(ERASE_PATH, post(refused))
        .route(UNSUBSCRIBE_PATH, get(refused).post(refused))
}

/// A link's request: from the site's own pages, with a token.
pub struct Link {
    links: Links,
    token: String,
}

impl FromRequest<Links> for Link {
    type Rejection = Refused;

    async fn from_request(request: Request, links: &Links) -> Result<Self, Refused> {
        let (mut parts, body) = request.into_parts();
        FromOwnSite::<LinkError>::from_request_parts(&mut parts, links).await?;
        let request = Request::from_parts(parts, body);
        let Json(TokenBody { token }) = Json::from_request(request, links).await?;
        Ok(Link {
            links: links.clone(),
            token,
        })
    }
}

impl Link {
    /// The token's claims, if it is ours, for `purpose`, unexpired at `now`.
    fn verified(&self, purpose: Purpose, now: i64) -> Result<Claims, TokenError> {
        self.links.key.verify(&self.token, purpose, now)
    }
}

/// Where the entry `id` stands, unless referrals are off (`--places-per-referral 0`:
/// no place and no share link are shown).
async fn standing(store: &Store, id: &str) -> Result<Option<Standing>, StoreError> {
    if store.places() == 0 {
        return Ok(None);
    }
    store.standing(id).await
}

async fn manage(link: Link) -> Result<Response, Refused> {
    let claims = link.verified(Purpose::Manage, crate::now_ms())?;
    let store = &link.links.store;
    Ok(
        match store.find_managed(&claims.entry, &claims.nonce).await? {
            Some(entry) => {
                let mut body = json!({ "status": "found", "entry": entry });
                if let Some(line) = standing(store, &claims.entry).await? {
                    body["line"] = json!(line);
                }
                answer(StatusCode::OK, &body)
            }
            None => Outcome::Unknown.into_response(),
        },
    )
}

async fn erase(link: Link) -> Result<Outcome, Refused> {
    let now = crate::now_ms();
    let claims = link.verified(Purpose::Manage, now)?;
    let store = &link.links.store;
    if !store
        .erase_managed(&claims.entry, &claims.nonce, ErasedBy::Visitor, now)
        .await?
    {
        return Ok(Outcome::Unknown);
    }
    tracing::info!("entry erased by its owner");
    Ok(Outcome::Erased)
}

async fn confirm(link: Link) -> Result<Response, Refused> {
    let now = crate::now_ms();
    let claims = link.verified(Purpose::Confirm, now)?;
    let store = &link.links.store;
    Ok(
        match store.confirm(&claims.entry, &claims.nonce, now).await? {
            Confirmed::Now => {
                metrics::confirmed();
                Outcome::Confirmed.answer(standing(store, &claims.entry).await?)
            }
            Confirmed::Already => Outcome::Used.into_response(),
            Confirmed::Unknown => Outcome::Unknown.into_response(),
        },
    )
}

async fn resend(link: Link) -> Result<Outcome, Refused> {
    // An expired link may ask for a new one: read, not verified.
    let claims = link.links.key.read(&link.token, Purpose::Confirm)?;
    Ok(
        match link
            .links
            .store
            .resend(&claims.entry, crate::now_ms())
            .await?
        {
            Resent::Pending(queued) => {
                if queued.is_some() {
                    super::queued(&link.links.outbox, Kind::Confirm);
                }
                Outcome::Sent
            }
            Resent::Confirmed => Outcome::Used,
            Resent::Unknown => Outcome::Unknown,
        },
    )
}
