//! The links in the waitlist's emails: signed tokens (HMAC-SHA256 under a key every
//! instance shares), so that a forged or altered link is refused before the database is
//! asked. A token names an entry by its random id (never the address), what it may do
//! ([`Purpose`]), a nonce the entry holds while the link is valid (a confirmation link is
//! single use: confirming clears it, sending a new one replaces it) and when it expires.
//! Time is an input, as in the core's rules.
//!
//! The text is `v1.PURPOSE.ENTRY.NONCE.EXPIRES.SIGNATURE`: base64url without padding,
//! the expiry in ms since the Unix epoch (0: never), URL-safe as it stands.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

const VERSION: &str = "v1";

/// What a link may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Confirm the address (single use, expires).
    Confirm,
    /// See, download and erase the entry.
    Manage,
    /// Unsubscribe from the list at once (RFC 8058's one-click, on subscription mail):
    /// a token of its own, so that a manage or confirm link never works there, nor this
    /// one anywhere else.
    Unsubscribe,
}

impl Purpose {
    const fn tag(self) -> &'static str {
        match self {
            Purpose::Confirm => "c",
            Purpose::Manage => "m",
            Purpose::Unsubscribe => "u",
        }
    }
}

/// What a valid token says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    /// What it may do.
    pub purpose: Purpose,
    /// The entry's random id.
    pub entry: String,
    /// The nonce the entry must still hold.
    pub nonce: String,
    /// When it stops working, in ms since the Unix epoch; 0 for never.
    pub expires_ms: i64,
}

/// Why a token was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not a token of ours at all.
    #[error("this link is not one of ours: check that it was copied whole")]
    Malformed,
    /// Well formed, but its signature is not ours: altered or made up.
    #[error("this link is not one of ours: check that it was copied whole")]
    Forged,
    /// Ours, for something else (a manage link used to confirm).
    #[error("this link is for something else")]
    WrongPurpose,
    /// Ours, but too old.
    #[error("this link has expired")]
    Expired,
}

/// Why a key was refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "the token key must be at least {MIN_KEY_BYTES} bytes (make one with: openssl rand -base64 32)"
)]
pub struct ShortKey;

/// The key tokens are signed with.
#[derive(Clone)]
pub struct Key(Vec<u8>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key from its text (white space around it is ignored, as a file's last newline).
    ///
    /// # Errors
    /// Shorter than [`MIN_KEY_BYTES`].
    pub fn new(text: &str) -> Result<Self, ShortKey> {
        let bytes = text.trim().as_bytes();
        if bytes.len() < MIN_KEY_BYTES {
            return Err(ShortKey);
        }
        Ok(Self(bytes.to_vec()))
    }

    /// A key of its own for `purpose`, derived from this one (HMAC-SHA256 of the
    /// purpose, base64url): one secret for the owner to keep, a key a use.
    pub fn derive(&self, purpose: &str) -> String {
        let mut mac = self.mac();
        mac.update(b"lathe key for: ");
        mac.update(purpose.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC accepts any key length")
    }

    /// The token for `claims`.
    pub fn sign(&self, claims: &Claims) -> String {
        let body = format!(
            "{VERSION}.{}.{}.{}.{}",
            claims.purpose.tag(),
            claims.entry,
            claims.nonce,
            claims.expires_ms
        );
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{body}.{signature}")
    }

    /// What `token` says, if it is ours, for `purpose`, and not expired at `now_ms`.
    ///
    /// # Errors
    /// See [`TokenError`]; the signature is checked before anything it says is believed.
    pub fn verify(&self, token: &str, purpose: Purpose, now_ms: i64) -> Result<Claims, TokenError> {
        let claims = self.read(token, purpose)?;
        if claims.expires_ms != 0 && now_ms >= claims.expires_ms {
            return Err(TokenError::Expired);
        }
        Ok(claims)
    }

    /// What `token` says, if it is ours and for `purpose`, expired or not (to send a new
    /// link in place of an expired one).
    ///
    /// # Errors
    /// As [`Key::verify`], but never [`TokenError::Expired`].
    pub fn read(&self, token: &str, purpose: Purpose) -> Result<Claims, TokenError> {
        let (body, signature) = token.rsplit_once('.').ok_or(TokenError::Malformed)?;
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| TokenError::Malformed)?;
        let parts: Vec<&str> = body.split('.').collect();
        let [VERSION, tag, entry, nonce, expires] = parts[..] else {
            return Err(TokenError::Malformed);
        };
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        mac.verify_slice(&signature)
            .map_err(|_| TokenError::Forged)?;
        if tag != purpose.tag() {
            return Err(TokenError::WrongPurpose);
        }
        Ok(Claims {
            purpose,
            entry: entry.to_owned(),
            nonce: nonce.to_owned(),
            expires_ms: expires.parse().map_err(|_| TokenError::Malformed)?,
        })
    }
}

/// A new random identifier (an entry's id, a nonce, an email's id): 128 bits, base64url.
///
/// # Panics
/// When the operating system's random source fails, which leaves nothing safe to sign with.
pub fn random_id() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes())
}

