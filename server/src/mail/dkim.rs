//! DKIM signatures (RFC 6376), for owners who send from their own mail server: a relay
//! that signs (most providers do) needs none of this. The key is read in the forms
//! OpenSSL writes and checked once at start; each email is signed as it will go on the
//! wire: relaxed/relaxed canonicalization, the headers a receiver shows or acts on signed
//! (on subscription mail, the one-click unsubscribe headers too, RFC 8058 §4).
//!
//! The signature is ring's. lettre can sign too (its `dkim` feature), but with the `rsa`
//! crate, at 7.7 ms of CPU per RSA-2048 signature on the machine we measure on against
//! ring's 1.0: over the outbox's whole work that was 10 to 20 % of what it could send, and
//! no crate that signs DKIM with ring or aws-lc-rs builds without a DNS resolver (or a C
//! toolchain's cmake). So the canonicalization (RFC 6376 §3.4.2, §3.4.4) is written here,
//! tested against the RFC's own example and every email checked by dkimpy, the reference
//! verifier (server/tests/api/mail.rs).
//!
//! The DNS record that publishes the public half is printed by
//! `lathe-site dkim-record` ([`DkimKey::record`]).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::pkcs8::DecodePrivateKey as _;
use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use ring::digest::{SHA256, digest};
use ring::signature::{Ed25519KeyPair, RSA_PKCS1_SHA256, RsaKeyPair};
use rsa::pkcs1::{DecodeRsaPrivateKey as _, EncodeRsaPrivateKey as _};
use rsa::pkcs8::EncodePublicKey as _;
use rsa::traits::PublicKeyParts as _;

