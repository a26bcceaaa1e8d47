//! The line's counts folded (`Store::fold_counts`), on both databases: every bucket
//! behind the last two ends with one row, its count the same, and every place and the
//! line's length as before; a second fold finds nothing to do. On PostgreSQL a fold takes
//! only rows no transaction holds: a row held is left, never waited for, and folded by
//! the next run once it is free.

use std::collections::BTreeMap;
use std::time::Duration;

use lathe_site::store::{Confirmed, Location, Store};
use lathe_site_testkit::Postgres;
use sqlx::Connection as _;

use crate::helpers::{Links, entry, links, run};

/// Places a credit is worth here: each credit moves its referrer back by more than a
/// bucket's 4,096 keys, into buckets far behind the last two.
const PLACES: u32 = 5000;

/// Four referrers, each with three friends who confirm one at a time, each friend's
/// credit given by a transaction of its own (which counts on a row of its bucket at
/// random): the referrers pass through buckets -2 and -3 to -4, and the line's count rows
/// of those buckets are many. Every id, referrers first.
/// `email` signed up through `code`'s link, if given: its links.
async fn signed_up(store: &Store, pool: &sqlx::AnyPool, email: &str, code: Option<&str>) -> Links {
    store
        .sign_up(&entry(email), true, None, code, None)
        .await
        .unwrap()
        .unwrap();
    links(pool, email).await
}

/// Confirms the entry of `links` at `now`.
async fn confirm(store: &Store, links: &Links, now: i64) {
    let confirmed = store.confirm(&links.id, &links.confirm_nonce, now);
    assert_eq!(confirmed.await.unwrap(), Confirmed::Now);
}

async fn a_line_over_buckets(store: &Store, pool: &sqlx::AnyPool) -> Vec<String> {
    store.set_places(PLACES).await.unwrap();
    let now = lathe_site::now_ms();
    let mut ids = Vec::new();
    let mut codes = Vec::new();
    for r in 0..4 {
        let referrer = signed_up(store, pool, &format!("referrer{r}@example.com"), None).await;
        confirm(store, &referrer, now).await;
        ids.push(referrer.id);
        codes.push(referrer.referral_code);
    }
    for f in 0..3 {
        for (r, code) in codes.iter().enumerate() {
            let email = format!("friend{f}.{r}@example.com");
            let friend = signed_up(store, pool, &email, Some(code)).await;
            confirm(store, &friend, now).await;
            assert_eq!(store.credit_due(now).await.unwrap().credited, 1);
            ids.push(friend.id);
        }
    }
    ids
}

/// The store and a pool of its own on `database`, with [`a_line_over_buckets`] made.
async fn opened(database: &Location) -> (Store, sqlx::AnyPool, Vec<String>) {
    let store = Store::open(database).await.unwrap();
    let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
    let ids = a_line_over_buckets(&store, &pool).await;
    (store, pool, ids)
}

/// Each bucket's rows of `line_counts`: `(stripe, n)`, in order.
async fn rows(pool: &sqlx::AnyPool) -> BTreeMap<i64, Vec<(i64, i64)>> {
    let all: Vec<(i64, i64, i64)> =
        sqlx::query_as("SELECT bucket, stripe, n FROM line_counts ORDER BY bucket, stripe")
            .fetch_all(pool)
            .await
            .unwrap();
    let mut buckets: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    for (bucket, stripe, n) in all {
        buckets.entry(bucket).or_default().push((stripe, n));
    }
    buckets
}

/// Each bucket's count.
fn counts(rows: &BTreeMap<i64, Vec<(i64, i64)>>) -> BTreeMap<i64, i64> {
    rows.iter()
        .map(|(bucket, rows)| (*bucket, rows.iter().map(|(_, n)| n).sum()))
        .collect()
}

/// Every id's place and the line's length, as the manage page reads them.
async fn places(store: &Store, ids: &[String]) -> Vec<(Option<i64>, i64)> {
    let mut places = Vec::new();
    for id in ids {
        let standing = store.standing(id).await.unwrap().unwrap();
        places.push((standing.place, standing.of));
    }
    places
}

fn folding_keeps_every_count_and_place(database: &Location) {
    run(async {
        let (store, pool, ids) = opened(database).await;
        let before = rows(&pool).await;
        let places_before = places(&store, &ids).await;
        assert_eq!(
            before.keys().copied().collect::<Vec<_>>(),
            [-4, -3, -2, 0],
            "{before:?}"
        );
        let behind = |rows: &BTreeMap<i64, Vec<(i64, i64)>>| {
            rows.range(..-1).map(|(_, r)| r.len()).sum::<usize>()
        };
        assert!(
            behind(&before) > 3,
            "every bucket behind had one row: the fold would be tested on nothing: {before:?}"
        );
        assert_eq!(
            places_before
                .iter()
                .filter(|(place, _)| place.is_some())
                .count(),
            16,
            "{places_before:?}"
        );

        let removed = store.fold_counts().await.unwrap();
        let after = rows(&pool).await;
        assert_eq!(removed, u64::try_from(behind(&before) - 3).unwrap());
        assert_eq!(counts(&after), counts(&before), "each bucket's count");
        for (bucket, rows) in after.range(..-1) {
            assert_eq!(rows.len(), 1, "bucket {bucket}: {rows:?}");
        }
        assert_eq!(
            after.range(-1..).collect::<Vec<_>>(),
            before.range(-1..).collect::<Vec<_>>(),
            "the last two buckets as they were"
        );
        assert_eq!(places(&store, &ids).await, places_before);
        assert_eq!(
            store.fold_counts().await.unwrap(),
            0,
            "nothing left to fold"
        );
        pool.close().await;
        store.close().await;
    });
}