/// A new referral code: [`CODE_BYTES`](lathe_core::referral::CODE_BYTES) random bytes in
/// base64url, derived from nothing (not the address, not the entry's id).
///
/// # Panics
/// As [`random_id`].
pub fn random_code() -> String {
    let mut bytes = [0_u8; lathe_core::referral::CODE_BYTES];
    getrandom::fill(&mut bytes).expect("the system's random source");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A random number from the operating system's source.
///
/// # Panics
/// As [`random_id`].
pub fn random_u64() -> u64 {
    let mut bytes = [0_u8; 8];
    getrandom::fill(&mut bytes).expect("the system's random source");
    u64::from_le_bytes(bytes)
}

fn random_bytes() -> [u8; 16] {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).expect("the system's random source");
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::new("0123456789abcdef0123456789abcdef").unwrap()
    }

    fn claims(purpose: Purpose, expires_ms: i64) -> Claims {
        Claims {
            purpose,
            entry: random_id(),
            nonce: random_id(),
            expires_ms,
        }
    }

    #[test]
    fn a_token_says_what_it_was_signed_with_until_it_expires() {
        let c = claims(
            Purpose::Confirm,
            lathe_core::retention::confirm_link_expires(1_000),
        );
        let token = key().sign(&c);
        assert!(token.starts_with("v1.c."));
        assert!(
            token
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || "-_.".contains(ch))
        );
        assert_eq!(key().verify(&token, Purpose::Confirm, 1_000), Ok(c.clone()));
        let last = c.expires_ms - 1;
        assert!(key().verify(&token, Purpose::Confirm, last).is_ok());
        assert_eq!(
            key().verify(&token, Purpose::Confirm, c.expires_ms),
            Err(TokenError::Expired)
        );
        // Still ours, to send a new one in its place.
        assert_eq!(key().read(&token, Purpose::Confirm), Ok(c));
    }

    #[test]
    fn a_manage_token_without_expiry_works_for_ever_and_only_to_manage() {
        let token = key().sign(&claims(Purpose::Manage, 0));
        assert!(key().verify(&token, Purpose::Manage, i64::MAX).is_ok());
        assert_eq!(
            key().verify(&token, Purpose::Confirm, 0),
            Err(TokenError::WrongPurpose)
        );
    }

    #[test]
    fn each_purpose_works_for_itself_only() {
        let all = [Purpose::Confirm, Purpose::Manage, Purpose::Unsubscribe];
        for signed in all {
            let token = key().sign(&claims(signed, 0));
            for asked in all {
                let read = key().verify(&token, asked, 0);
                if asked == signed {
                    assert!(read.is_ok(), "{signed:?}");
                } else {
                    assert_eq!(
                        read,
                        Err(TokenError::WrongPurpose),
                        "{signed:?} as {asked:?}"
                    );
                }
            }
        }
        assert!(
            key()
                .sign(&claims(Purpose::Unsubscribe, 0))
                .starts_with("v1.u.")
        );
    }

    #[test]
    fn altered_or_foreign_tokens_are_refused() {
        let c = claims(Purpose::Confirm, 10_000);
        let token = key().sign(&c);
        // Another entry, a later expiry, another key: each breaks the signature.
        let other_entry = token.replacen(&c.entry, &random_id(), 1);
        assert_eq!(
            key().verify(&other_entry, Purpose::Confirm, 0),
            Err(TokenError::Forged)
        );
        let later = token.replacen(".10000.", ".99999999999999.", 1);
        assert_eq!(
            key().verify(&later, Purpose::Confirm, 0),
            Err(TokenError::Forged)
        );
        let other_key = Key::new("another key, of thirty-two bytes!").unwrap();
        assert_eq!(
            other_key.verify(&token, Purpose::Confirm, 0),
            Err(TokenError::Forged)
        );
        for junk in [
            "",
            "v1",
            "v1.c.a.b.1",
            "v2.c.a.b.1.AAAA",
            "not a token.%%%",
            &token[..token.len() - 1],
        ] {
            assert!(key().verify(junk, Purpose::Confirm, 0).is_err(), "{junk}");
        }
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(Key::new("short").is_err());
        assert!(Key::new(&format!("  {}  \n", "k".repeat(31))).is_err());
        assert!(Key::new(&"k".repeat(32)).is_ok());
    }

    #[test]
    fn random_ids_are_128_bits_and_differ() {
        let (a, b) = (random_id(), random_id());
        assert_eq!(a.len(), 22);
        assert_ne!(a, b);
    }
}