/// The shortest RSA key accepted, in bits: receivers treat shorter ones as no signature
/// (Gmail's sender guidelines, RFC 8301 §3.2).
pub const MIN_RSA_BITS: usize = 2048;
/// The longest RSA key accepted, in bits: the longest ring signs with (and four times what
/// receivers ask for).
pub const MAX_RSA_BITS: usize = 8192;

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
    /// An RSA key too long, or otherwise one ring does not sign with.
    #[error(
        "an RSA key of {bits} bits that cannot sign: DKIM keys here are {MIN_RSA_BITS} to {MAX_RSA_BITS} bits, with a public exponent of 65537"
    )]
    CannotSign {
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
            if bits > MAX_RSA_BITS || key.signing_key().is_none() {
                return Err(DkimKeyError::CannotSign { bits });
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

    /// The key as ring signs with it; `None` for an RSA key ring refuses.
    fn signing_key(&self) -> Option<SigningKey> {
        match self {
            DkimKey::Rsa(key) => {
                let der = key.to_pkcs1_der().ok()?;
                RsaKeyPair::from_der(der.as_bytes())
                    .ok()
                    .map(|pair| SigningKey::Rsa(Box::new(pair)))
            }
            DkimKey::Ed25519(key) => Ed25519KeyPair::from_seed_unchecked(key.as_bytes())
                .ok()
                .map(|pair| SigningKey::Ed25519(Box::new(pair))),
        }
    }
}

/// A checked key, as ring signs with it.
enum SigningKey {
    Rsa(Box<RsaKeyPair>),
    Ed25519(Box<Ed25519KeyPair>),
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

/// Signs each email with a checked key, published at a selector and domain.
pub struct Signer {
    key: SigningKey,
    /// `a=`.
    algorithm: &'static str,
    at: Published,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

impl Signer {
    /// Signs with `key`, published at `at`.
    ///
    /// # Panics
    /// Never for a key [`DkimKey::from_pem`] returned (it checks that ring signs with it).
    pub fn new(key: &DkimKey, at: &Published) -> Self {
        Self {
            key: key
                .signing_key()
                .expect("a key checked by from_pem is one ring signs with"),
            algorithm: match key {
                DkimKey::Rsa(_) => "rsa-sha256",
                DkimKey::Ed25519(_) => "ed25519-sha256",
            },
            at: at.clone(),
        }
    }

    /// Adds the `DKIM-Signature` header to `message`, a subscription's or not, signed
    /// over the message as it goes on the wire, at `now` (seconds since 1970, `t=`).
    ///
    /// # Panics
    /// Never: ring fails to sign only for want of randomness, which the system gives.
    pub fn sign(&self, message: &mut Message, subscription: bool, now: u64) {
        let wire = message.formatted();
        let split = find(&wire, b"\r\n\r\n").map_or(wire.len(), |at| at + 2);
        let (head, body) = (&wire[..split], wire.get(split + 2..).unwrap_or_default());
        let body_hash = STANDARD.encode(digest(&SHA256, &relaxed_body(body)));
        let names: Vec<&str> = if subscription {
            SIGNED
                .iter()
                .chain(&SIGNED_ON_SUBSCRIPTIONS)
                .copied()
                .collect()
        } else {
            SIGNED.to_vec()
        };
        let fields = fields(head);
        let mut signed = String::new();
        for name in &names {
            // The last of a name is the one a signature covers (RFC 6376 §5.4.2); a name
            // the email lacks counts as empty, and no one can add it on the way.
            if let Some(field) = fields.iter().rev().find(|f| f.0.eq_ignore_ascii_case(name)) {
                signed.push_str(&relaxed_header(field.0, field.1));
            }
        }
        let tags = format!(
            "v=1; a={}; c=relaxed/relaxed; d={}; s={}; t={now}; h={}; bh={body_hash}; b=",
            self.algorithm,
            self.at.domain,
            self.at.selector,
            names.join(":").to_ascii_lowercase(),
        );
        // The signature's own header last, without its CRLF (RFC 6376 §3.7).
        let own = relaxed_header("DKIM-Signature", &tags);
        signed.push_str(own.trim_end_matches("\r\n"));
        let signature = match &self.key {
            SigningKey::Rsa(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(
                    &RSA_PKCS1_SHA256,
                    &ring::rand::SystemRandom::new(),
                    signed.as_bytes(),
                    &mut out,
                )
                .expect("ring signs with a checked key");
                out
            }
            // Ed25519 signs the hash (RFC 8463 §3).
            SigningKey::Ed25519(pair) => pair
                .sign(digest(&SHA256, signed.as_bytes()).as_ref())
                .as_ref()
                .to_vec(),
        };
        message.headers_mut().insert_raw(HeaderValue::new(
            HeaderName::new_from_ascii_str("DKIM-Signature"),
            format!("{tags}{}", STANDARD.encode(signature)),
        ));
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A header block's fields, in order: each name and its value as written (folded lines
/// and all, without the CRLF that ends it).
fn fields(head: &[u8]) -> Vec<(&str, &str)> {
    let head = std::str::from_utf8(head).unwrap_or_default();
    let mut out: Vec<(&str, &str)> = Vec::new();
    let mut start = 0;
    // A field ends at a CRLF not followed by white space (RFC 5322 §2.2.3).
    let bytes = head.as_bytes();
    for (at, _) in head.match_indices("\r\n") {
        if matches!(bytes.get(at + 2), Some(b' ' | b'\t')) {
            continue;
        }
        if let Some((name, value)) = head[start..at].split_once(':') {
            out.push((name, value));
        }
        start = at + 2;
    }
    out
}

/// A header field in relaxed form (RFC 6376 §3.4.2): the name in lower case, the value
/// unfolded, each run of white space one space, none at either end, then CRLF.
fn relaxed_header(name: &str, value: &str) -> String {
    let value = value.replace("\r\n", "");
    let words: Vec<&str> = value.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    format!(
        "{}:{}\r\n",
        name.trim_end().to_ascii_lowercase(),
        words.join(" ")
    )
}

/// A body in relaxed form (RFC 6376 §3.4.4): each run of white space in a line one space,
/// none at a line's end, no empty lines at the end; a body that is not empty ends in CRLF.
fn relaxed_body(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut space = false;
        for &b in line {
            if b == b' ' || b == b'\t' {
                space = true;
            } else {
                if space {
                    out.push(b' ');
                    space = false;
                }
                out.push(b);
            }
        }
        out.extend_from_slice(b"\r\n");
    }
    while out.ends_with(b"\r\n\r\n") {
        out.truncate(out.len() - 2);
    }
    if out == b"\r\n" {
        out.clear();
    }
    out
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
    fn canonicalization_is_the_rfcs_own_example() {
        // RFC 6376 §3.4.5.
        let message = b"A: X\r\nB : Y\t\r\n\tZ  \r\n\r\n C \r\nD \t E\r\n\r\n\r\n";
        let split = find(message, b"\r\n\r\n").unwrap() + 2;
        let fields = fields(&message[..split]);
        let headers: String = fields.iter().map(|f| relaxed_header(f.0, f.1)).collect();
        assert_eq!(headers, "a:X\r\nb:Y Z\r\n");
        assert_eq!(relaxed_body(&message[split + 2..]), b" C\r\nD E\r\n");
        // An empty body, or one of empty lines, is nothing; a last line without its CRLF
        // gets one.
        assert_eq!(relaxed_body(b""), b"");
        assert_eq!(relaxed_body(b"\r\n\r\n"), b"");
        assert_eq!(relaxed_body(b"a  b \t"), b"a b\r\n");
    }

    #[test]
    fn keys_ring_cannot_sign_with_are_refused_at_once() {
        assert_eq!(
            DkimKey::from_pem(&fixture("rsa2048-e3.pem"))
                .unwrap_err()
                .to_string(),
            "an RSA key of 2048 bits that cannot sign: DKIM keys here are 2048 to 8192 bits, with a public exponent of 65537"
        );
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
