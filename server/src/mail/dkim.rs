//! DKIM signatures (RFC 6376), for owners who send from their own mail server: a relay
//! that signs (most providers do) needs none of this. The key is read in the forms
//! OpenSSL writes, checked once at start, and lettre signs each email with it:
//! relaxed/relaxed canonicalization, the headers a receiver shows or acts on signed
//! (on subscription mail, the one-click unsubscribe headers too, RFC 8058 §4).
//!
//! The DNS record that publishes the public half is printed by
//! `lathe-site dkim-record` ([`DkimKey::record`]).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::pkcs8::DecodePrivateKey as _;
use lettre::Message;
use lettre::message::dkim::{
    DkimCanonicalization, DkimCanonicalizationType, DkimConfig, DkimSigningAlgorithm,
    DkimSigningKey,
};
use lettre::message::header::HeaderName;
use rsa::pkcs1::{DecodeRsaPrivateKey as _, EncodeRsaPrivateKey as _};
use rsa::pkcs8::{EncodePublicKey as _, LineEnding};
use rsa::traits::PublicKeyParts as _;

/// The shortest RSA key accepted, in bits: receivers treat shorter ones as no signature
/// (Gmail's sender guidelines, RFC 8301 §3.2).
pub const MIN_RSA_BITS: usize = 2048;

/// The headers every signature covers: what a receiver shows, threads by, or decodes
/// the text with.
const SIGNED: [&str; 7] = [
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "MIME-Version",
    "Content-Type",
];

/// What subscription mail's signature covers besides: its one-click unsubscribe, so that
/// nobody on the way can add or change it (RFC 8058 §4).
const SIGNED_ON_SUBSCRIPTIONS: [&str; 2] = ["List-Unsubscribe", "List-Unsubscribe-Post"];

/// Why a key was refused.
#[derive(Debug, thiserror::Error)]
pub enum DkimKeyError {
    /// Not a private key in a form read here.
    #[error(
        "not an RSA private key (PEM, PKCS#1 or PKCS#8) or an Ed25519 private key (PEM, PKCS#8)"
    )]
    NotAKey,
    /// An RSA key too short to count.
    #[error(
        "an RSA key of {bits} bits: DKIM keys need at least {MIN_RSA_BITS} (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)"
    )]
    TooShort {
        /// Its length.
        bits: usize,
    },
}

/// A DKIM private key, checked.
#[derive(Clone)]
pub enum DkimKey {
    /// RSA, at least [`MIN_RSA_BITS`] long (`a=rsa-sha256`).
    Rsa(Box<rsa::RsaPrivateKey>),
    /// Ed25519 (`a=ed25519-sha256`, RFC 8463).
    Ed25519(Box<ed25519_dalek::SigningKey>),
}

/// Never the key itself.
impl std::fmt::Debug for DkimKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DkimKey::Rsa(key) => write!(f, "DkimKey(RSA, {} bits)", key.n().bits()),
            DkimKey::Ed25519(_) => write!(f, "DkimKey(Ed25519)"),
        }
    }
}

impl DkimKey {
    /// The key in `pem`: RSA as PKCS#1 (`BEGIN RSA PRIVATE KEY`) or PKCS#8 (`BEGIN
    /// PRIVATE KEY`), or Ed25519 as PKCS#8, as `openssl genpkey` writes them.
    ///
    /// # Errors
    /// See [`DkimKeyError`].
    pub fn from_pem(pem: &str) -> Result<Self, DkimKeyError> {
        let pem = pem.trim();
        let key = if let Ok(key) = rsa::RsaPrivateKey::from_pkcs1_pem(pem) {
            DkimKey::Rsa(Box::new(key))
        } else if let Ok(key) = rsa::RsaPrivateKey::from_pkcs8_pem(pem) {
            DkimKey::Rsa(Box::new(key))
        } else if let Ok(key) = ed25519_dalek::SigningKey::from_pkcs8_pem(pem) {
            DkimKey::Ed25519(Box::new(key))
        } else {
            return Err(DkimKeyError::NotAKey);
        };
        if let DkimKey::Rsa(rsa) = &key {
            let bits = rsa.n().bits();
            if bits < MIN_RSA_BITS {
                return Err(DkimKeyError::TooShort { bits });
            }
        }
        Ok(key)
    }

    /// The algorithm's name in the DNS record (`k=`).
    fn kind(&self) -> &'static str {
        match self {
            DkimKey::Rsa(_) => "rsa",
            DkimKey::Ed25519(_) => "ed25519",
        }
    }

    /// The DNS TXT record's text that publishes the public half: `v=DKIM1; k=rsa; p=…`
    /// (for RSA the DER `SubjectPublicKeyInfo`, for Ed25519 the raw 32 bytes, RFC 8463),
    /// in base64.
    ///
    /// # Panics
    /// Never for a key this type holds (its public half always encodes).
    pub fn record(&self) -> String {
        let public = match self {
            DkimKey::Rsa(key) => key
                .to_public_key()
                .to_public_key_der()
                .expect("an RSA public key encodes")
                .into_vec(),
            DkimKey::Ed25519(key) => key.verifying_key().to_bytes().to_vec(),
        };
        format!("v=DKIM1; k={}; p={}", self.kind(), STANDARD.encode(public))
    }

    /// The key as lettre takes it.
    fn signing_key(&self) -> DkimSigningKey {
        let made = match self {
            DkimKey::Rsa(key) => DkimSigningKey::new(
                &key.to_pkcs1_pem(LineEnding::LF)
                    .expect("an RSA key encodes"),
                DkimSigningAlgorithm::Rsa,
            ),
            DkimKey::Ed25519(key) => DkimSigningKey::new(
                &STANDARD.encode(key.to_bytes()),
                DkimSigningAlgorithm::Ed25519,
            ),
        };
        made.expect("a key checked by from_pem is one lettre takes")
    }
}

