//! The proof of work a sign-up carries when the server asks for one (`--proof-of-work`):
//! an ALTCHA v2 challenge (PBKDF2/SHA-256, signed with a key every instance shares,
//! expiring in minutes) from `GET /api/waitlist/challenge`, solved by the visitor's
//! browser, and sent back in the sign-up's `altcha` field as the specification encodes it
//! (base64 of `{"challenge", "solution"}`). A solution is accepted once: its challenge's
//! signature is recorded in the database with the entry it pays for
//! ([`crate::store::Store::sign_up`]), under its expiry to the millisecond, which each
//! challenge carries in its signed `data` ([`EXPIRES_AT_MS`]; docs/server.md, "No bots").

use std::ops::RangeInclusive;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::domain::token::Key;

/// The path challenges are issued at.
pub const CHALLENGE_PATH: &str = "/api/waitlist/challenge";
/// How long a challenge may be solved and used, in seconds.
pub const LIFETIME_S: i64 = 10 * 60;
/// PBKDF2's iterations for one try. With [`COUNTERS`], chosen from the solve times
/// `make bench` measures in Chromium, as it is and with the CPU slowed four times (about
/// 1 ms a try then): the slowest challenge, 1,000 tries, takes about a second on a budget
/// phone, inside the spec's 2 s with room for the fetch and the worker (docs/server.md,
/// "No bots").
pub const COST: u32 = 500;
/// The tries a solution takes, one drawn at random a challenge (deterministic mode: the
/// server knows the answer's signature and checks it with one HMAC). The upper bound is
/// the slowest visitor's worst case; a script pays the mean, 625 tries.
pub const COUNTERS: RangeInclusive<u32> = 250..=1000;
/// The longest `altcha` field accepted.
const PAYLOAD_LIMIT: usize = 4096;
/// The name, in a challenge's signed `data`, of its expiry in ms since the Unix epoch.
/// ALTCHA's own `expiresAt` counts whole seconds: a spent proof is recorded under this
/// one, so that proofs spent in about the order they were issued are recorded in the order
/// of their key, each at the right edge of its index, not at a random page of it (the
/// signature is random). Challenges issued before it was added have none: their key is
/// `expiresAt` in ms, as it was.
pub const EXPIRES_AT_MS: &str = "expiresAtMs";

/// Why a proof of work was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// No `altcha` field.
    #[error("the sign-up needs its proof of work: please try again")]
    Missing,
    /// Not a payload, not our challenge, or not its solution.
    #[error("the proof of work is not valid: please try again")]
    Invalid,
    /// Our challenge, too old.
    #[error("the proof of work has expired: please try again")]
    Expired,
    /// Used already.
    #[error("the proof of work was used already: please try again")]
    Used,
}

/// Issuing and checking challenges, with the key every instance shares.
#[derive(Clone)]
pub struct Proofs {
    /// Signs the challenge.
    challenge_key: String,
    /// Signs the answer's key (deterministic mode).
    answer_key: String,
}

impl std::fmt::Debug for Proofs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Proofs(..)")
    }
}

/// A proof that checked out: what to record so that it is not used twice.
pub struct Checked {
    /// The challenge's signature.
    pub signature: String,
    /// When the challenge expires, in ms since the Unix epoch: [`EXPIRES_AT_MS`], never
    /// before ALTCHA's own `expiresAt`.
    pub expires_at: i64,
}

impl Proofs {
    /// Challenges signed with `key`.
    pub fn new(key: &Key) -> Self {
        Self {
            challenge_key: key.derive("altcha challenge"),
            answer_key: key.derive("altcha answer"),
        }
    }

    /// A new challenge, expiring [`LIFETIME_S`] after `now` (ms since the Unix epoch).
    ///
    /// # Panics
    /// When the system's random source fails.
    pub fn challenge(&self, now: i64) -> altcha::Challenge {
        let counter = COUNTERS.start()
            + u32::try_from(
                crate::domain::token::random_u64()
                    % u64::from(COUNTERS.end() - COUNTERS.start() + 1),
            )
            .unwrap_or(0);
        self.challenge_answered_by(counter, now)
    }

