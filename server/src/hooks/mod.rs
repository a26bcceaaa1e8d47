//! Webhooks, signed as the Standard Webhooks specification says: each event
//! ([`crate::store::Event`]) is sent (a POST) as JSON `{"type", "timestamp", "data"}` to the
//! owner's receiver (`--webhook-url`) with the headers `webhook-id` (the same on every
//! retry), `webhook-timestamp` (seconds, at the attempt) and `webhook-signature`
//! (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the secret). The worker
//! ([`worker`]) sends what the store holds, with the outbox's retries: a timeout, a
//! connection error or a 5xx is tried again later, a 4xx never.

pub mod worker;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub use worker::Hooks;

/// How long a receiver has to answer before the attempt counts as failed.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The secret's prefix, as the specification's libraries write it.
const PREFIX: &str = "whsec_";

/// Why a receiver's settings were refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReceiverError {
    /// Not an http(s) URL.
    #[error("--webhook-url must be an http:// or https:// address, not {0:?}")]
    Url(String),
    /// No secret.
    #[error(
        "--webhook-url needs its secret in LATHE_WEBHOOK_SECRET (whsec_ and base64, as the receiver's Standard Webhooks library takes it)"
    )]
    NoSecret,
    /// A secret that is not `whsec_` and base64 of 24 to 64 bytes.
    #[error("LATHE_WEBHOOK_SECRET must be whsec_ and the base64 of 24 to 64 random bytes")]
    BadSecret,
}

/// The owner's receiver: where events go, and the secret they are signed with.
#[derive(Clone)]
pub struct Receiver {
    url: String,
    secret: Vec<u8>,
}

/// Only the URL: the secret is never shown.
impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Receiver({}, secret ..)", self.url)
    }
}

impl Receiver {
    /// The receiver at `url`, signed for with `secret` (`whsec_` and base64).
    ///
    /// # Errors
    /// See [`ReceiverError`].
    pub fn new(url: &str, secret: Option<&str>) -> Result<Self, ReceiverError> {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(ReceiverError::Url(url.to_owned()));
        }
        let secret = secret.ok_or(ReceiverError::NoSecret)?.trim();
        let encoded = secret.strip_prefix(PREFIX).unwrap_or(secret);
        let bytes = STANDARD
            .decode(encoded)
            .map_err(|_| ReceiverError::BadSecret)?;
        if !(24..=64).contains(&bytes.len()) {
            return Err(ReceiverError::BadSecret);
        }
        Ok(Self {
            url: url.to_owned(),
            secret: bytes,
        })
    }

    /// Where events go.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The `webhook-signature` of `body` sent as `id` at `timestamp` (seconds).
    ///
    /// # Panics
    /// Never: HMAC takes a key of any length.
    pub fn signature(&self, id: &str, timestamp: i64, body: &str) -> String {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC accepts any key length");
        mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's own example: its secret, id, timestamp, body and signature.
    #[test]
    fn signs_as_the_specifications_example_does() {
        let receiver = Receiver::new(
            "https://example.com/hook",
            Some("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        )
        .unwrap();
        assert_eq!(
            receiver.signature(
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1_614_265_330,
                r#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_receiver_needs_an_http_address_and_a_secret_of_ours() {
        let secret = Some("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert_eq!(
            Receiver::new("ftp://x", secret).unwrap_err(),
            ReceiverError::Url("ftp://x".into())
        );
        assert_eq!(
            Receiver::new("https://x", None).unwrap_err(),
            ReceiverError::NoSecret
        );
        for bad in ["whsec_not base64!", "whsec_c2hvcnQ=", ""] {
            assert_eq!(
                Receiver::new("https://x", Some(bad)).unwrap_err(),
                ReceiverError::BadSecret,
                "{bad}"
            );
        }
        let shown = format!("{:?}", Receiver::new("https://x", secret).unwrap());
        assert!(!shown.contains("MfKQ"), "{shown}");
    }
}
