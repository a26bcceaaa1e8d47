//! SQLite's group commit (`server/src/store/group.rs`): writes that wait for the one
//! connection at once are made in one transaction, each in a savepoint of its own. Here,
//! many at once through the store: each is answered as if it had been made alone.

use futures_util::future::join_all;
use lathe_site::domain::Entry;
use lathe_site::store::{Confirmed, Location, NotStored, Proof, Store};
use lathe_site_testkit::sqlite;

use crate::helpers::{entry, run, sign_up_twenty_one_refused};

/// The addresses stored, sorted.
async fn stored(location: &Location) -> Vec<String> {
    let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
    let emails = sqlx::query_scalar("SELECT email FROM waitlist ORDER BY email")
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    emails
}

#[test]
fn writes_made_together_are_each_kept_or_undone_on_their_own() {
    let location = sqlite();
    run(async {
        let store = Store::open(&location).await.unwrap();
        let now = lathe_site::now_ms();
        // 30 sign-ups at once: 10 each with a proof of its own, 10 sharing one proof (one
        // of them is stored), 10 without.
        let signatures: Vec<String> = (0..30)
            .map(|n| match n {
                0..10 => format!("own{n}"),
                10..20 => "shared".to_owned(),
                _ => String::new(),
            })
            .collect();
        let entries: Vec<Entry> = (0..30)
            .map(|n| entry(&format!("p{n:02}@example.com")))
            .collect();
        let answers = join_all(entries.iter().zip(&signatures).map(|(entry, signature)| {
            let proof = (!signature.is_empty()).then_some(Proof {
                signature,
                expires_at: now + 60_000,
            });
            store.sign_up(entry, true, proof, None, None)
        }))
        .await;
        let used = answers
            .iter()
            .filter(|a| matches!(a, Ok(Err(NotStored::ProofUsed))))
            .count();
        assert_eq!(used, 9, "the shared proof pays for one sign-up");
        assert!(
            answers
                .iter()
                .all(|a| matches!(a, Ok(Ok(_) | Err(NotStored::ProofUsed))))
        );
        let emails = stored(&location).await;
        assert_eq!(emails.len(), 21, "{emails:?}");
        for (n, answer) in answers.iter().enumerate() {
            let email = format!("p{n:02}@example.com");
            assert_eq!(
                emails.contains(&email),
                matches!(answer, Ok(Ok(_))),
                "{email}: answered {answer:?}"
            );
        }

        // Their confirmations at once, each link twice and one link wrong: each entry
        // confirmed once, the wrong one confirming nothing.
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        let links: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, confirm_nonce FROM waitlist WHERE confirm_nonce IS NOT NULL",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(links.len(), 21);
        let (wrong_id, _) = &links[0];
        let confirmations = join_all(
            links
                .iter()
                .chain(&links)
                .map(|(id, nonce)| store.confirm(id, nonce, lathe_site::now_ms()))
                .chain([store.confirm(wrong_id, "not-its-nonce", lathe_site::now_ms())]),
        )
        .await;
        let now_confirmed = confirmations
            .iter()
            .filter(|c| matches!(c, Ok(Confirmed::Now)))
            .count();
        assert_eq!(now_confirmed, 21, "{confirmations:?}");
        let confirmed: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM waitlist WHERE status = 'confirmed'")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(confirmed, 21);
        // Numbered in the line once each: 1 to 21.
        let numbers: Vec<i64> =
            sqlx::query_scalar("SELECT line_number FROM standings ORDER BY line_number")
                .fetch_all(&pool)
                .await
                .unwrap();
        assert_eq!(numbers, (1..=21).collect::<Vec<i64>>());
        pool.close().await;
        store.close().await;
    });
}

#[test]
fn a_write_that_fails_leaves_the_others_of_its_group_stored() {
    let location = sqlite();
    run(async {
        let store = Store::open(&location).await.unwrap();
        // A database that refuses one address: its sign-up fails, wherever it falls.
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        sqlx::query(
            "CREATE TRIGGER refuse BEFORE INSERT ON waitlist
             WHEN NEW.email = 'refused@example.com'
             BEGIN SELECT RAISE(ABORT, 'refused here'); END",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
        sign_up_twenty_one_refused(&store).await;
        let kept = stored(&location).await;
        assert_eq!(kept.len(), 19, "{kept:?}");
        assert!(!kept.contains(&"refused@example.com".to_owned()));
        store.close().await;
    });
}
