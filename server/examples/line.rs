//! `make bench`'s line: the place in line and referrals at scale, through the server's own
//! store, on the database at LOCATION (a new SQLite file or an empty PostgreSQL database).
//! Fills it with ENTRIES confirmed entries standing in line (one in twenty credited with a
//! few referrals), its counts folded as the server's worker folds them, and measures,
//! printing one JSON object:
//!
//! - `placeP50Ms`, `placeP95Ms`: reading one entry's place and standing (what the manage
//!   page asks), for 300 entries at random;
//! - `plainPerSecond`, `creditingPerSecond`: confirmations of new sign-ups without a
//!   referrer, and of sign-ups through a share link (each credits its referrer, given by
//!   the server's worker alongside; a round lasts until its last credit is given), ten at
//!   once, in alternating rounds, on the same full line; `creditsSettledMs`: the longest
//!   a round's last credit took after its last confirmation;
//! - `signUpsPerSecond`, `referredSignUpsPerSecond`: the sign-ups before them, without and
//!   with a referral code, ten at once;
//! - `waveSeconds`: a wave of 10,000 invitations taken in place order;
//! - `fullSignUpsPerSecond`: sign-ups with everything on, ten at once, last (the median of
//!   five rounds): each with a proof of work to spend, its client's allowance (a client
//!   each), a referral code, its confirmation email queued, and a webhook receiver (its
//!   `entry.created` event); compared with pgbench's single INSERT by `make bench`.
//!
//! With `--round K` after them, on a database it has filled before, it measures one more
//! turn of each kind `make bench` compares with pgbench, between pgbench's own runs on
//! the same cluster: `fullSignUpsPerSecond` (sign-ups with everything on for [`TURN`], as
//! long as a pgbench run) and `creditingPerSecond` (sign-ups through a share link, not
//! measured, then their crediting confirmations for as long). Turn K's addresses, proofs
//! and clients are its own, so each turn signs up people new to the database.
//!
//! ```sh
//! cargo run --release -p lathe-site --example line -- /tmp/line.db 1000000
//! cargo run --release -p lathe-site --example line -- /tmp/line.db 1000000 --round 1
//! ```

use std::num::NonZeroU32;
use std::time::Instant;

use futures_util::{StreamExt, stream};
use lathe_core::validation::{FormValues, Interest};
use lathe_site::domain::{Entry, Letter};
use lathe_site::store::{Allowance, Backend, Location, Proof, Store};

