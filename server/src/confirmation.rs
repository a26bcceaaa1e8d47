//! Confirming an address (double opt-in), served when the server sends email (`--smtp`):
//!
//! - `POST /api/waitlist/confirm` `{"token": "..."}`: the confirmation page posts the
//!   token of its link when the visitor presses Confirm (a GET of the link confirms
//!   nothing, so the mail scanners that open every link confirm nothing either).
//! - `POST /api/waitlist/resend` `{"token": "..."}`: an expired link asks for a new one.
//! - `POST /api/waitlist/manage` `{"token": "..."}`: the manage page (the link in every
//!   email) asks for what is stored, which it shows and offers as a JSON download;
//!   answered `found` 200 with `entry`, as the owner's export has it.
//! - `POST /api/waitlist/erase` `{"token": "..."}`: the manage page's Erase, once pressed
//!   and confirmed; recorded as an erasure by the visitor.
//!
//! Each answers `{"status": ...}` (and `error`, a sentence for the page, when it failed):
//! `confirmed` 200, `erased` 200, `sent` 202, `used` 409, `expired` 410, `unknown` 404
//! (no entry: erased or deleted unconfirmed), `invalid` 400 (not a link of ours).

use axum::Router;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::json;

use crate::mail::Kind;
use crate::token::{Claims, Purpose, TokenError, random_id};
use crate::waitlist::{FromOwnSite, Refusal, Waitlist, answer, is_json};

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

impl IntoResponse for Outcome {
    fn into_response(self) -> Response {
        tracing::info!(outcome = self.name(), "confirmation link");
        let mut body = json!({ "status": self.name() });
        if let Some(error) = self.error() {
            body["error"] = error.into();
        }
        answer(self.status(), &body)
    }
}

/// `{"token": "..."}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBody {
    token: String,
}

/// A token posted as JSON; anything else is [`Outcome::Invalid`] (or 415 for a body that
/// is not JSON at all).
pub struct Posted(Result<String, Outcome>);

impl<S: Send + Sync> FromRequest<S> for Posted {
    type Rejection = Refusal;

    async fn from_request(request: Request, _: &S) -> Result<Self, Refusal> {
        if !is_json(request.headers()) {
            return Err(Refusal::NotJson);
        }
        let Ok(body) = axum::body::to_bytes(request.into_body(), BODY_LIMIT).await else {
            return Ok(Posted(Err(Outcome::Invalid)));
        };
        Ok(Posted(
            serde_json::from_slice::<TokenBody>(&body)
                .map(|b| b.token)
                .map_err(|_| Outcome::Invalid),
        ))
    }
}

/// The four routes.
pub fn router(waitlist: Waitlist) -> Router {
    Router::new()
        .route(CONFIRM_PATH, post(confirm))
        .route(RESEND_PATH, post(resend))
        .route(MANAGE_PATH, post(manage))
        .route(ERASE_PATH, post(erase))
        .with_state(waitlist)
}

/// The manage link's claims, or what to answer instead (`Err` when the server does
/// not collect at all).
fn managing(
    waitlist: &Waitlist,
    token: Result<String, Outcome>,
) -> Result<Result<Claims, Outcome>, Refusal> {
    let Some(key) = waitlist.key() else {
        return Err(Refusal::NotConfirming);
    };
    Ok(token.and_then(|t| {
        key.verify(&t, Purpose::Manage, crate::now_ms())
            .map_err(Outcome::from)
    }))
}

async fn manage(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite,
    Posted(token): Posted,
) -> Result<Response, Refusal> {
    let claims = match managing(&waitlist, token)? {
        Ok(claims) => claims,
        Err(outcome) => return Ok(outcome.into_response()),
    };
    let found = waitlist
        .store()
        .find_managed(&claims.entry, &claims.nonce)
        .await
        .map_err(|e| Refusal::NotStored(e.into()))?;
    Ok(match found {
        Some(entry) => answer(
            StatusCode::OK,
            &json!({ "status": "found", "entry": crate::export::entry_value(&entry) }),
        ),
        None => Outcome::Unknown.into_response(),
    })
}

