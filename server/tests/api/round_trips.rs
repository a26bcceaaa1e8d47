//! On PostgreSQL a round trip is most of what a request costs: a sign-up with everything
//! on, a confirmation and an erasure (the manage page's, or the one-click unsubscribe)
//! are each one statement (`server/src/store/sign_ups.rs`, `confirmations.rs`,
//! `erasures.rs`). The cluster writes every statement it executes to its log; here each
//! call through the store is counted in it.

use std::num::NonZeroU32;

use futures_util::future::join_all;
use lathe_site::domain::referral::Ignored;
use lathe_site::domain::{Entry, ErasedBy};
use lathe_site::store::{Allowance, Confirmed, NotStored, Proof, SignedUp, Store};
use lathe_site_testkit::Postgres;

use crate::helpers::{entry, links, referrer, run, sign_up_twenty_one_refused};

#[test]
fn on_postgresql_a_sign_up_a_confirmation_and_an_erasure_are_one_statement_each() {
    let postgres = Postgres::start_logging_statements();
    run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        store.set_webhooks(true).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        // A referrer to sign up through, confirmed.
        let ada = referrer(&store, &pool, true).await;

        // A friend's sign-up with everything on.
        let (_, mut offset) = postgres.statements_since(0);
        let now = lathe_site::now_ms();
        let signed_up = store
            .sign_up(
                &entry("grace@example.com"),
                true,
                Some(Proof {
                    signature: "a-signature",
                    expires_at: now + 60_000,
                }),
                Some(&ada.referral_code),
                Some(Allowance {
                    client: "192.0.2.1",
                    per_minute: NonZeroU32::new(5).unwrap(),
                    now_us: lathe_site::now_us(),
                }),
            )
            .await
            .unwrap()
            .unwrap();
        assert_eq!(signed_up.referral, Some(Ok(())));
        let statements;
        (statements, offset) = postgres.statements_since(offset);
        assert_eq!(statements.len(), 1, "a sign-up: {statements:#?}");

        let grace = links(&pool, "grace@example.com").await;
        let (_, offset_now) = postgres.statements_since(offset);
        offset = offset_now;
        assert_eq!(
            store
                .confirm(&grace.id, &grace.confirm_nonce, lathe_site::now_ms())
                .await
                .unwrap(),
            Confirmed::Now
        );
        let statements;
        (statements, offset) = postgres.statements_since(offset);
        assert_eq!(statements.len(), 1, "a confirmation: {statements:#?}");

        // The credit given first (an erasure of a friend whose credit is due gives it in a
        // transaction of its own), then the friend unsubscribes.
        assert_eq!(
            store
                .credit_due(lathe_site::now_ms())
                .await
                .unwrap()
                .credited,
            1
        );
        let (_, offset_now) = postgres.statements_since(offset);
        offset = offset_now;
        assert!(
            store
                .erase_managed(
                    &grace.id,
                    &grace.manage_nonce,
                    ErasedBy::Unsubscribed,
                    lathe_site::now_ms()
                )
                .await
                .unwrap()
        );
        let (statements, _) = postgres.statements_since(offset);
        assert_eq!(statements.len(), 1, "an erasure: {statements:#?}");
    });
}

/// Sign-up number `n` of the test of sign-ups made together: its
/// address, proof and client.
fn at_once(n: usize) -> (String, String, String) {
    let email = match n {
        27..30 => "same@example.com".to_owned(),
        _ => format!("p{n:02}@example.com"),
    };
    let signature = match n {
        10..20 => "shared".to_owned(),
        _ => format!("own{n}"),
    };
    let client = match n {
        20..27 => "192.0.2.99".to_owned(),
        _ => format!("198.51.100.{n}"),
    };
    (email, signature, client)
}