/// New sign-ups of each kind measured (and confirmed).
const SIGN_UPS: usize = 4000;
/// Requests at once, as the other server benches send them.
const AT_ONCE: usize = 10;
/// Places read.
const READS: usize = 300;
/// Rounds the confirmations alternate in, and the sign-ups with everything on are measured
/// in (the median round of each kind is printed: this
/// machine's disk makes one round differ from the next by a third). Five of 800: a round
/// lasts longer than the worker's gathering (`credits::GATHER`), so that it gives credits
/// while the confirmations go on, as under steady traffic. In ten rounds of 400 (about
/// 60 ms on PostgreSQL) it never did: each round's credits were all given after its last
/// confirmation, and a round measured a burst and the wait for its batch.
const ROUNDS: usize = 5;
/// The wave's size.
const WAVE: u32 = 10_000;
/// How long a turn of `--round` signs up with everything on: as long as pgbench's runs
/// beside it (a round of [`SIGN_UPS`] lasts about a second, and one read from 1,700 to
/// 4,200 a second in five turns on the same database).
const TURN: std::time::Duration = std::time::Duration::from_secs(5);

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(location), Some(entries)) = (args.next(), args.next()) else {
        panic!("usage: line LOCATION ENTRIES");
    };
    let entries: u64 = entries.parse().expect("ENTRIES is a number");
    let location: Location = location.parse().expect("a SQLite file or postgres:// URL");
    let store = Store::open(&location).await.expect("the database opens");
    if let Some(flag) = args.next() {
        assert_eq!(flag, "--round", "usage: line LOCATION ENTRIES [--round K]");
        let round: usize = args
            .next()
            .and_then(|k| k.parse().ok())
            .expect("--round K, K a number from 1");
        one_more_round(&store, &location, entries, round).await;
        store.close().await;
        return;
    }
    make_line(&store, &location, entries).await;
    // The counts as the server's worker leaves them (it folds every minute).
    store.fold_counts().await.expect("the counts folded");

    let mut random = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: u64| {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random % below + 1
    };
    let mut took = Vec::with_capacity(READS);
    for _ in 0..READS {
        let id = format!("id{}", next(entries));
        let started = Instant::now();
        let standing = store.standing(&id).await.expect("a standing");
        took.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(
            standing.and_then(|s| s.place).is_some(),
            "{id} stands in line"
        );
    }
    took.sort_by(f64::total_cmp);
    let percentile = |p: f64| took[((took.len() as f64 * p) as usize).min(took.len() - 1)];

    let codes: Vec<String> = (0..SIGN_UPS)
        .map(|_| format!("code{:08}", next(entries)))
        .collect();
    let plain: Vec<Option<String>> = vec![None; SIGN_UPS];
    let referred: Vec<Option<String>> = codes.into_iter().map(Some).collect();
    let sign_ups = sign_up_all(&store, "plain", &plain).await;
    let referred_sign_ups = sign_up_all(&store, "friend", &referred).await;
    // The server's worker gives the credits as the confirmations make them due.
    let worker = tokio::spawn(lathe_site::waitlist::credits::run(store.clone()));
    let (plain_rate, crediting_rate, settled_ms) = confirmations(&store, &location).await;
    worker.abort();
    let credited = query_i64(&location, "SELECT COUNT(*) FROM credited_mailboxes").await;
    assert_eq!(
        usize::try_from(credited).ok(),
        Some(SIGN_UPS),
        "each friend credited once"
    );

    let letter = Letter::from_owner("Welcome\n\nIn you come, {name}.").expect("a letter");
    let started = Instant::now();
    let wave = store
        .invite(
            WAVE,
            None,
            &letter,
            NonZeroU32::MAX,
            lathe_site::now_ms(),
            false,
        )
        .await
        .expect("a wave");
    let wave_seconds = started.elapsed().as_secs_f64();
    assert_eq!(wave.entries.len(), WAVE as usize);
    let full_sign_ups = sign_up_everything(&store, entries).await;

    println!(
        "{}",
        serde_json::json!({
            "entries": entries,
            "placeP50Ms": percentile(0.5),
            "placeP95Ms": percentile(0.95),
            "signUpsPerSecond": sign_ups,
            "referredSignUpsPerSecond": referred_sign_ups,
            "plainPerSecond": plain_rate,
            "creditingPerSecond": crediting_rate,
            "creditsSettledMs": settled_ms,
            "waveSeconds": wave_seconds,
            "fullSignUpsPerSecond": full_sign_ups,
        })
    );
    store.close().await;
}

/// The line the bench measures: [`fill`], then as a live server would have it (its keys,
/// its counts spread, and on PostgreSQL vacuumed and checkpointed).
async fn make_line(store: &Store, location: &Location, entries: u64) {
    fill(location, entries).await;
    // The keys were written for 0 places a referral: setting 5 makes them again, as a
    // server started with another --places-per-referral does, with the line's counts.
    store.set_places(5).await.expect("the keys are made");
    // A live line's counts are spread over every stripe of every bucket: so here too.
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    sqlx::query(
        "WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 63)
         INSERT INTO line_counts (bucket, stripe, n)
         SELECT bucket, k, 0 FROM (SELECT DISTINCT bucket FROM line_counts) AS b, s",
    )
    .execute(&pool)
    .await
    .expect("the stripes are filled");
    if location.url.starts_with("postgres") {
        // A million rows rewritten leave as many dead versions in the index until
        // autovacuum has been by (minutes on a live server): the line as it stands then.
        sqlx::query("VACUUM ANALYZE")
            .execute(&pool)
            .await
            .expect("vacuumed");
        // The fill wrote about a gigabyte of WAL: without a checkpoint now, the ones it
        // sets off spread their writes over the measured phases, wherever they fall.
        sqlx::query("CHECKPOINT")
            .execute(&pool)
            .await
            .expect("checkpointed");
    }
    pool.close().await;
}