async fn erase(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite,
    Posted(token): Posted,
) -> Result<Outcome, Refusal> {
    let claims = match managing(&waitlist, token)? {
        Ok(claims) => claims,
        Err(outcome) => return Ok(outcome),
    };
    let erased = waitlist
        .store()
        .erase_managed(&claims.entry, &claims.nonce, crate::now_ms())
        .await
        .map_err(|e| Refusal::NotStored(e.into()))?;
    Ok(if erased {
        tracing::info!("entry erased by its owner");
        Outcome::Erased
    } else {
        Outcome::Unknown
    })
}

async fn confirm(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite,
    Posted(token): Posted,
) -> Result<Outcome, Refusal> {
    let Some(key) = waitlist.key() else {
        return Err(Refusal::NotConfirming);
    };
    let now = crate::now_ms();
    let claims =
        match token.and_then(|t| key.verify(&t, Purpose::Confirm, now).map_err(Outcome::from)) {
            Ok(claims) => claims,
            Err(outcome) => return Ok(outcome),
        };
    let pool = waitlist.store().pool();
    let done = sqlx::query(
        "UPDATE waitlist SET status = 'confirmed', confirmed_at = $1, last_interaction_at = $1,
             confirm_nonce = NULL
         WHERE id = $2 AND confirm_nonce = $3 AND status <> 'confirmed'",
    )
    .bind(now)
    .bind(&claims.entry)
    .bind(&claims.nonce)
    .execute(pool)
    .await
    .map_err(|e| Refusal::NotStored(e.into()))?;
    if done.rows_affected() == 1 {
        metrics::counter!(crate::prometheus::CONFIRMATIONS).increment(1);
        return Ok(Outcome::Confirmed);
    }
    let there: Option<String> = sqlx::query_scalar("SELECT status FROM waitlist WHERE id = $1")
        .bind(&claims.entry)
        .fetch_optional(pool)
        .await
        .map_err(|e| Refusal::NotStored(e.into()))?;
    Ok(if there.is_some() {
        Outcome::Used
    } else {
        Outcome::Unknown
    })
}

async fn resend(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite,
    Posted(token): Posted,
) -> Result<Outcome, Refusal> {
    let Some(key) = waitlist.key() else {
        return Err(Refusal::NotConfirming);
    };
    let claims = match token.and_then(|t| key.read(&t, Purpose::Confirm).map_err(Outcome::from)) {
        Ok(claims) => claims,
        Err(outcome) => return Ok(outcome),
    };
    let pool = waitlist.store().pool();
    let failed = |e: sqlx::Error| Refusal::NotStored(e.into());
    let mut tx = pool.begin().await.map_err(failed)?;
    let row: Option<(String, String)> =
        sqlx::query_as("SELECT email_key, status FROM waitlist WHERE id = $1")
            .bind(&claims.entry)
            .fetch_optional(&mut *tx)
            .await
            .map_err(failed)?;
    let Some((key, status)) = row else {
        return Ok(Outcome::Unknown);
    };
    if status == "confirmed" {
        return Ok(Outcome::Used);
    }
    sqlx::query("UPDATE waitlist SET confirm_nonce = COALESCE(confirm_nonce, $1) WHERE id = $2")
        .bind(random_id())
        .bind(&claims.entry)
        .execute(&mut *tx)
        .await
        .map_err(failed)?;
    let queued = crate::store::queue(&mut tx, &key, Kind::Confirm, crate::now_ms())
        .await
        .map_err(failed)?;
    tx.commit().await.map_err(failed)?;
    if queued.is_some() {
        waitlist.queued(Kind::Confirm);
    }
    Ok(Outcome::Sent)
}
