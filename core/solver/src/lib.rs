//! The proof of work a sign-up carries when the server asks for one: an ALTCHA v2
//! challenge (PBKDF2/SHA-256) solved by trying counters until the derived key starts with
//! the challenge's prefix, and the payload the sign-up's `altcha` field carries (base64 of
//! `{"challenge", "solution"}`, as the ALTCHA specification encodes it).
//!
//! A crate of its own, and a wasm module of its own (`lathe-core/solver`): only the
//! form's worker needs it, so the core every page loads does not carry it (it was 6 KB of
//! the core's 28, gzipped). Plain Rust, tested natively; `wasm` is its binding.
//!
//! The hash comes from the `pbkdf2` and `sha2` crates, which the `altcha` crate derives
//! with; the `altcha` crate itself is not used here because it brings `serde_json`, `rand`
//! and `getrandom` into the wasm for what a solver never does (sign, verify, draw).
//! Interoperability is tested instead: the server's `altcha` crate and the reference
//! implementation (`altcha` from the Python Package Index) verify these payloads. Hex and
//! base64 are written here, not taken from the `hex` and `base64` crates: those cost 9 KB
//! of wasm (gzipped), more than the rest of the solver, and the tests check these few
//! lines against them.

use serde::Deserialize;
use sha2::Sha256;
use thiserror::Error;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// The only algorithm solved (the one the server issues).
pub const ALGORITHM: &str = "PBKDF2/SHA-256";
/// The most PBKDF2 iterations a challenge may ask for: more is not ours.
pub const MAX_COST: u32 = 1_000_000;
/// The longest derived key a challenge may ask for, in bytes.
pub const MAX_KEY_LENGTH: usize = 64;
/// The counters a solver tries before giving up (a challenge's are in the thousands).
pub const MAX_COUNTER: u32 = 1 << 24;

/// What the solver needs of a challenge's `parameters` (others are carried, not read).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Parameters {
    /// `PBKDF2/SHA-256`.
    pub algorithm: String,
    /// PBKDF2's iterations.
    pub cost: u32,
    /// Bytes of derived key.
    pub key_length: usize,
    /// The hex the derived key must start with.
    pub key_prefix: String,
    /// Hex; the password is the nonce followed by the counter (4 bytes, big-endian).
    pub nonce: String,
    /// Hex.
    pub salt: String,
}

/// A challenge as the server sent it: its JSON text, carried back unchanged in the
/// payload (its signature covers every parameter), and what the solver reads of it.
#[derive(Clone, Debug)]
pub struct Challenge {
    json: String,
    cost: u32,
    key_length: usize,
    prefix: Prefix,
    nonce: Vec<u8>,
    salt: Vec<u8>,
}

/// Why a challenge cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChallengeError {
    /// Not the JSON of a challenge.
    #[error("not an ALTCHA challenge: {0}")]
    NotAChallenge(String),
    /// Another algorithm than [`ALGORITHM`].
    #[error("unsupported algorithm {0:?}")]
    Algorithm(String),
    /// A nonce, salt or prefix that is not hex.
    #[error("{0} is not hex")]
    NotHex(&'static str),
    /// A cost or key length beyond [`MAX_COST`] or [`MAX_KEY_LENGTH`], or zero.
    #[error("cost {cost} or key length {key_length} out of range")]
    OutOfRange {
        /// The cost asked for.
        cost: u32,
        /// The key length asked for.
        key_length: usize,
    },
}

/// The prefix the derived key must start with: whole bytes, and an odd hex digit's high
/// nibble.
#[derive(Clone, Debug)]
struct Prefix {
    bytes: Vec<u8>,
    nibble: Option<u8>,
}

impl Prefix {
    fn parse(hex_digits: &str) -> Result<Self, ChallengeError> {
        let not_hex = ChallengeError::NotHex("keyPrefix");
        let (even, odd) = hex_digits.as_bytes().split_at(hex_digits.len() & !1);
        let bytes = hex_decode(even).ok_or(not_hex.clone())?;
        let nibble = match odd.first() {
            Some(&digit) => Some(hex_digit(digit).ok_or(not_hex)?),
            None => None,
        };
        Ok(Self { bytes, nibble })
    }

