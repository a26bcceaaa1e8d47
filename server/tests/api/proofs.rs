//! The proof of work (`--proof-of-work`): challenges the ALTCHA reference implementation
//! (`altcha` from `PyPI`, `core/solver/tests/altcha_reference.py`) solves, each solution accepted once,
//! on both databases and across two instances; missing, forged, tampered and expired
//! solutions refused with their reasons; spent ones kept until they expire, under their
//! expiry to the millisecond.

use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use base64::Engine;
use lathe_site::domain::token::Key;
use lathe_site::store::{Location, NotStored, Proof, Store};
use lathe_site::waitlist::proof::{COUNTERS, EXPIRES_AT_MS, LIFETIME_S, Proofs};
use lathe_site_testkit::{Reply, error, get, post, refusal, sign_up, sign_up_with, sqlite};

use crate::helpers::{KEY, TestApp, collecting, entry, run, schema_before, sql_text, unlimited};

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

/// The payload an `altcha` field holds.
fn decoded(proof: &str) -> serde_json::Value {
    let engine = base64::engine::general_purpose::STANDARD;
    serde_json::from_slice(&engine.decode(proof).unwrap()).unwrap()
}

/// A challenge as the server issued them before each carried its expiry to the
/// millisecond (no `data`; the options `Proofs::challenge_answered_by` gives, less that),
/// issued at `now` and solved: (the `altcha` field, its expiry in whole seconds).
fn solved_as_before(now: i64) -> (String, i64) {
    let key = Key::new(KEY).unwrap();
    let expires_at = now / 1000 + LIFETIME_S;
    let challenge = altcha::create_challenge(altcha::CreateChallengeOptions {
        algorithm: "PBKDF2/SHA-256".into(),
        cost: lathe_site::waitlist::proof::COST,
        counter: Some(*COUNTERS.start()),
        expires_at: Some(expires_at),
        hmac_signature_secret: Some(key.derive("altcha challenge")),
        hmac_key_signature_secret: Some(key.derive("altcha answer")),
        ..Default::default()
    })
    .unwrap();
    assert!(challenge.parameters.data.is_none());
    (
        solved(&serde_json::to_string(&challenge).unwrap()),
        expires_at,
    )
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
    // Recorded under its expiry to the millisecond, from the challenge's signed data.
    let parameters = &decoded(&proof)["challenge"]["parameters"];
    let expires_at = parameters["data"][EXPIRES_AT_MS].as_i64().unwrap();
    assert_eq!(parameters["expiresAt"].as_i64(), Some(expires_at / 1000));
    assert_eq!(
        sql_text(
            database,
            "SELECT COUNT(*) || ' ' || MAX(expires_at) FROM proofs"
        ),
        format!("1 {expires_at}")
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
    let fresh = |app: &TestApp| decoded(&proof_from(app.address));
    let mut answer = fresh(&app);
    let key = answer["solution"]["derivedKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let flipped = if key.starts_with('0') { "1" } else { "0" };
    answer["solution"]["derivedKey"] = format!("{flipped}{}", &key[1..]).into();
    let mut cheaper = fresh(&app);
    cheaper["challenge"]["parameters"]["cost"] = 1.into();
    // The expiry it is recorded under, made sooner (so that it would be forgotten, and
    // accepted again, before the challenge expires) or later.
    let [mut sooner, mut later] = [fresh(&app), fresh(&app)];
    for (payload, by) in [(&mut sooner, -60_000), (&mut later, 60_000)] {
        let ms = &mut payload["challenge"]["parameters"]["data"][EXPIRES_AT_MS];
        *ms = (ms.as_i64().unwrap() + by).into();
    }
    for (n, tampered) in [answer, cheaper, sooner, later].iter().enumerate() {
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

/// A list whose spent proofs were kept under their signatures alone (the schema before
/// migration 0014), opened by this server: a proof spent then is still refused, and a
/// challenge issued then, without its expiry to the millisecond, is accepted once.
fn proofs_spent_before_the_key_held_their_expiry_stay_spent(database: &Location) {
    let now = lathe_site::now_ms();
    let (spent, seconds) = solved_as_before(now);
    let signature = decoded(&spent)["challenge"]["signature"]
        .as_str()
        .unwrap()
        .to_owned();
    run(async {
        let pool = schema_before(database, "0014").await;
        sqlx::query("INSERT INTO proofs (signature, expires_at) VALUES ($1, $2)")
            .bind(&signature)
            .bind(seconds * 1000)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });
    let app = asking(database, KEY);
    assert_eq!(
        refusal(&with_proof(app.address, "old@example.com", &spent)),
        (409, "used-proof".into())
    );
    let (unspent, _) = solved_as_before(now);
    assert_eq!(
        with_proof(app.address, "new@example.com", &unspent).status,
        201
    );
    assert_eq!(
        refusal(&with_proof(app.address, "again@example.com", &unspent)),
        (409, "used-proof".into())
    );
}

/// The owner's purge forgets the proofs whose challenges have expired, and only those:
/// one that has not is still refused after it.
fn expired_proofs_are_forgotten_and_only_they(database: &Location) {
    let now = lathe_site::now_ms();
    let proof = |signature, expires_at| {
        Some(Proof {
            signature,
            expires_at,
        })
    };
    run(async {
        let store = Store::open(database).await.unwrap();
        for (email, signature, expires_at) in [
            ("gone@example.com", "expired", now - 1),
            ("kept@example.com", "current", now),
        ] {
            let stored = store
                .sign_up(
                    &entry(email),
                    false,
                    proof(signature, expires_at),
                    None,
                    None,
                )
                .await
                .unwrap();
            assert!(stored.is_ok(), "{email}");
        }
        store.purge(now, false).await.unwrap();
    });
    assert_eq!(
        sql_text(database, "SELECT STRING_AGG(signature, ',') FROM proofs"),
        "current"
    );
    let again = run(async {
        let store = Store::open(database).await.unwrap();
        let again = store
            .sign_up(
                &entry("again@example.com"),
                false,
                proof("current", now),
                None,
                None,
            )
            .await
            .unwrap();
        again.err()
    });
    assert_eq!(again, Some(NotStored::ProofUsed));
}

lathe_site_testkit::on_both_databases!(
    proofs_spent_before_the_key_held_their_expiry_stay_spent,
    expired_proofs_are_forgotten_and_only_they,
);
