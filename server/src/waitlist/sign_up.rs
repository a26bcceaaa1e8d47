//! `POST /api/waitlist`: a sign-up, checked with lathe-core's own rules, natively (the
//! browser runs the same code as wasm, so both say the same thing in the same words),
//! then stored. The handler reads as the order of the checks: where the post comes from,
//! what it holds, the rules, the honeypot, the client's allowance, the store. Everything
//! else is a [`SignUpError`], with its status and a JSON body `{"error": "..."}` that
//! says why.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lathe_core::validation::{FieldError, FormValues, Interest, is_control_or_format, validate};
use serde::Deserialize;
use serde_json::json;

use super::body::{BodyError, Json, Posted};
use super::origin::{Client, FromOwnSite, OtherSite};
use super::proof::ProofError;
use super::{Waitlist, answer};
use crate::domain::{Entry, Kind};
use crate::operations::metrics;
use crate::store::{NotStored, Proof, SignedUp, StoreError};

/// The largest body accepted, in bytes: far more than any real sign-up.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The longest privacy notice version accepted.
const VERSION_LIMIT: usize = 64;

/// Why a sign-up was not stored. Each is answered with its status and `{"error": message}`
/// (and `errors` for a sign-up that breaks the rules); none is ever a 5xx unless the
/// server, not the input, is at fault. Logged, and counted in
/// [`metrics::SIGN_UPS_REFUSED`], by [`SignUpError::reason`].
#[derive(Debug, thiserror::Error)]
pub enum SignUpError {
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
    /// The proof of work is missing (400), not valid or expired (403), or used (409).
    #[error(transparent)]
    Proof(#[from] ProofError),
}

impl SignUpError {
    /// The status it is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            SignUpError::OtherSite
            | SignUpError::Proof(ProofError::Invalid | ProofError::Expired) => {
                StatusCode::FORBIDDEN
            }
            SignUpError::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            SignUpError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            SignUpError::TooSlow => StatusCode::REQUEST_TIMEOUT,
            SignUpError::NotASignUp(_) | SignUpError::Proof(ProofError::Missing) => {
                StatusCode::BAD_REQUEST
            }
            SignUpError::BreaksRules(_) => StatusCode::UNPROCESSABLE_ENTITY,
            SignUpError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            SignUpError::NotStored(_) | SignUpError::NotCollecting => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            SignUpError::Proof(ProofError::Used) => StatusCode::CONFLICT,
        }
    }

    /// A short name for the logs and metrics: never anything the visitor sent.
    pub const fn reason(&self) -> &'static str {
        match self {
            SignUpError::OtherSite => "other-site",
            SignUpError::NotJson => "not-json",
            SignUpError::TooLarge => "too-large",
            SignUpError::TooSlow => "too-slow",
            SignUpError::NotASignUp(_) => "not-a-sign-up",
            SignUpError::BreaksRules(_) => "breaks-rules",
            SignUpError::TooMany(_) => "too-many",
            SignUpError::NotStored(_) => "not-stored",
            SignUpError::NotCollecting => "not-collecting",
            SignUpError::Proof(ProofError::Missing) => "no-proof",
            SignUpError::Proof(ProofError::Invalid) => "bad-proof",
            SignUpError::Proof(ProofError::Expired) => "expired-proof",
            SignUpError::Proof(ProofError::Used) => "used-proof",
        }
    }

    /// One log line: the reason and status, the fields and rules a sign-up broke, the
    /// database's own words for a failure. Never a value the visitor typed.
    fn log(&self) {
        let (reason, status) = (self.reason(), self.status().as_u16());
        metrics::sign_up_refused(reason);
        match self {
            SignUpError::NotStored(cause) => {
                tracing::error!(reason, status, "could not store a sign-up: {cause}");
            }
            SignUpError::BreaksRules(errors) => {
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

impl From<BodyError> for SignUpError {
    fn from(e: BodyError) -> Self {
        match e {
            BodyError::NotJson => SignUpError::NotJson,
            BodyError::TooLarge => SignUpError::TooLarge,
            BodyError::TooSlow => SignUpError::TooSlow,
            BodyError::Invalid(why) => SignUpError::NotASignUp(why),
        }
    }
}

impl From<OtherSite> for SignUpError {
    fn from(_: OtherSite) -> Self {
        SignUpError::OtherSite
    }
}

impl IntoResponse for SignUpError {
    fn into_response(self) -> Response {
        self.log();
        // The reason, for programs: a form tells a refused proof of work by it.
        let mut body = json!({ "error": self.to_string(), "reason": self.reason() });
        if let SignUpError::BreaksRules(errors) = &self {
            body["errors"] = errors
                .iter()
                .map(|e| json!({ "field": e.field, "code": e.code, "message": e.message }))
                .collect();
        }
        let mut response = answer(self.status(), &body);
        if let SignUpError::TooMany(seconds) = self {
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

pub(super) async fn sign_up(
    State(waitlist): State<Waitlist>,
    _: FromOwnSite<SignUpError>,
    client: Client,
    Json(mut sign_up): Json<SignUp>,
) -> Result<Response, SignUpError> {
    let proof = sign_up.altcha.take();
    let referral = sign_up.referral.take().map(|code| match code {
        serde_json::Value::String(code) => code,
        _ => String::new(),
    });
    let (values, privacy_notice, honeypot) = sign_up.checked()?;
    // A script without the work done is refused before anything else is believed. The
    // proof is spent with the row it pays for (Store::sign_up), so that a sign-up costs
    // one commit; a bot's, dropped below, spends nothing and stores nothing.
    let checked = match &waitlist.proofs {
        Some(proofs) => Some(proofs.check(proof.as_deref())?),
        None => None,
    };
    if honeypot {
        // A bot: told what a person would be told; nothing is kept, nothing counted.
        tracing::info!(reason = "honeypot", status = 201, "sign-up dropped");
        metrics::sign_up_refused("honeypot");
        return Ok(added());
    }
    // Only what would be stored is counted: a visitor who mistypes is not locked out.
    let address = client.ip().to_string();
    let allowance = waitlist.admit(client.ip(), &address)?;
    let entry = Entry::new(values, privacy_notice, crate::now_ms());
    let started = std::time::Instant::now();
    let spent = checked.as_ref().map(|checked| Proof {
        signature: &checked.signature,
        expires_at: checked.expires_at,
    });
    let stored = waitlist
        .store
        .sign_up(
            &entry,
            waitlist.confirming.is_some(),
            spent,
            referral.as_deref(),
            allowance,
        )
        .await;
    metrics::database(started.elapsed(), stored.is_err());
    let SignedUp { queued, referral } =
        stored
            .map_err(SignUpError::NotStored)?
            .map_err(|not_stored| match not_stored {
                NotStored::ProofUsed => ProofError::Used.into(),
                NotStored::TooMany(us) => {
                    super::too_many(std::time::Duration::from_micros(us.unsigned_abs()))
                }
            })?;
    if let Some(Err(ignored)) = referral {
        tracing::info!(reason = ignored.as_str(), "referral code ignored");
        metrics::referral_ignored(ignored.as_str());
    }
    tracing::info!(
        status = 201,
        queued = queued.map(Kind::as_str),
        "sign-up stored"
    );
    metrics::sign_up_stored();
    if let Some(kind) = queued {
        waitlist.queued(kind);
    }
    Ok(added())
}

/// The route when no database was given: says so, instead of a 405 that would puzzle.
pub(super) async fn not_collecting() -> SignUpError {
    SignUpError::NotCollecting
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
    /// The proof of work, when the server asks for one: ALTCHA's payload, base64.
    #[serde(default)]
    altcha: Option<String>,
    /// The referral code of the share link the visitor came by, if any (`?ref=`): one
    /// that is malformed (even not a string), unknown or of no use is ignored (and
    /// counted), never refused.
    #[serde(default, rename = "ref")]
    referral: Option<serde_json::Value>,
}

impl Posted for SignUp {
    const LIMIT: usize = BODY_LIMIT;
    type Error = SignUpError;
}

impl SignUp {
    /// The form's values and the privacy notice's version, if the core's rules pass, and
    /// whether the honeypot was filled.
    fn checked(self) -> Result<(FormValues, String, bool), SignUpError> {
        let version = self.privacy_notice.trim();
        if version.is_empty()
            || version.len() > VERSION_LIMIT
            || version.chars().any(is_control_or_format)
        {
            return Err(SignUpError::NotASignUp(
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
            return Err(SignUpError::BreaksRules(errors));
        }
        Ok((values, version, !self.website.is_empty()))
    }
}
