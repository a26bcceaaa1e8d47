//! The solver's one wasm-bindgen function, over [`crate::Challenge`].

use js_sys::{JSON, Reflect};
use lol_alloc::{FreeListAllocator, LockedAllocator};
use wasm_bindgen::prelude::*;

use crate::{Challenge, Parameters};

// A few strings and a key at a time: a free list is plenty, and smaller than dlmalloc.
#[global_allocator]
static ALLOCATOR: LockedAllocator<FreeListAllocator> =
    LockedAllocator::new(FreeListAllocator::new());

/// Solves an ALTCHA v2 challenge (PBKDF2/SHA-256), given as the JSON text the server
/// sent: the payload for the sign-up's `altcha` field (base64). Blocks while it works (a
/// few hundred milliseconds to seconds): call it in a worker.
///
/// # Errors
/// Not the JSON of a PBKDF2/SHA-256 challenge within the solver's bounds, or no counter
/// solves it.
#[wasm_bindgen(js_name = solveChallenge)]
pub fn solve_challenge(json: &str) -> Result<String, JsError> {
    let challenge =
        read_challenge(json).ok_or_else(|| JsError::new("not an ALTCHA challenge to solve"))?;
    let solution = challenge
        .solve(0, crate::MAX_COUNTER)
        .ok_or_else(|| JsError::new("no counter solves the challenge"))?;
    Ok(challenge.payload(&solution))
}

/// Reads a challenge's parameters by key, without serde's deserialisers (whose error
/// formatting would be most of the module).
fn read_challenge(json: &str) -> Option<Challenge> {
    let value = JSON::parse(json).ok()?;
    let parameters = Reflect::get(&value, &"parameters".into()).ok()?;
    let text = |key: &str| Reflect::get(&parameters, &key.into()).ok()?.as_string();
    let number = |key: &str| {
        let n = Reflect::get(&parameters, &key.into()).ok()?.as_f64()?;
        (n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n)).then_some(n as u32)
    };
    let parameters = Parameters {
        algorithm: text("algorithm")?,
        cost: number("cost")?,
        key_length: number("keyLength")? as usize,
        key_prefix: text("keyPrefix")?,
        nonce: text("nonce")?,
        salt: text("salt")?,
    };
    Challenge::new(json.to_owned(), parameters).ok()
}