/// The 30 sign-ups of [`at_once`], at once, each through `code`: their answers.
async fn sign_up_at_once(store: &Store, code: &str) -> Vec<Result<SignedUp, NotStored>> {
    let now = lathe_site::now_ms();
    let sign_ups: Vec<(Entry, String, String)> = (0..30)
        .map(|n| {
            let (email, signature, client) = at_once(n);
            (entry(&email), signature, client)
        })
        .collect();
    let answers = join_all(sign_ups.iter().map(|(entry, signature, client)| {
        store.sign_up(
            entry,
            true,
            Some(Proof {
                signature,
                expires_at: now + 60_000,
            }),
            Some(code),
            Some(Allowance {
                client,
                per_minute: NonZeroU32::new(5).unwrap(),
                now_us: lathe_site::now_us(),
            }),
        )
    }))
    .await;
    answers.into_iter().map(Result::unwrap).collect()
}

#[test]
fn on_postgresql_sign_ups_at_once_are_made_together_each_answered_as_alone() {
    let postgres = Postgres::start_logging_statements();
    run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        let ada = referrer(&store, &pool, false).await;

        // 30 sign-ups at once with everything on, each through Ada's code: 10 each with a
        // proof and a client of its own; 10 sharing one proof (it pays for one); 7 from
        // one client (its allowance of 5 a minute lets 5 through); 3 of one address (one
        // entry, two repeats).
        let (_, offset) = postgres.statements_since(0);
        let answers = sign_up_at_once(&store, &ada.referral_code).await;
        let (statements, _) = postgres.statements_since(offset);

        let count =
            |f: fn(&Result<SignedUp, NotStored>) -> bool| answers.iter().filter(|a| f(a)).count();
        assert_eq!(
            count(|a| matches!(a, Err(NotStored::ProofUsed))),
            9,
            "{answers:?}"
        );
        assert_eq!(
            count(|a| matches!(a, Err(NotStored::TooMany(_)))),
            2,
            "{answers:?}"
        );
        assert_eq!(count(Result::is_ok), 19, "{answers:?}");
        // Made together: fewer statements than sign-ups (the repeats' emails are each a
        // transaction of their own: BEGIN, the row, the count, the email, COMMIT).
        let sign_up_statements = statements
            .iter()
            .filter(|s| s.contains("INSERT INTO waitlist"))
            .count();
        assert!(
            sign_up_statements < 20,
            "{sign_up_statements} statements: {statements:#?}"
        );
        let stored: Vec<(String, i64, Option<String>)> = sqlx::query_as(
            "SELECT email, repeats, referred_by FROM waitlist WHERE email <> 'ada@example.com'
             ORDER BY email",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(stored.len(), 17, "{stored:?}");
        for (n, answer) in answers.iter().enumerate() {
            let (email, ..) = at_once(n);
            let row = stored.iter().find(|(e, ..)| *e == email);
            assert_eq!(
                row.is_some(),
                answer.is_ok() || email == "same@example.com",
                "{email}: {answer:?}"
            );
            if let Ok(signed_up) = answer
                && email != "same@example.com"
            {
                assert_eq!(signed_up.referral, Some(Ok(())), "{email}");
            }
        }
        // Of one address's three, the first stored (whichever it was) brings the referral;
        // the other two are its repeats.
        let mut same: Vec<_> = answers[27..]
            .iter()
            .map(|a| a.as_ref().unwrap().referral)
            .collect();
        same.sort_by_key(|r| r.is_some_and(|r| r.is_err()));
        assert_eq!(
            same,
            [
                Some(Ok(())),
                Some(Err(Ignored::Repeat)),
                Some(Err(Ignored::Repeat))
            ]
        );
        let same = stored
            .iter()
            .find(|(e, ..)| e == "same@example.com")
            .unwrap();
        assert_eq!(same.1, 2, "one entry, its two repeats counted");
        assert!(
            stored
                .iter()
                .all(|(_, _, by)| by.as_deref() == Some(ada.id.as_str())),
            "{stored:?}"
        );
        // A new entry's confirmation email, once each.
        let emails: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM outbox WHERE kind = 'confirm' AND email_key LIKE 'p%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(emails, 16);
        pool.close().await;
        store.close().await;
    });
}