/// Round `round` of `--round` (see the module's doc), on the line filled before: prints its
/// sign-ups with everything on and its crediting confirmations, a second each.
async fn one_more_round(store: &Store, location: &Location, entries: u64, round: usize) {
    // Numbers after those of the full run's rounds (under [`TURN_NUMBERS`]), and of every
    // turn before this one.
    let first = round * TURN_NUMBERS;
    store.set_webhooks(true).await.expect("webhooks on");
    let started = Instant::now();
    let numbers = (first..first + TURN_NUMBERS).take_while(move |_| started.elapsed() < TURN);
    let signed_up = sign_up_everything_from(store, entries, numbers).await;
    let full = signed_up as f64 / started.elapsed().as_secs_f64();
    store.set_webhooks(false).await.expect("webhooks off");

    // Friends of entries spread over the line, more than a turn confirms here.
    let run = format!("round{round}-");
    let codes: Vec<Option<String>> = (0..4 * SIGN_UPS)
        .map(|n| {
            Some(format!(
                "code{:08}",
                (first + n) as u64 * 7919 % entries + 1
            ))
        })
        .collect();
    sign_up_all(store, &run, &codes).await;
    let friends = links(location, &run).await;
    let worker = tokio::spawn(lathe_site::waitlist::credits::run(store.clone()));
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    let (crediting, _) = crediting_round(store, &pool, friends, Some(TURN)).await;
    pool.close().await;
    worker.abort();
    println!(
        "{}",
        serde_json::json!({ "fullSignUpsPerSecond": full, "creditingPerSecond": crediting })
    );
}

/// Writes `entries` confirmed entries straight into the database, numbered 1, 2, ... in
/// order of confirmation, one in twenty with 1 to 7 credits, their keys made for 0
/// places a referral.
async fn fill(location: &Location, entries: u64) {
    let statements = [
        format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {entries})
             INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at, id, status, confirmed_at, manage_nonce,
                 last_interaction_at, referral_code, mailbox_hash)
             SELECT 'p' || i || '@example.com', 'p' || i || '@example.com', 'Person ' || i,
                 '', '', 'general', '', 'bench', 1795000000000 + i, 'id' || i, 'confirmed',
                 1795000000000 + i, 'nonce' || i, 1795000000000 + i,
                 'code' || SUBSTR(CAST(100000000 + i AS TEXT), 2), 'mailbox' || i
             FROM n"
        ),
        format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {entries})
             INSERT INTO standings (id, line_number, line_key, credits, neg_credits)
             SELECT 'id' || i, i, i, CASE WHEN i % 20 = 0 THEN 1 + i % 7 ELSE 0 END,
                 CASE WHEN i % 20 = 0 THEN -(1 + i % 7) ELSE 0 END
             FROM n"
        ),
        "DELETE FROM settings WHERE name = 'places_per_referral'".to_owned(),
        "INSERT INTO settings (name, value) VALUES ('places_per_referral', '0')".to_owned(),
    ];
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    for statement in statements {
        sqlx::query(&statement)
            .execute(&pool)
            .await
            .expect("the line is filled");
    }
    if location.url.starts_with("postgres") {
        sqlx::query("SELECT setval('line_numbers', $1)")
            .bind(i64::try_from(entries).expect("entries fit"))
            .fetch_all(&pool)
            .await
            .expect("the sequence follows");
        sqlx::query("ANALYZE")
            .execute(&pool)
            .await
            .expect("analyzed");
    }
    pool.close().await;
}

/// Signs up one entry for each of `codes` (addresses under `run`, each through the link
/// with its code, if any), [`AT_ONCE`] at a time: sign-ups per second.
async fn sign_up_all(store: &Store, run: &str, codes: &[Option<String>]) -> f64 {
    let started = Instant::now();
    stream::iter(codes.iter().enumerate())
        .for_each_concurrent(AT_ONCE, |(n, code)| async move {
            let values = FormValues {
                name: "Bench".into(),
                email: format!("{run}{n}@example.org"),
                company: String::new(),
                role: String::new(),
                message: "Measured.".into(),
                interest: Interest::Developer,
            };
            let entry = Entry::new(values, "bench".into(), lathe_site::now_ms());
            store
                .sign_up(&entry, true, None, code.as_deref(), None)
                .await
                .expect("stored")
                .expect("no proof to spend");
        })
        .await;
    codes.len() as f64 / started.elapsed().as_secs_f64()
}

