//! The solver's wasm boundary as JavaScript sees it, run in headless browsers by
//! `wasm-pack test --headless --chrome core/solver -- --test web`.
#![cfg(target_arch = "wasm32")]

use std::fmt::Write;

use base64::Engine;
use js_sys::{JSON, Reflect};
use lathe_core_solver::wasm::solve_challenge;
use lathe_core_solver::{ALGORITHM, Challenge, Parameters};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

fn json(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
}

/// A challenge whose answer is `counter`: its prefix is half the key that counter derives.
fn challenge_for(counter: u32) -> String {
    let parameters = Parameters {
        algorithm: ALGORITHM.into(),
        cost: 100,
        key_length: 32,
        key_prefix: String::new(),
        nonce: "000102030405060708090a0b0c0d0e0f".into(),
        salt: "0f0e0d0c0b0a09080706050403020100".into(),
    };
    let key = Challenge::new(String::new(), parameters.clone())
        .unwrap()
        .derive(counter);
    let prefix = key[..16].iter().fold(String::new(), |mut hex, b| {
        write!(hex, "{b:02x}").unwrap();
        hex
    });
    format!(
        r#"{{"parameters":{{"algorithm":"{}","cost":100,"keyLength":32,"keyPrefix":"{prefix}","nonce":"{}","salt":"{}"}},"signature":"00"}}"#,
        parameters.algorithm, parameters.nonce, parameters.salt
    )
}

#[wasm_bindgen_test]
fn the_solver_finds_the_counter_and_sends_the_challenge_back_as_it_came() {
    let challenge = challenge_for(37);
    let payload = solve_challenge(&challenge).unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&payload)
        .unwrap();
    let value = JSON::parse(&String::from_utf8(decoded).unwrap()).unwrap();
    assert_eq!(json(&get(&value, "challenge")), challenge);
    assert_eq!(
        get(&get(&value, "solution"), "counter").as_f64(),
        Some(37.0)
    );
    for bad in [
        "",
        "{}",
        r#"{"parameters":{}}"#,
        &challenge.replace("100", "\"100\""),
    ] {
        assert!(solve_challenge(bad).is_err(), "{bad}");
    }
}
