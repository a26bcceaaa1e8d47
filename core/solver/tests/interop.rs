//! The solver (`lathe_core_solver`) against two implementations that are not ours: the
//! `altcha` crate the server verifies with, and the reference `altcha` from the Python
//! Package Index (installed by `scripts/setup.sh` into `.tools/python`). Each makes a
//! challenge, ours solves it, and each verifies our payload. Native only.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use lathe_core_solver::{Challenge, Parameters};

/// A challenge's JSON text, ready to solve.
fn challenge(json: &str) -> Challenge {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let parameters: Parameters = serde_json::from_value(value["parameters"].clone()).unwrap();
    Challenge::new(json.to_owned(), parameters).unwrap()
}

#[test]
fn the_altcha_crate_verifies_our_payloads() {
    for counter in [0, 1, 255, 256, 999] {
        let issued = altcha::create_challenge(altcha::CreateChallengeOptions {
            algorithm: "PBKDF2/SHA-256".into(),
            cost: 50,
            counter: Some(counter),
            expires_at: Some(i64::MAX / 2),
            hmac_signature_secret: Some("challenge secret".into()),
            hmac_key_signature_secret: Some("key secret".into()),
            ..Default::default()
        })
        .unwrap();
        let ours = challenge(&serde_json::to_string(&issued).unwrap());
        let solution = ours.solve(0, 1000).unwrap();
        assert_eq!(solution.counter, counter);

        let payload: altcha::Payload =
            serde_json::from_slice(&STANDARD.decode(ours.payload(&solution)).unwrap()).unwrap();
        let mut options = altcha::VerifySolutionOptions::new(
            &payload.challenge,
            &payload.solution,
            "challenge secret",
        );
        options.hmac_key_signature_secret = Some("key secret".into());
        let result = altcha::verify_solution(options).unwrap();
        assert!(result.verified, "counter {counter}: {result:?}");
    }
}

/// The reference implementation: `core/solver/tests/altcha_reference.py` with `arguments`.
fn reference(arguments: &[&str], input: Option<&str>) -> (bool, String) {
    use std::io::Write;
    let python = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../.tools/python/bin/python"
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/altcha_reference.py");
    let mut child = Command::new(python)
        .arg(script)
        .args(arguments)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scripts/setup.sh's Python with altcha, in .tools/python");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.unwrap_or("").as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text.trim().to_owned())
}

#[test]
fn the_reference_implementation_verifies_our_payloads_and_refuses_a_wrong_one() {
    let (ok, json) = reference(&["create", "reference secret", "100", "321"], None);
    assert!(ok, "{json}");
    let ours = challenge(&json);
    let solution = ours.solve(0, 1000).unwrap();
    assert_eq!(solution.counter, 321);

    let (ok, said) = reference(
        &["verify", "reference secret"],
        Some(&ours.payload(&solution)),
    );
    assert!(ok, "{said}");
    assert_eq!(said, "verified");

    // The same payload under another secret, and a wrong key, are refused: the reference
    // is checking, not agreeing.
    let (ok, _) = reference(
        &["verify", "another secret"],
        Some(&ours.payload(&solution)),
    );
    assert!(!ok);
    let mut wrong = solution.clone();
    wrong.derived_key[31] ^= 1;
    let (ok, _) = reference(&["verify", "reference secret"], Some(&ours.payload(&wrong)));
    assert!(!ok);
}
