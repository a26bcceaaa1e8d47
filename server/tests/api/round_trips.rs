//! On PostgreSQL a round trip is most of what a request costs: a sign-up with everything
//! on, a confirmation and an erasure (the manage page's, or the one-click unsubscribe)
//! are each one statement (`server/src/store/sign_ups.rs`, `confirmations.rs`,
//! `erasures.rs`). The cluster writes every statement it executes to its log; here each
//! call through the store is counted in it.

use std::num::NonZeroU32;

use lathe_site::domain::ErasedBy;
use lathe_site::store::{Allowance, Confirmed, Proof, Store};
use lathe_site_testkit::Postgres;

use crate::helpers::{entry, links, run};

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
        store
            .sign_up(&entry("ada@example.com"), true, None, None, None)
            .await
            .unwrap()
            .unwrap();
        let ada = links(&pool, "ada@example.com").await;
        assert_eq!(
            store
                .confirm(&ada.id, &ada.confirm_nonce, lathe_site::now_ms())
                .await
                .unwrap(),
            Confirmed::Now
        );

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