/// Where a signature's key is published: `SELECTOR._domainkey.DOMAIN`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// The selector (`s=`).
    pub selector: String,
    /// The signing domain (`d=`): --mail-from's, unless --dkim-domain says otherwise.
    pub domain: String,
}

impl Published {
    /// The record's DNS name.
    pub fn name(&self) -> String {
        format!("{}._domainkey.{}", self.selector, self.domain)
    }
}

/// What `lathe-site dkim-record` prints: the record's name, type and text, and the same
/// as a zone file's line (its text cut into the strings of at most 255 characters a TXT
/// record is made of).
pub fn dns_record(key: &DkimKey, at: &Published) -> String {
    let text = key.record();
    let strings: Vec<String> = text
        .as_bytes()
        .chunks(255)
        .map(|chunk| format!("\"{}\"", String::from_utf8_lossy(chunk)))
        .collect();
    format!(
        "name: {name}\ntype: TXT\ntext: {text}\nzone: {name}. IN TXT ( {} )\n",
        strings.join(" "),
        name = at.name(),
    )
}

/// Signs each email: one configuration for transactional mail, one for subscription
/// mail (whose signature covers its unsubscribe headers too).
pub struct Signer {
    transactional: DkimConfig,
    subscription: DkimConfig,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

impl Signer {
    /// Signs with `key`, published at `at`.
    pub fn new(key: &DkimKey, at: &Published) -> Self {
        let config = |headers: &[&'static str]| {
            DkimConfig::new(
                at.selector.clone(),
                at.domain.clone(),
                key.signing_key(),
                headers
                    .iter()
                    .map(|name| HeaderName::new_from_ascii_str(name))
                    .collect(),
                DkimCanonicalization {
                    header: DkimCanonicalizationType::Relaxed,
                    body: DkimCanonicalizationType::Relaxed,
                },
            )
        };
        let both: Vec<&'static str> = SIGNED.into_iter().chain(SIGNED_ON_SUBSCRIPTIONS).collect();
        Self {
            transactional: config(&SIGNED),
            subscription: config(&both),
        }
    }

    /// Adds the `DKIM-Signature` header to `message`, a subscription's or not.
    pub fn sign(&self, message: &mut Message, subscription: bool) {
        message.sign(if subscription {
            &self.subscription
        } else {
            &self.transactional
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/dkim/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn keys_are_read_in_the_forms_openssl_writes_and_short_ones_refused() {
        let pkcs8 = DkimKey::from_pem(&fixture("rsa2048.pem")).unwrap();
        let pkcs1 = DkimKey::from_pem(&fixture("rsa2048-pkcs1.pem")).unwrap();
        assert_eq!(format!("{pkcs8:?}"), "DkimKey(RSA, 2048 bits)");
        assert_eq!(pkcs8.record(), pkcs1.record(), "one key in two forms");
        let ed = DkimKey::from_pem(&fixture("ed25519.pem")).unwrap();
        assert_eq!(format!("{ed:?}"), "DkimKey(Ed25519)");
        assert_eq!(
            DkimKey::from_pem(&fixture("rsa1024.pem"))
                .unwrap_err()
                .to_string(),
            "an RSA key of 1024 bits: DKIM keys need at least 2048 (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)"
        );
        for junk in [
            "",
            "hello",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        ] {
            assert!(matches!(
                DkimKey::from_pem(junk),
                Err(DkimKeyError::NotAKey)
            ));
        }
    }

    #[test]
    fn the_record_holds_the_public_half() {
        let rsa = DkimKey::from_pem(&fixture("rsa2048.pem")).unwrap().record();
        // A 2048-bit key's SubjectPublicKeyInfo: 294 bytes, 392 in base64.
        let p = rsa.strip_prefix("v=DKIM1; k=rsa; p=").unwrap();
        assert_eq!(STANDARD.decode(p).unwrap().len(), 294);
        let ed = DkimKey::from_pem(&fixture("ed25519.pem")).unwrap().record();
        let p = ed.strip_prefix("v=DKIM1; k=ed25519; p=").unwrap();
        assert_eq!(STANDARD.decode(p).unwrap().len(), 32);
        let at = Published {
            selector: "lathe".into(),
            domain: "example.com".into(),
        };
        assert_eq!(at.name(), "lathe._domainkey.example.com");
        let printed = dns_record(&DkimKey::from_pem(&fixture("rsa2048.pem")).unwrap(), &at);
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines[0], "name: lathe._domainkey.example.com");
        assert_eq!(lines[1], "type: TXT");
        assert_eq!(lines[2], format!("text: {rsa}"));
        // 410 characters: two strings, the first 255 long, joined again by the resolver.
        let zone = lines[3]
            .strip_prefix("zone: lathe._domainkey.example.com. IN TXT ( \"")
            .unwrap();
        let (first, second) = zone
            .strip_suffix("\" )")
            .unwrap()
            .split_once("\" \"")
            .unwrap();
        assert_eq!(first.len(), 255);
        assert_eq!(format!("{first}{second}"), rsa);
    }
}