#[test]
fn on_postgresql_a_sign_up_that_fails_leaves_those_made_with_it_stored() {
    let postgres = Postgres::start();
    run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        // A database that refuses one address: its sign-up fails, wherever it falls.
        for statement in [
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN
                 IF NEW.email = 'refused@example.com' THEN RAISE EXCEPTION 'refused here'; END IF;
                 RETURN NEW; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER refuse BEFORE INSERT ON waitlist FOR EACH ROW EXECUTE FUNCTION refuse()",
        ] {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
        sign_up_twenty_one_refused(&store).await;
        let kept: Vec<String> = sqlx::query_scalar("SELECT email FROM waitlist ORDER BY email")
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(kept.len(), 19, "{kept:?}");
        assert!(!kept.contains(&"refused@example.com".to_owned()));
        let emails: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(emails, 19, "each stored entry's email, once");
        pool.close().await;
        store.close().await;
    });
}

/// `emails` signed up through `store` (pending), each through `code` if given.
async fn signed_up(store: &Store, emails: &[String], code: Option<&str>) {
    for email in emails {
        store
            .sign_up(&entry(email), true, None, code, None)
            .await
            .unwrap()
            .unwrap();
    }
}

#[test]
fn on_postgresql_confirmations_at_once_are_made_together_each_answered_as_alone() {
    let postgres = Postgres::start_logging_statements();
    run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        store.set_webhooks(true).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        let ada = referrer(&store, &pool, true).await;
        // 24 friends through Ada's link, and Bob by himself.
        let friends: Vec<String> = (0..24).map(|n| format!("f{n:02}@example.com")).collect();
        signed_up(&store, &friends, Some(&ada.referral_code)).await;
        signed_up(&store, &["bob@example.com".to_owned()], None).await;
        let mut confirming = Vec::new();
        for email in friends.iter().chain(["bob@example.com".to_owned()].iter()) {
            let l = links(&pool, email).await;
            confirming.push((l.id, l.confirm_nonce));
        }
        // Each link once, the first four twice, and two links of no entry: 31 at once.
        let twice: Vec<_> = confirming[..4].to_vec();
        confirming.extend(twice);
        confirming.push(("no-such-entry".to_owned(), "a-nonce".to_owned()));
        confirming.push((ada.id.clone(), "not-its-nonce".to_owned()));

        let (_, offset) = postgres.statements_since(0);
        let now = lathe_site::now_ms();
        let answers: Vec<Confirmed> = join_all(
            confirming
                .iter()
                .map(|(id, nonce)| store.confirm(id, nonce, now)),
        )
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
        let (statements, _) = postgres.statements_since(offset);

        let count = |c: Confirmed| answers.iter().filter(|a| **a == c).count();
        assert_eq!(count(Confirmed::Now), 25, "{answers:?}");
        // A link's second use finds it used, whichever of the two came first; Ada's row
        // is there, confirmed, without that nonce.
        assert_eq!(count(Confirmed::Already), 5, "{answers:?}");
        assert_eq!(count(Confirmed::Unknown), 1, "{answers:?}");
        for (n, answer) in answers[..4].iter().enumerate() {
            let pair = [*answer, answers[25 + n]];
            assert!(
                pair.contains(&Confirmed::Now) && pair.contains(&Confirmed::Already),
                "link {n}: {pair:?}"
            );
        }
        assert_eq!(answers[29], Confirmed::Unknown);
        assert_eq!(answers[30], Confirmed::Already);
        // Made together: fewer statements than confirmations.
        let confirming_statements = statements
            .iter()
            .filter(|s| s.contains("UPDATE waitlist"))
            .count();
        assert!(
            confirming_statements < 25,
            "{confirming_statements} statements: {statements:#?}"
        );

        stored_after_confirming_together(&store, &pool, &ada.id).await;
        pool.close().await;
        store.close().await;
    });
}