    fn matches(&self, key: &[u8]) -> bool {
        key.starts_with(&self.bytes)
            && self
                .nibble
                .is_none_or(|n| key.get(self.bytes.len()).is_some_and(|b| b >> 4 == n))
    }
}

/// A counter that solves a challenge, and the key it derives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The counter.
    pub counter: u32,
    /// PBKDF2's output for it.
    pub derived_key: Vec<u8>,
}

impl Challenge {
    /// A challenge from its JSON text and its parameters as read from that text (the
    /// caller parses: `JSON.parse` in the browser, `serde_json` natively).
    ///
    /// # Errors
    /// See [`ChallengeError`].
    pub fn new(json: String, parameters: Parameters) -> Result<Self, ChallengeError> {
        if !parameters.algorithm.eq_ignore_ascii_case(ALGORITHM) {
            return Err(ChallengeError::Algorithm(parameters.algorithm));
        }
        if parameters.cost == 0
            || parameters.cost > MAX_COST
            || parameters.key_length == 0
            || parameters.key_length > MAX_KEY_LENGTH
        {
            return Err(ChallengeError::OutOfRange {
                cost: parameters.cost,
                key_length: parameters.key_length,
            });
        }
        Ok(Self {
            json,
            cost: parameters.cost,
            key_length: parameters.key_length,
            prefix: Prefix::parse(&parameters.key_prefix)?,
            nonce: hex_decode(parameters.nonce.as_bytes())
                .ok_or(ChallengeError::NotHex("nonce"))?,
            salt: hex_decode(parameters.salt.as_bytes()).ok_or(ChallengeError::NotHex("salt"))?,
        })
    }

    /// The key counter `counter` derives.
    pub fn derive(&self, counter: u32) -> Vec<u8> {
        let mut password = Vec::with_capacity(self.nonce.len() + 4);
        password.extend_from_slice(&self.nonce);
        password.extend_from_slice(&counter.to_be_bytes());
        let mut key = vec![0; self.key_length];
        pbkdf2::pbkdf2_hmac::<Sha256>(&password, &self.salt, self.cost, &mut key);
        key
    }

    /// Tries the counters `from..to` in order; the first that solves the challenge.
    pub fn solve(&self, from: u32, to: u32) -> Option<Solution> {
        (from..to).find_map(|counter| {
            let derived_key = self.derive(counter);
            self.prefix.matches(&derived_key).then_some(Solution {
                counter,
                derived_key,
            })
        })
    }