/// Sign-ups per second with everything on (see the module's doc), [`AT_ONCE`] at a time,
/// each through the share link of one of the `entries` filled in: the median of
/// [`ROUNDS`] rounds of [`SIGN_UPS`]. One round lasts under a second on PostgreSQL, and
/// one alone read from 3,000 to 5,500 a second with the same code, run after run.
async fn sign_up_everything(store: &Store, entries: u64) -> f64 {
    store.set_webhooks(true).await.expect("webhooks on");
    let mut rates = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        let first = round * SIGN_UPS;
        let started = Instant::now();
        sign_up_everything_from(store, entries, first..first + SIGN_UPS).await;
        rates.push(SIGN_UPS as f64 / started.elapsed().as_secs_f64());
    }
    store.set_webhooks(false).await.expect("webhooks off");
    median(rates)
}

/// Numbers a turn of `--round` may take (and the first run's rounds stay under).
const TURN_NUMBERS: usize = 100_000;

/// Runs `work` on each of `items`, [`AT_ONCE`] at a time, each of the ten in a task of its
/// own, as the server serves ten connections: how many it ran. (One task driving all ten,
/// woken from the runtime's threads at each reply, took the bench's own process about a
/// fifth more CPU a sign-up; the rates, on the disk, differed less than turn to turn.)
async fn in_tasks<T, F, Fut>(items: impl Iterator<Item = T> + Send + 'static, work: F) -> usize
where
    T: Send + 'static,
    F: Fn(T) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let items = std::sync::Arc::new(std::sync::Mutex::new(items));
    let work = std::sync::Arc::new(work);
    let tasks: Vec<_> = (0..AT_ONCE)
        .map(|_| {
            let (items, work) = (items.clone(), work.clone());
            tokio::spawn(async move {
                let mut ran = 0;
                loop {
                    let item = items.lock().expect("not poisoned").next();
                    let Some(item) = item else { return ran };
                    work(item).await;
                    ran += 1;
                }
            })
        })
        .collect();
    let mut ran = 0;
    for task in tasks {
        ran += task.await.expect("no task panics");
    }
    ran
}

/// The sign-ups with everything on numbered `numbers`, [`AT_ONCE`] at a time: how many.
async fn sign_up_everything_from(
    store: &Store,
    entries: u64,
    numbers: impl Iterator<Item = usize> + Send + 'static,
) -> usize {
    let store = store.clone();
    in_tasks(numbers, move |n| {
        sign_up_everything_one(store.clone(), entries, n)
    })
    .await
}

/// Sign-up number `n` with everything on.
async fn sign_up_everything_one(store: Store, entries: u64, n: usize) {
    let per_minute = NonZeroU32::new(5).expect("five");
    let values = FormValues {
        name: "Bench".into(),
        email: format!("everything{n}@example.org"),
        company: String::new(),
        role: String::new(),
        message: "Measured.".into(),
        interest: Interest::Developer,
    };
    let now = lathe_site::now_ms();
    let entry = Entry::new(values, "bench".into(), now);
    let signature = format!("signature{n}");
    let client = format!("10.{}.{}.{}", n >> 16, (n >> 8) & 255, n & 255);
    let code = format!("code{:08}", n as u64 % entries + 1);
    let signed_up = store
        .sign_up(
            &entry,
            true,
            Some(Proof {
                signature: &signature,
                expires_at: now + 60_000,
            }),
            Some(&code),
            // On SQLite the server keeps the allowance in memory.
            (store.backend() == Backend::Postgres).then_some(Allowance {
                client: &client,
                per_minute,
                now_us: lathe_site::now_us(),
            }),
        )
        .await
        .expect("stored")
        .expect("allowed, and a proof of its own");
    assert_eq!(signed_up.referral, Some(Ok(())), "{code} refers it");
}

