//! The proof of work (`--proof-of-work`): challenges the ALTCHA reference implementation
//! (`altcha` from `PyPI`, `core/solver/tests/altcha_reference.py`) solves, each solution accepted once,
//! on both databases and across two instances; missing, forged, tampered and expired
//! solutions refused with their reasons.

use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use base64::Engine;
use lathe_site::domain::token::Key;
use lathe_site::store::Location;
use lathe_site::waitlist::proof::{COUNTERS, LIFETIME_S, Proofs};
use lathe_site_testkit::{Reply, error, get, post, refusal, sign_up, sign_up_with, sqlite};

use crate::helpers::{KEY, TestApp, collecting, unlimited};

/// The site collecting into `database`, asking for proofs signed with `key`.
fn asking(database: &Location, key: &str) -> TestApp {
    let mut config = collecting(database, unlimited());
    config.waitlist.as_mut().unwrap().proofs = Some(Proofs::new(&Key::new(key).unwrap()));
    TestApp::start(config)
}

/// `challenge` (JSON) solved by the reference implementation: the `altcha` field.
fn solved(challenge: &str) -> String {
    let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../.tools/python/bin/python");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/solver/tests/altcha_reference.py"
    );
    let mut child = Command::new(python)
        .args([script, "solve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("scripts/setup.sh's Python with altcha, in .tools/python");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(challenge.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A challenge from the server at `address`, solved.
fn proof_from(address: SocketAddr) -> String {
    let challenge = get(address, "/api/waitlist/challenge");
    assert_eq!(challenge.status, 200, "{}", challenge.text());
    assert_eq!(challenge.header("cache-control"), Some("no-store"));
    solved(&challenge.text())
}

fn with_proof(address: SocketAddr, email: &str, proof: &str) -> Reply {
    post(address, &sign_up_with(email, "altcha", proof))
}

fn accepts_each_solution_once(database: &Location) {
    let app = asking(database, KEY);
    // A script that did not do the work is refused, and says why.
    let none = post(app.address, &sign_up("script@example.com"));
    assert_eq!(
        (none.status, error(&none)),
        (
            400,
            "the sign-up needs its proof of work: please try again".into()
        )
    );
    assert_eq!(refusal(&none), (400, "no-proof".into()));
    let proof = proof_from(app.address);
    assert_eq!(
        with_proof(app.address, "ada@example.com", &proof).status,
        201
    );
    let again = with_proof(app.address, "bea@example.com", &proof);
    assert_eq!(
        (again.status, error(&again)),
        (
            409,
            "the proof of work was used already: please try again".into()
        )
    );
    assert_eq!(refusal(&again), (409, "used-proof".into()));
}

lathe_site_testkit::on_both_databases!(accepts_each_solution_once);

#[test]
fn forged_tampered_and_expired_solutions_are_refused() {
    let database = sqlite();
    let app = asking(&database, KEY);
    let invalid = "the proof of work is not valid: please try again";
    // Another key's challenge, solved: not ours.
    let other = Proofs::new(&Key::new("another key, also more than 32 bytes").unwrap());
    let forged = solved(&serde_json::to_string(&other.challenge(lathe_site::now_ms())).unwrap());
    let reply = with_proof(app.address, "forged@example.com", &forged);
    assert_eq!((reply.status, error(&reply)), (403, invalid.into()));
    assert_eq!(refusal(&reply), (403, "bad-proof".into()));
    // Ours, with its answer altered, or its challenge made cheaper.
    let engine = base64::engine::general_purpose::STANDARD;
    let fresh = |app: &TestApp| -> serde_json::Value {
        serde_json::from_slice(&engine.decode(proof_from(app.address)).unwrap()).unwrap()
    };
    let mut answer = fresh(&app);
    let key = answer["solution"]["derivedKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let flipped = if key.starts_with('0') { "1" } else { "0" };
    answer["solution"]["derivedKey"] = format!("{flipped}{}", &key[1..]).into();
    let mut cheaper = fresh(&app);
    cheaper["challenge"]["parameters"]["cost"] = 1.into();
    for (n, tampered) in [answer, cheaper].iter().enumerate() {
        let tampered = engine.encode(tampered.to_string());
        let reply = with_proof(app.address, &format!("tampered{n}@example.com"), &tampered);
        assert_eq!((reply.status, error(&reply)), (403, invalid.into()), "{n}");
        assert_eq!(refusal(&reply), (403, "bad-proof".into()), "{n}");
    }
    // Ours, signed as the server signs them, but issued a lifetime and a second ago.
    let ours = Proofs::new(&Key::new(KEY).unwrap());
    let old = lathe_site::now_ms() - (LIFETIME_S + 1) * 1000;
    let expired = solved(&serde_json::to_string(&ours.challenge(old)).unwrap());
    let reply = with_proof(app.address, "late@example.com", &expired);
    assert_eq!(
        (reply.status, error(&reply)),
        (
            403,
            "the proof of work has expired: please try again".into()
        )
    );
    assert_eq!(refusal(&reply), (403, "expired-proof".into()));
    assert_eq!(
        with_proof(app.address, "junk@example.com", "not base64!").status,
        403
    );
    assert!(crate::helpers::stored(&database).is_empty());
}

#[test]
fn the_cores_solver_is_accepted() {
    let database = sqlite();
    let app = asking(&database, KEY);
    let reply = get(app.address, "/api/waitlist/challenge");
    let json = reply.text();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let parameters = serde_json::from_value(value["parameters"].clone()).unwrap();
    let challenge = lathe_core_solver::Challenge::new(json, parameters).unwrap();
    let solution = challenge.solve(0, *COUNTERS.end() + 1).unwrap();
    assert!(COUNTERS.contains(&solution.counter));
    let proof = challenge.payload(&solution);
    assert_eq!(
        with_proof(app.address, "core@example.com", &proof).status,
        201
    );
    assert_eq!(
        refusal(&with_proof(app.address, "again@example.com", &proof)),
        (409, "used-proof".into())
    );
}

/// Eight sign-ups racing with one proof, four on each of two instances: one is stored.
#[test]
fn a_proof_raced_on_two_instances_is_accepted_once() {
    let postgres = lathe_site_testkit::Postgres::start();
    let (a, b) = (
        asking(&postgres.location, KEY),
        asking(&postgres.location, KEY),
    );
    let proof = proof_from(a.address);
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let racers: Vec<_> = (0..8)
            .map(|n| {
                let (address, proof) = (if n % 2 == 0 { a.address } else { b.address }, &proof);
                scope.spawn(move || {
                    with_proof(address, &format!("racer{n}@example.com"), proof).status
                })
            })
            .collect();
        racers.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut sorted = statuses.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [201, 409, 409, 409, 409, 409, 409, 409],
        "{statuses:?}"
    );
    assert_eq!(crate::helpers::stored(&postgres.location).len(), 1);
}

#[test]
fn a_proof_whose_sign_up_is_not_stored_is_not_spent() {
    let database = sqlite();
    let one_a_minute = lathe_site::waitlist::Settings {
        per_minute: std::num::NonZeroU32::new(1),
        ..lathe_site::waitlist::Settings::default()
    };
    let mut config = collecting(&database, one_a_minute);
    config.waitlist.as_mut().unwrap().proofs = Some(Proofs::new(&Key::new(KEY).unwrap()));
    let app = TestApp::start(config);
    assert_eq!(
        with_proof(app.address, "first@example.com", &proof_from(app.address)).status,
        201
    );
    // Over the allowance: refused before the store, so the proof is still good...
    let proof = proof_from(app.address);
    assert_eq!(
        refusal(&with_proof(app.address, "second@example.com", &proof)).0,
        429
    );
    // ...as it is for a bot's honeypot sign-up, which stores nothing.
    let bot = sign_up_with("bot@example.com", "website", "https://spam.example");
    let mut bot: serde_json::Value = serde_json::from_str(&bot).unwrap();
    bot["altcha"] = proof.clone().into();
    assert_eq!(post(app.address, &bot.to_string()).status, 201);
    assert_eq!(crate::helpers::stored(&database).len(), 1);
}

#[test]
fn two_instances_share_one_key_and_one_record_of_what_was_used() {
    let postgres = lathe_site_testkit::Postgres::start();
    let (a, b) = (
        asking(&postgres.location, KEY),
        asking(&postgres.location, KEY),
    );
    let proof = proof_from(a.address);
    assert_eq!(
        with_proof(b.address, "crossed@example.com", &proof).status,
        201,
        "A's challenge on B"
    );
    assert_eq!(
        with_proof(a.address, "replayed@example.com", &proof).status,
        409,
        "used on B, refused on A"
    );
}

#[test]
fn without_the_flag_no_proof_is_asked_and_the_challenge_route_says_so() {
    let database = sqlite();
    let app = TestApp::collecting(&database, unlimited());
    let none = get(app.address, "/api/waitlist/challenge");
    assert_eq!((none.status, none.text()), (204, String::new()));
    assert_eq!(none.header("cache-control"), Some("no-store"));
    assert_eq!(post(app.address, &sign_up("plain@example.com")).status, 201);
}