/// What the confirmations of [`on_postgresql_confirmations_at_once_are_made_together_each_answered_as_alone`]
/// left in `pool`: 26 entries standing and counted once each, Ada's 24 credits due and
/// then given by `store`, and an event each with its person's values.
async fn stored_after_confirming_together(store: &Store, pool: &sqlx::AnyPool, ada: &str) {
    // Each stands in the line once, with a number of its own, counted once.
    let (standing, numbers): (i64, i64) =
        sqlx::query_as("SELECT COUNT(*), COUNT(DISTINCT line_number) FROM standings")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!((standing, numbers), (26, 26));
    let counted: i64 = sqlx::query_scalar("SELECT CAST(SUM(n) AS BIGINT) FROM line_counts")
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(counted, 26);
    let confirmed: Vec<(String, Option<i64>, Option<String>)> =
        sqlx::query_as("SELECT status, confirmed_at, confirm_nonce FROM waitlist ORDER BY email")
            .fetch_all(pool)
            .await
            .unwrap();
    assert!(
        confirmed
            .iter()
            .all(|row| row.0 == "confirmed" && row.1.is_some() && row.2.is_none()),
        "{confirmed:?}"
    );
    // Each friend's credit due at its confirmation, then given: Ada moves 24 times.
    let due: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM credits_due AS c JOIN waitlist AS w
             ON w.email_key = c.email_key AND c.due_at = w.confirmed_at
         WHERE c.referrer = $1",
    )
    .bind(ada)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(due, 24);
    assert_eq!(
        store
            .credit_due(lathe_site::now_ms())
            .await
            .unwrap()
            .credited,
        24
    );
    let credits: i64 = sqlx::query_scalar("SELECT credits FROM standings WHERE id = $1")
        .bind(ada)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(credits, 24);
    // Each its event, once, its person's own values in it.
    let events: Vec<(String, String)> = sqlx::query_as(
        "SELECT w.email, e.payload FROM webhooks AS e JOIN waitlist AS w ON w.id = e.entry_id
         WHERE e.type = 'entry.confirmed' ORDER BY w.email",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(events.len(), 26, "{events:?}");
    for (email, payload) in &events {
        let payload: serde_json::Value = serde_json::from_str(payload).unwrap();
        assert_eq!(payload["data"]["email"], email.as_str(), "{payload}");
        assert_eq!(payload["data"]["name"], "Ada Lovelace", "{payload}");
    }
    let mut emails: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    emails.dedup();
    assert_eq!(emails.len(), 26);
}

#[test]
fn on_postgresql_a_confirmation_that_fails_leaves_those_made_with_it_confirmed() {
    let postgres = Postgres::start();
    run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        let emails: Vec<String> = (0..19)
            .map(|n| format!("c{n:02}@example.com"))
            .chain(["refused@example.com".to_owned()])
            .collect();
        signed_up(&store, &emails, None).await;
        let mut confirming = Vec::new();
        for email in &emails {
            let l = links(&pool, email).await;
            confirming.push((l.id, l.confirm_nonce));
        }
        // A database that refuses to confirm one address, wherever it falls.
        for statement in [
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN
                 IF NEW.email = 'refused@example.com' AND NEW.status = 'confirmed'
                 THEN RAISE EXCEPTION 'refused here'; END IF;
                 RETURN NEW; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER refuse BEFORE UPDATE ON waitlist FOR EACH ROW EXECUTE FUNCTION refuse()",
        ] {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
        let now = lathe_site::now_ms();
        let answers = join_all(
            confirming
                .iter()
                .map(|(id, nonce)| store.confirm(id, nonce, now)),
        )
        .await;
        for (email, answer) in emails.iter().zip(&answers) {
            if email == "refused@example.com" {
                assert!(answer.is_err(), "{answer:?}");
            } else {
                assert_eq!(answer.as_ref().ok(), Some(&Confirmed::Now), "{email}");
            }
        }
        let confirmed: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM waitlist WHERE status = 'confirmed'")
                .fetch_one(&pool)
                .await
                .unwrap();
        let standing: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM standings")
            .fetch_one(&pool)
            .await
            .unwrap();
        let counted: i64 = sqlx::query_scalar("SELECT CAST(SUM(n) AS BIGINT) FROM line_counts")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!((confirmed, standing, counted), (19, 19, 19));
        pool.close().await;
        store.close().await;
    });
}
