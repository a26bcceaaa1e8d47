//! The sign-up path under faults and abuse, the application in-process on real
//! databases: a full database and a full disk, a growing write-ahead log, a PostgreSQL
//! restart under load, idle and half-sent requests, control characters, and where a
//! post comes from. The promise under test: every 2xx is a committed row. (What needs
//! a process of its own, kill -9 and signals among it, is in `tests/process`.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use lathe_site::store::{Location, WAL_SIZE_LIMIT};
use lathe_site_testkit::{
    Loading, Postgres, Smtp, held_for, json, load, post, post_to, post_with, send_to, sign_up,
    sign_up_with, sqlite,
};

use crate::helpers::{TestApp, collecting, confirming_without_mail, run, stored, unlimited};

fn emails(location: &Location) -> BTreeSet<String> {
    stored(location).into_iter().map(|e| e.email).collect()
}

/// A sign-up with a message of `size` bytes.
fn sign_up_sized(email: &str, size: usize) -> String {
    sign_up_with(email, "message", &"m".repeat(size))
}

/// 150 sign-ups of 20 KB (3 MB) into a store that fills up before: every 201 is a row,
/// every other answer a 503, and the server still serves.
fn every_acknowledged_sign_up_is_a_row(location: &Location) {
    let app = TestApp::collecting(location, unlimited());
    let address = app.address;
    let mut acknowledged = BTreeSet::new();
    let mut refused = 0;
    for n in 0..150 {
        let email = format!("full{n}@example.com");
        let reply = post(address, &sign_up_sized(&email, 20_000));
        match reply.status {
            201 => {
                acknowledged.insert(email);
            }
            503 => refused += 1,
            other => panic!("sign-up {n}: {other}"),
        }
    }
    assert_eq!(
        emails(location),
        acknowledged,
        "every 201, and only those, stored"
    );
    assert!(
        refused > 0,
        "the store never filled up: the test proves nothing"
    );
    assert_eq!(send_to(address, "GET / HTTP/1.1\r\nHost: x").status, 200);
}

#[test]
fn a_full_sqlite_database_answers_503_and_every_201_is_a_row() {
    let location = sqlite();
    // 100 pages of 4 KiB: room for about 15 sign-ups of 20 KB.
    every_acknowledged_sign_up_is_a_row(&location.clone().full_at(100));
}

/// Unmounts a test's small disk.
struct Unmount(PathBuf);
impl Drop for Unmount {
    fn drop(&mut self) {
        // Lazily: the in-process server may still hold the database open.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Runs `test` with a 2 MiB tmpfs mounted at a new folder, as root; says so and skips
/// where mounting is not allowed.
fn on_a_small_disk(test: impl FnOnce(&Path)) {
    let dir = std::env::temp_dir().join(format!("lathe-full-disk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mounted = Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            "size=2m",
            "tmpfs",
            dir.to_str().unwrap(),
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!(
            "SKIPPED: a real full disk needs root (mount -t tmpfs); the max_page_count test covers it"
        );
        return;
    }
    let _unmount = Unmount(dir.clone());
    test(&dir);
}

#[test]
fn on_a_full_disk_every_201_is_a_row() {
    on_a_small_disk(|dir| {
        let location: Location = dir
            .join("waitlist.db")
            .display()
            .to_string()
            .parse()
            .unwrap();
        every_acknowledged_sign_up_is_a_row(&location);
    });
}

#[test]
fn the_write_ahead_log_stays_bounded_while_serving() {
    let location = sqlite();
    let server = TestApp::collecting(&location, unlimited());
    let wal = PathBuf::from(format!("{}-wal", location.file().display()));
    let mut largest = 0;
    for n in 0..1500 {
        let reply = post(
            server.address,
            &sign_up_sized(&format!("w{n}@example.com"), 2000),
        );
        assert_eq!(reply.status, 201);
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    let bound = WAL_SIZE_LIMIT + 256 * 1024;
    assert!(
        largest <= bound,
        "the -wal file reached {largest} bytes, over {bound}"
    );
    assert!(largest > 0, "the database is in WAL mode");
}

#[test]
fn postgres_restarted_under_load_loses_no_acknowledged_sign_up() {
    let postgres = Postgres::start_durable();
    let server = TestApp::collecting(&postgres.location, unlimited());
    let loading = Loading::default();
    let acknowledged = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "t", 8, &loading));
        // Counted in sign-ups, not seconds: some before the restart, and some after it
        // (the server has found the database again).
        loading.until_more(200);
        postgres.restart();
        loading.until_more(200);
        loading.stop();
        loaded.join().unwrap()
    });
    let rows = emails(&postgres.location);
    let lost: Vec<_> = acknowledged.difference(&rows).collect();
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");
    // And it collects again once the database is back.
    let reply = post(server.address, &sign_up("after.restart@example.com"));
    assert_eq!(reply.status, 201);
}

