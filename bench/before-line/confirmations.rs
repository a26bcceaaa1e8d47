//! make bench's peer for the line's confirmations: the waitlist as main stood before the
//! line and referrals (the Makefile's BEFORE_LINE, issue 38's "today"), through its own
//! store. The Makefile copies this file into a worktree of that commit as
//! `server/examples/before_line.rs` and builds it there, so it is compiled against that
//! commit's API, not this one's; it is not built with the workspace. So it repeats
//! line.rs's constants and its fill (less the line's columns) rather than share them.
//!
//! On the database at LOCATION (a new SQLite file or an empty PostgreSQL database), fills
//! ENTRIES confirmed entries, as `server/examples/line.rs` does for the line, signs up
//! 4,000 new ones with confirmation links, and confirms them ten at a time in ten rounds,
//! printing one JSON object: `signUpsPerSecond` and `plainPerSecond` (the median round),
//! the figures `line.rs` prints for the same work today.
//!
//! ```sh
//! target/before-line/target/release/examples/before_line /tmp/before.db 1000000
//! ```

use std::time::Instant;

use futures_util::{StreamExt, stream};
use lathe_core::validation::{FormValues, Interest};
use lathe_site::domain::Entry;
use lathe_site::store::{Location, Store};

/// New sign-ups measured (and confirmed), as in line.rs.
const SIGN_UPS: usize = 4000;
/// Requests at once, as in line.rs.
const AT_ONCE: usize = 10;
/// Rounds of confirmations, as in line.rs (the median round is printed): the same size
/// of round, so that the two compare.
const ROUNDS: usize = 5;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(location), Some(entries)) = (args.next(), args.next()) else {
        panic!("usage: before_line LOCATION ENTRIES");
    };
    let entries: u64 = entries.parse().expect("ENTRIES is a number");
    let location: Location = location.parse().expect("a SQLite file or postgres:// URL");
    let store = Store::open(&location).await.expect("the database opens");
    fill(&location, entries).await;

    let started = Instant::now();
    stream::iter(0..SIGN_UPS)
        .for_each_concurrent(AT_ONCE, |n| {
            let store = &store;
            async move {
                let values = FormValues {
                    name: "Bench".into(),
                    email: format!("plain{n}@example.org"),
                    company: String::new(),
                    role: String::new(),
                    message: "Measured.".into(),
                    interest: Interest::Developer,
                };
                let entry = Entry::new(values, "bench".into(), lathe_site::now_ms());
                store
                    .sign_up(&entry, true, None)
                    .await
                    .expect("stored")
                    .expect("no proof to spend");
            }
        })
        .await;
    let sign_ups = SIGN_UPS as f64 / started.elapsed().as_secs_f64();

    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    let links: Vec<(String, String)> = sqlx::query_as(
        "SELECT id, confirm_nonce FROM waitlist WHERE email_key LIKE 'plain%' AND confirm_nonce IS NOT NULL",
    )
    .fetch_all(&pool)
    .await
    .expect("the links");
    pool.close().await;
    assert_eq!(links.len(), SIGN_UPS, "a link each");
    let mut rates = Vec::with_capacity(ROUNDS);
    for round in links.chunks(SIGN_UPS / ROUNDS) {
        let started = Instant::now();
        stream::iter(round)
            .for_each_concurrent(AT_ONCE, |(id, nonce)| {
                let store = &store;
                async move {
                    store
                        .confirm(id, nonce, lathe_site::now_ms())
                        .await
                        .expect("confirmed");
                }
            })
            .await;
        rates.push(round.len() as f64 / started.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({
            "entries": entries,
            "signUpsPerSecond": sign_ups,
            "plainPerSecond": rates[rates.len() / 2],
        })
    );
    store.close().await;
}

/// Writes `entries` confirmed entries straight into the database, as line.rs does,
/// without the columns the line added.
async fn fill(location: &Location, entries: u64) {
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    sqlx::query(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {entries})
         INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
             privacy_notice, created_at, id, status, confirmed_at, manage_nonce,
             last_interaction_at)
         SELECT 'p' || i || '@example.com', 'p' || i || '@example.com', 'Person ' || i,
             '', '', 'general', '', 'bench', 1795000000000 + i, 'id' || i, 'confirmed',
             1795000000000 + i, 'nonce' || i, 1795000000000 + i
         FROM n"
    ))
    .execute(&pool)
    .await
    .expect("the list is filled");
    if location.url.starts_with("postgres") {
        // As line.rs: analyzed, vacuumed like a table autovacuum has been through, then
        // checkpointed, so that no checkpoint the fill set off runs during the measurements.
        sqlx::query("VACUUM ANALYZE")
            .execute(&pool)
            .await
            .expect("vacuumed");
        sqlx::query("CHECKPOINT")
            .execute(&pool)
            .await
            .expect("checkpointed");
    }
    pool.close().await;
}