lathe_site_testkit::on_both_databases!(folding_keeps_every_count_and_place);

/// On PostgreSQL a count row held by a transaction is left by the fold, which does not
/// wait for it (were it to wait, it would never end: the row is released only after it),
/// and is folded by the next run once the transaction ends.
#[test]
fn on_postgresql_a_fold_leaves_a_held_row_and_never_waits() {
    let postgres = Postgres::start();
    run(async {
        let (store, pool, _) = opened(&postgres.location).await;
        let before = rows(&pool).await;
        let mut holder = sqlx::AnyConnection::connect(&postgres.location.url)
            .await
            .unwrap();
        let mut held = holder.begin().await.unwrap();
        // The first of bucket -2's rows: the one its fold would keep.
        let (held_stripe,): (i64,) = sqlx::query_as(
            "SELECT stripe FROM line_counts WHERE bucket = -2 ORDER BY stripe LIMIT 1 FOR UPDATE",
        )
        .fetch_one(&mut *held)
        .await
        .unwrap();

        let folding = tokio::time::timeout(Duration::from_secs(60), store.fold_counts());
        folding
            .await
            .expect("the fold waited for a held row")
            .unwrap();
        let after = rows(&pool).await;
        assert_eq!(counts(&after), counts(&before), "each bucket's count");
        let minus_two = &after[&-2];
        assert_eq!(
            minus_two.len(),
            before[&-2].len().min(2),
            "the held row and one for the rest: {minus_two:?}"
        );
        assert_eq!(minus_two[0], before[&-2][0], "the held row untouched");
        assert_eq!(minus_two[0].0, held_stripe);
        for bucket in [-4, -3] {
            assert_eq!(after[&bucket].len(), 1, "bucket {bucket}: {after:?}");
        }

        held.commit().await.unwrap();
        store.fold_counts().await.unwrap();
        let last = rows(&pool).await;
        assert_eq!(last[&-2].len(), 1, "{last:?}");
        assert_eq!(counts(&last), counts(&before));
        pool.close().await;
        store.close().await;
    });
}

/// On PostgreSQL folds running beside credits that move referrers between the buckets
/// being folded (ten friends a referrer confirming, a credit run after each, and folds
/// one after the other until they end): no transaction fails, and each bucket's count is
/// the number of keys in it.
#[test]
fn on_postgresql_folds_beside_credits_keep_the_counts() {
    let postgres = Postgres::start();
    run(async {
        let (store, pool, _) = opened(&postgres.location).await;
        let codes: Vec<String> =
            sqlx::query_scalar("SELECT referral_code FROM waitlist WHERE email LIKE 'referrer%'")
                .fetch_all(&pool)
                .await
                .unwrap();
        let mut friends = Vec::new();
        for (r, code) in codes.iter().enumerate() {
            for f in 0..10 {
                let email = format!("racing{f}.{r}@example.com");
                friends.push(signed_up(&store, &pool, &email, Some(code)).await);
            }
        }
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let confirming = {
            let (store, done) = (store.clone(), done.clone());
            tokio::spawn(async move {
                let now = lathe_site::now_ms();
                for friend in friends {
                    confirm(&store, &friend, now).await;
                    store.credit_due(now).await.unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            })
        };
        let mut folds = 0;
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            store.fold_counts().await.unwrap();
            folds += 1;
        }
        confirming.await.unwrap();
        assert!(folds > 1, "the folds ran beside the credits: {folds}");
        while store
            .credit_due(lathe_site::now_ms())
            .await
            .unwrap()
            .friends
            > 0
        {}
        store.fold_counts().await.unwrap();

        let keys: Vec<i64> =
            sqlx::query_scalar("SELECT line_key FROM standings WHERE line_key IS NOT NULL")
                .fetch_all(&pool)
                .await
                .unwrap();
        let mut truth: BTreeMap<i64, i64> = BTreeMap::new();
        for key in keys {
            *truth.entry(key.div_euclid(4096)).or_default() += 1;
        }
        let mut counted = counts(&rows(&pool).await);
        counted.retain(|_, n| *n != 0);
        assert_eq!(counted, truth);
        assert_eq!(truth.values().sum::<i64>(), 56, "every entry in line");
        pool.close().await;
        store.close().await;
    });
}