    /// A new challenge whose answer is `counter` (which [`Self::challenge`] draws at
    /// random from [`COUNTERS`]): for `make bench`, which must post many valid proofs
    /// without doing their work (server/examples/proofs.rs).
    ///
    /// # Panics
    /// When the system's random source fails.
    pub fn challenge_answered_by(&self, counter: u32, now: i64) -> altcha::Challenge {
        let expires_at_ms = now + LIFETIME_S * 1000;
        altcha::create_challenge(altcha::CreateChallengeOptions {
            algorithm: "PBKDF2/SHA-256".into(),
            cost: COST,
            counter: Some(counter),
            data: Some([(EXPIRES_AT_MS.to_owned(), expires_at_ms.into())].into()),
            // Whole seconds, rounded down: ALTCHA's expiry is never after ours.
            expires_at: Some(expires_at_ms.div_euclid(1000)),
            hmac_signature_secret: Some(self.challenge_key.clone()),
            hmac_key_signature_secret: Some(self.answer_key.clone()),
            ..Default::default()
        })
        .expect("a PBKDF2 challenge with its keys")
    }

    /// Checks the `altcha` field of a sign-up.
    ///
    /// # Errors
    /// See [`ProofError`] (all but [`ProofError::Used`], which the store says).
    pub fn check(&self, field: Option<&str>) -> Result<Checked, ProofError> {
        let field = field.filter(|f| !f.is_empty()).ok_or(ProofError::Missing)?;
        if field.len() > PAYLOAD_LIMIT {
            return Err(ProofError::Invalid);
        }
        let bytes = STANDARD.decode(field).map_err(|_| ProofError::Invalid)?;
        let payload: altcha::Payload =
            serde_json::from_slice(&bytes).map_err(|_| ProofError::Invalid)?;
        let mut options = altcha::VerifySolutionOptions::new(
            &payload.challenge,
            &payload.solution,
            self.challenge_key.clone(),
        );
        options.hmac_key_signature_secret = Some(self.answer_key.clone());
        let result = altcha::verify_solution(options).map_err(|_| ProofError::Invalid)?;
        if result.expired {
            return Err(ProofError::Expired);
        }
        if !result.verified {
            return Err(ProofError::Invalid);
        }
        let parameters = payload.challenge.parameters;
        let seconds = parameters.expires_at.ok_or(ProofError::Invalid)?;
        // Signed with the rest: a value of ours.
        let expires_at = match parameters.data.as_ref().map(|data| data.get(EXPIRES_AT_MS)) {
            None | Some(None) => seconds.saturating_mul(1000),
            Some(Some(ms)) => ms.as_i64().ok_or(ProofError::Invalid)?,
        };
        Ok(Checked {
            signature: payload.challenge.signature.ok_or(ProofError::Invalid)?,
            expires_at,
        })
    }
}

/// `GET /api/waitlist/challenge`: a new challenge, as the ALTCHA widget and the core
/// take it; 204 (no content) from a server that asks for no proof, so that a form can
/// tell, with no error in the visitor's console.
pub(super) fn challenge(proofs: Option<&Proofs>) -> Response {
    let mut response = match proofs {
        Some(proofs) => {
            crate::operations::metrics::challenge_issued();
            Json(proofs.challenge(crate::now_ms())).into_response()
        }
        None => StatusCode::NO_CONTENT.into_response(),
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_carries_its_expiry_to_the_millisecond_and_altchas_is_never_later() {
        let proofs = Proofs::new(&Key::new("a test key of more than thirty-two bytes").unwrap());
        for now in [1_700_000_000_000, 1_700_000_000_999] {
            let parameters = proofs.challenge(now).parameters;
            let ms = now + LIFETIME_S * 1000;
            assert_eq!(
                parameters.data.unwrap()[EXPIRES_AT_MS],
                serde_json::json!(ms),
                "{now}"
            );
            assert_eq!(parameters.expires_at, Some(1_700_000_600), "{now}");
        }
    }
}