/// Collecting into `location`, with a head to arrive within 1 s and a connection idle
/// for 2 s closed.
fn short_limits(location: &Location) -> TestApp {
    let mut config = collecting(location, unlimited());
    config.limits.header_timeout = Duration::from_secs(1);
    config.limits.idle_timeout = Duration::from_secs(2);
    TestApp::start(config)
}

#[test]
fn idle_and_half_sent_requests_are_closed_on_time() {
    let location = sqlite();
    let app = short_limits(&location);
    let address = app.address;
    for (what, bytes) in [
        ("an idle connection", &b""[..]),
        (
            "a half-sent header",
            b"GET / HTTP/1.1\r\nHost: x\r\nAccept: te",
        ),
    ] {
        let (took, said) = held_for(address, bytes);
        assert!(
            took >= Duration::from_millis(900) && took < Duration::from_secs(4),
            "{what}: closed after {took:?}"
        );
        assert!(!said.starts_with("HTTP/1.1 2"), "{what}: {said}");
    }
    // An HTTP/0.9-style request line: refused at once.
    let (took, said) = held_for(address, b"GET /assets/app-Ab12.js\r\n");
    assert!(said.starts_with("HTTP/1.1 400"), "{said:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    // A kept-alive connection, idle after its response.
    let (took, said) = held_for(address, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
    assert!(
        took < Duration::from_secs(4),
        "kept alive, idle, for {took:?}"
    );
    // A body shorter than its Content-Length: 408 once the body timeout passes.
    let bodyless = format!(
        "POST /api/waitlist HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: 500\r\n\r\n{{\"name\":"
    );
    let (took, said) = held_for(address, bodyless.as_bytes());
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    let too_slow = "the sign-up arrived too slowly: please try again";
    assert!(said.contains(too_slow), "{said}");
}

#[test]
fn a_link_whose_body_stalls_is_answered_408_as_a_sign_up_is() {
    let database = sqlite();
    let mut config = confirming_without_mail(&database);
    config.waitlist.as_mut().unwrap().settings.body_timeout = Duration::from_secs(1);
    let app = TestApp::start(config);
    for path in [
        "/api/waitlist",
        "/api/waitlist/confirm",
        "/api/waitlist/manage",
    ] {
        let stalled = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n{{",
            app.address
        );
        let (took, said) = held_for(app.address, stalled.as_bytes());
        assert!(said.starts_with("HTTP/1.1 408"), "{path}: {said}");
        assert!(took < Duration::from_secs(4), "{path}: {took:?}");
    }
    // Not stalled, whole: answered as ever.
    let whole = post_to(
        app.address,
        "/api/waitlist/confirm",
        &["Content-Type: application/json"],
        b"{\"token\":\"x\"}",
    );
    assert_eq!(whole.status, 400);
}

fn control_characters_are_refused_with_the_forms_message(location: &Location) {
    let app = TestApp::collecting(location, unlimited());
    let address = app.address;
    for (field, value) in [
        ("name", "Ada\u{0}"),
        ("email", "ada\u{0}@example.com"),
        ("email", "ada\u{200b}@example.com"),
        ("company", "\u{1b}[31mEngines"),
        ("role", "CTO\u{202e}"),
        ("message", "hi\u{0}"),
    ] {
        let reply = post(address, &sign_up_with("ada@example.com", field, value));
        assert_eq!(reply.status, 422, "{field}: {value:?}");
        let said = json(&reply);
        assert_eq!(said["errors"][0]["field"], field, "{field}");
        let message = said["errors"][0]["message"].as_str().unwrap();
        let expected = if field == "email" {
            "Please enter a valid email address"
        } else {
            "Please remove the invisible or control characters"
        };
        assert_eq!(message, expected, "{field}");
    }
    let notice = sign_up_with("ada@example.com", "privacyNotice", "2026\u{0}");
    assert_eq!(post(address, &notice).status, 400);
    let lines = sign_up_with("ada@example.com", "message", "line 1\nline 2\r\n\tindented");
    assert_eq!(post(address, &lines).status, 201, "line breaks are text");
    let [entry] = stored(location).try_into().unwrap();
    assert_eq!(entry.message, "line 1\nline 2\r\n\tindented");
}

#[test]
fn an_address_too_long_for_an_index_is_refused_not_a_5xx() {
    let postgres = Postgres::start();
    let app = TestApp::collecting(&postgres.location, unlimited());
    let address = app.address;
    let long = format!("{}@example.com", "a".repeat(3000));
    assert_eq!(post(address, &sign_up(&long)).status, 422);
}

#[test]
fn the_origin_check_compares_the_scheme_and_reads_the_referer() {
    let location = sqlite();
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
    let json = "Content-Type: application/json";
    let body = sign_up("ada@example.com");
    let try_with = |header: String| post_with(address, &[json, &header], body.as_bytes()).status;
    assert_eq!(
        try_with(format!("Origin: https://{address}")),
        403,
        "another scheme"
    );
    assert_eq!(try_with("Referer: https://evil.example/form".into()), 403);
    assert_eq!(try_with(format!("Referer: https://{address}/contact")), 403);
    assert_eq!(try_with(format!("Referer: http://{address}/contact")), 201);
    assert!(stored(&location).len() == 1);
}

lathe_site_testkit::on_both_databases!(control_characters_are_refused_with_the_forms_message);

/// The mail worker marks an email sent in one transaction: its outbox row, then its entry's
/// row (`Store::sent`). An erasure of that entry at the same moment (the owner's, the
/// manage page's, a one-click unsubscribe: two instances were seen answering one of eight
/// one-clicks 503) took the entry's row, then the outbox's: each waited for the other, and
/// PostgreSQL broke the deadlock by failing one. Here the worker's two statements are run
/// by hand with the erasure between them, on PostgreSQL, whose row locks make the order
/// matter: both must succeed.
#[test]
fn an_erasure_while_its_email_is_marked_sent_does_not_deadlock() {
    use lathe_site::domain::ErasedBy;
    let postgres = Postgres::start();
    let location = &postgres.location;
    let smtp = Smtp::start();
    let app = TestApp::confirming(location, &smtp);
    assert_eq!(post(app.address, &sign_up("eve@example.com")).status, 201);
    run(async {
        let store = lathe_site::store::Store::open(location).await.unwrap();
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        let key = "(SELECT email_key FROM waitlist WHERE email = 'eve@example.com')";
        let mut worker = pool.begin().await.unwrap();
        let marked = sqlx::query(&format!(
            "UPDATE outbox SET sent_at = 1 WHERE email_key = {key}"
        ))
        .execute(&mut *worker)
        .await
        .unwrap();
        assert_eq!(marked.rows_affected(), 1, "the confirmation email's row");
        let erasing = tokio::spawn(async move {
            store
                .erase("eve@example.com", ErasedBy::Owner, lathe_site::now_ms())
                .await
        });
        // The erasure has begun when it waits for a row the worker holds.
        let waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
        loop {
            let n: i64 = sqlx::query_scalar(waiting).fetch_one(&pool).await.unwrap();
            if n > 0 {
                break;
            }
            assert!(
                !erasing.is_finished(),
                "the erasure never waited for the worker"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let touched = sqlx::query(&format!(
            "UPDATE waitlist SET last_interaction_at = 2 WHERE email_key = {key}"
        ))
        .execute(&mut *worker)
        .await;
        assert!(
            touched.is_ok(),
            "the worker's second statement: {touched:?}"
        );
        worker.commit().await.unwrap();
        let erased = erasing.await.unwrap();
        assert!(matches!(erased, Ok(true)), "the erasure: {erased:?}");
    });
    assert_eq!(stored(location).len(), 0);
}