/// Confirmations per second of the entries under `plain` and of those under `friend`
/// (each crediting its referrer), the median round of each, in alternating rounds, so
/// that neither kind has the database as it was first (on PostgreSQL the first of two
/// runs was a third faster, whichever it was). The server's worker gives the credits alongside; a crediting round
/// lasts until its last credit is given (what the worker had not yet given is given at
/// once, as its next batch would, without its wait): the credits' work is all counted.
/// Also the longest a round's last credit took after its last confirmation, in ms.
async fn confirmations(store: &Store, location: &Location) -> (f64, f64, f64) {
    let (plain, friends) = (
        links(location, "plain").await,
        links(location, "friend").await,
    );
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    let (mut plain_rates, mut crediting_rates, mut settled_ms) = (vec![], vec![], 0.0_f64);
    let round = SIGN_UPS / ROUNDS;
    for (plain, friends) in plain.chunks(round).zip(friends.chunks(round)) {
        plain_rates.push(plain.len() as f64 / confirm_all(store, plain).await);
        let (rate, settled) = crediting_round(store, &pool, friends.to_vec(), None).await;
        crediting_rates.push(rate);
        settled_ms = settled_ms.max(settled);
    }
    pool.close().await;
    (median(plain_rates), median(crediting_rates), settled_ms)
}

/// Confirms `friends` (each crediting its referrer, the server's worker running),
/// [`AT_ONCE`] at a time, and waits until the last credit is given: all of them, driven as
/// the bench of main before the line drives its confirmations; or, for a `turn`, those
/// it has time for, each of the ten in a task of its own ([`in_tasks`]). Confirmations a
/// second, and the ms the last credit took after the last confirmation.
async fn crediting_round(
    store: &Store,
    pool: &sqlx::AnyPool,
    friends: Vec<(String, String)>,
    turn: Option<std::time::Duration>,
) -> (f64, f64) {
    let started = Instant::now();
    let mut count = friends.len();
    if let Some(turn) = turn {
        let store = store.clone();
        let friends = friends
            .into_iter()
            .take_while(move |_| started.elapsed() < turn);
        count = in_tasks(friends, move |(id, nonce)| {
            let store = store.clone();
            async move {
                store
                    .confirm(&id, &nonce, lathe_site::now_ms())
                    .await
                    .expect("confirmed");
            }
        })
        .await;
    } else {
        confirm_all(store, &friends).await;
    }
    let settling = Instant::now();
    while store
        .credit_due(lathe_site::now_ms())
        .await
        .expect("credits given")
        .friends
        > 0
    {}
    // And the worker's batch under way, if one is (on PostgreSQL it took some).
    while sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM credits_due")
        .fetch_one(pool)
        .await
        .expect("a count")
        > 0
    {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    (
        count as f64 / started.elapsed().as_secs_f64(),
        settling.elapsed().as_secs_f64() * 1000.0,
    )
}

/// The median of `figures`.
fn median(mut figures: Vec<f64>) -> f64 {
    figures.sort_by(f64::total_cmp);
    figures[figures.len() / 2]
}

/// Every confirmation link (id and nonce) of the entries under `run`.
async fn links(location: &Location, run: &str) -> Vec<(String, String)> {
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    let links = sqlx::query_as(
        "SELECT id, confirm_nonce FROM waitlist WHERE email_key LIKE $1 AND confirm_nonce IS NOT NULL",
    )
    .bind(format!("{run}%"))
    .fetch_all(&pool)
    .await
    .expect("the links");
    pool.close().await;
    links
}

/// Confirms every entry of `links`, [`AT_ONCE`] at a time: the seconds it took.
async fn confirm_all(store: &Store, links: &[(String, String)]) -> f64 {
    let started = Instant::now();
    stream::iter(links)
        .for_each_concurrent(AT_ONCE, |(id, nonce)| async move {
            store
                .confirm(id, nonce, lathe_site::now_ms())
                .await
                .expect("confirmed");
        })
        .await;
    started.elapsed().as_secs_f64()
}

async fn query_i64(location: &Location, query: &str) -> i64 {
    let pool = sqlx::AnyPool::connect(&location.url).await.expect("a pool");
    let n = sqlx::query_scalar(query)
        .fetch_one(&pool)
        .await
        .expect("a count");
    pool.close().await;
    n
}