    /// The `altcha` field for `solution`: base64 of `{"challenge": <the challenge as
    /// sent>, "solution": {"counter", "derivedKey"}}`.
    pub fn payload(&self, solution: &Solution) -> String {
        // Built by hand: `format!` would bring Rust's formatting machinery into the wasm.
        let mut json = String::with_capacity(self.json.len() + 128);
        json.push_str(r#"{"challenge":"#);
        json.push_str(&self.json);
        json.push_str(r#","solution":{"counter":"#);
        push_decimal(&mut json, solution.counter);
        json.push_str(r#","derivedKey":""#);
        for byte in &solution.derived_key {
            json.push(char::from(HEX[usize::from(byte >> 4)]));
            json.push(char::from(HEX[usize::from(byte & 15)]));
        }
        json.push_str(r#""}}"#);
        base64(json.as_bytes())
    }
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// A hex digit's value (either case).
fn hex_digit(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// Bytes from an even number of hex digits.
fn hex_decode(digits: &[u8]) -> Option<Vec<u8>> {
    if digits.len() % 2 != 0 {
        return None;
    }
    digits
        .chunks_exact(2)
        .map(|pair| Some(hex_digit(pair[0])? << 4 | hex_digit(pair[1])?))
        .collect()
}

/// Standard base64, padded (RFC 4648, section 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Appends `n` in decimal.
fn push_decimal(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut rest = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    fn parameters(prefix: &str) -> Parameters {
        Parameters {
            algorithm: ALGORITHM.into(),
            cost: 10,
            key_length: 32,
            key_prefix: prefix.into(),
            nonce: "00112233445566778899aabbccddeeff".into(),
            salt: "ffeeddccbbaa99887766554433221100".into(),
        }
    }

    #[test]
    fn the_key_is_pbkdf2_sha256_of_nonce_and_big_endian_counter() {
        let challenge = Challenge::new("{}".into(), parameters("")).unwrap();
        let mut password = hex::decode("00112233445566778899aabbccddeeff").unwrap();
        password.extend_from_slice(&[0, 0, 1, 2]);
        let salt = hex::decode("ffeeddccbbaa99887766554433221100").unwrap();
        let mut expected = [0; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(&password, &salt, 10, &mut expected);
        assert_eq!(challenge.derive(258), expected);
    }

    #[test]
    fn a_prefix_of_whole_bytes_or_an_odd_nibble_is_matched_as_hex() {
        let key = challenge_key(7);
        let hex = hex::encode(&key);
        for digits in [&hex[..4], &hex[..5], &hex[..1]] {
            let challenge = Challenge::new("{}".into(), parameters(digits)).unwrap();
            let found = challenge.solve(0, 8).unwrap();
            assert!(hex::encode(&found.derived_key).starts_with(digits));
            assert!(found.counter <= 7);
        }
        let upper = hex[..6].to_uppercase();
        let challenge = Challenge::new("{}".into(), parameters(&upper)).unwrap();
        assert_eq!(challenge.solve(0, 8).map(|s| s.counter), Some(7));
    }

    fn challenge_key(counter: u32) -> Vec<u8> {
        Challenge::new("{}".into(), parameters(""))
            .unwrap()
            .derive(counter)
    }

    #[test]
    fn no_counter_in_range_is_none() {
        let hex = hex::encode(challenge_key(7));
        let challenge = Challenge::new("{}".into(), parameters(&hex[..16])).unwrap();
        assert_eq!(challenge.solve(0, 7), None);
        assert_eq!(challenge.solve(7, 8).map(|s| s.counter), Some(7));
    }

    #[test]
    fn the_payload_carries_the_challenge_as_sent() {
        let json = r#"{"parameters":{"x":1},"signature":"ab"}"#;
        let challenge = Challenge::new(json.into(), parameters("")).unwrap();
        let solution = Solution {
            counter: 3,
            derived_key: vec![0xab, 0x01],
        };
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(challenge.payload(&solution))
            .unwrap();
        assert_eq!(
            String::from_utf8(decoded).unwrap(),
            r#"{"challenge":{"parameters":{"x":1},"signature":"ab"},"solution":{"counter":3,"derivedKey":"ab01"}}"#
        );
    }

    #[test]
    fn hex_and_base64_are_the_crates_own() {
        for len in 0..70 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
            assert_eq!(
                base64(&bytes),
                base64::engine::general_purpose::STANDARD.encode(&bytes)
            );
            let lower = hex::encode(&bytes);
            assert_eq!(hex_decode(lower.as_bytes()), Some(bytes.clone()));
            assert_eq!(hex_decode(lower.to_uppercase().as_bytes()), Some(bytes));
        }
        for bad in ["0", "0g", "g0", "abc", " 0"] {
            assert_eq!(hex_decode(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn counters_are_written_in_decimal() {
        for n in [0, 7, 10, 1234, u32::MAX] {
            let mut out = String::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn what_is_not_ours_to_solve_is_refused() {
        let mut other = parameters("");
        other.algorithm = "SCRYPT".into();
        assert_eq!(
            Challenge::new(String::new(), other).unwrap_err(),
            ChallengeError::Algorithm("SCRYPT".into())
        );
        for (cost, key_length) in [(0, 32), (MAX_COST + 1, 32), (10, 0), (10, 65)] {
            let mut p = parameters("");
            (p.cost, p.key_length) = (cost, key_length);
            assert!(matches!(
                Challenge::new(String::new(), p),
                Err(ChallengeError::OutOfRange { .. })
            ));
        }
        for (field, bad) in [("nonce", "0g"), ("salt", "abc"), ("keyPrefix", "0x")] {
            let mut p = parameters("");
            match field {
                "nonce" => p.nonce = bad.into(),
                "salt" => p.salt = bad.into(),
                _ => p.key_prefix = bad.into(),
            }
            assert_eq!(
                Challenge::new(String::new(), p).unwrap_err(),
                ChallengeError::NotHex(field)
            );
        }
    }
}
