//! The sign-up path under faults and abuse, against the real server binary (or the library
//! in-process where a setting must be given) and real databases: a full database and a
//! full disk, a growing write-ahead log, kill -9 and a PostgreSQL restart under load, idle
//! and half-sent requests, descriptor exhaustion, SIGTERM with requests half sent, a
//! database that is down or unusable, a real nginx in front, and a very large export.
//! The promise under test: every 2xx is a committed row.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use lathe_site::Site;
use lathe_site::connection::Limits;
use lathe_site::store::{Entry, Location, Store, WAL_SIZE_LIMIT};
use lathe_site::waitlist::{Settings, Waitlist};

mod common;
use common::{
    Postgres, Server, fixture, free_port, load, post, post_with, send_bytes, sign_up, sign_up_with,
    sqlite,
};

fn unlimited() -> Settings {
    Settings {
        per_minute: None,
        ..Settings::default()
    }
}

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Runtime::new().unwrap().block_on(future)
}

/// What `location` holds, read through a connection of its own.
fn stored(location: &Location) -> Vec<Entry> {
    run(async {
        let store = Store::open(location).await.unwrap();
        let entries = store.entries().try_collect().await.unwrap();
        store.close().await;
        entries
    })
}

fn emails(location: &Location) -> BTreeSet<String> {
    stored(location).into_iter().map(|e| e.email).collect()
}

fn sqlite_file(location: &Location) -> PathBuf {
    PathBuf::from(location.display())
}

/// A sign-up with a message of `size` bytes.
fn sign_up_sized(email: &str, size: usize) -> String {
    sign_up_with(email, "message", &"m".repeat(size))
}

// --- The binary ------------------------------------------------------------------------

/// The site, collecting into `store`, in-process.
fn collecting(store: impl Future<Output = Store> + Send + 'static, limits: Limits) -> SocketAddr {
    common::start_limited(
        async move {
            Site::load(fixture(), false)
                .unwrap()
                .with_waitlist(Waitlist::new(store.await, unlimited()))
        },
        limits,
    )
}

/// The site, collecting into the database at `location`, in-process.
fn collecting_into(location: &Location, limits: Limits) -> SocketAddr {
    let opened = location.clone();
    collecting(async move { Store::open(&opened).await.unwrap() }, limits)
}

// --- 1. A full database, a full disk ---------------------------------------------------

/// 150 sign-ups of 20 KB (3 MB) into a store that fills up before: every 201 is a row,
/// every other answer a 503, and the server still serves.
fn every_acknowledged_sign_up_is_a_row(
    location: &Location,
    store: impl Future<Output = Store> + Send + 'static,
) {
    let address = collecting(store, Limits::default());
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
    assert_eq!(
        common::send_to(address, "GET / HTTP/1.1\r\nHost: x").status,
        200
    );
}

#[test]
fn a_full_sqlite_database_answers_503_and_every_201_is_a_row() {
    let location = sqlite();
    let opened = location.clone();
    // 100 pages of 4 KiB: room for about 15 sign-ups of 20 KB.
    every_acknowledged_sign_up_is_a_row(&location, async move {
        Store::open_full_at(&opened, 100).await.unwrap()
    });
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
        let opened = location.clone();
        every_acknowledged_sign_up_is_a_row(&location, async move {
            Store::open(&opened).await.unwrap()
        });
    });
}

// --- 2. The write-ahead log stays bounded ----------------------------------------------

#[test]
fn the_write_ahead_log_stays_bounded_while_serving() {
    let location = sqlite();
    let server = Server::start(Some(&location), &[]);
    let wal = PathBuf::from(format!("{}-wal", sqlite_file(&location).display()));
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

// --- A crash, a restart ----------------------------------------------------------------

fn survives_kill_9(location: &Location) {
    let server = Server::start(Some(location), &[]);
    let stop = AtomicBool::new(false);
    let acknowledged = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "t", 8, &stop));
        std::thread::sleep(Duration::from_millis(1500));
        server.signal("KILL");
        stop.store(true, Ordering::Relaxed);
        loaded.join().unwrap()
    });
    drop(server);
    assert!(
        acknowledged.len() > 20,
        "too little load: {}",
        acknowledged.len()
    );
    let rows = emails(location);
    let lost: Vec<_> = acknowledged.difference(&rows).collect();
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");
}

#[test]
fn sqlite_kill_9_under_load_loses_no_acknowledged_sign_up() {
    survives_kill_9(&sqlite());
}

#[test]
fn postgres_kill_9_under_load_loses_no_acknowledged_sign_up() {
    let postgres = Postgres::start_durable();
    survives_kill_9(&postgres.location);
}

#[test]
fn postgres_restarted_under_load_loses_no_acknowledged_sign_up() {
    let postgres = Postgres::start_durable();
    let server = Server::start(Some(&postgres.location), &[]);
    let stop = AtomicBool::new(false);
    let acknowledged = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "t", 8, &stop));
        std::thread::sleep(Duration::from_secs(1));
        postgres.restart();
        std::thread::sleep(Duration::from_millis(2500));
        stop.store(true, Ordering::Relaxed);
        loaded.join().unwrap()
    });
    let rows = emails(&postgres.location);
    let lost: Vec<_> = acknowledged.difference(&rows).collect();
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");
    // And it collects again once the database is back.
    let reply = post(server.address, &sign_up("after.restart@example.com"));
    assert_eq!(reply.status, 201);
}

// --- 10. A database that is down, or unusable -------------------------------------------

#[test]
fn a_database_that_is_down_is_refused_at_once_with_its_reason() {
    let postgres = Postgres::start();
    let server = Server::start(Some(&postgres.location), &[]);
    assert_eq!(
        post(server.address, &sign_up("before@example.com")).status,
        201
    );
    postgres.stop();
    for n in 0..5 {
        let started = Instant::now();
        let reply = post(server.address, &sign_up(&format!("down{n}@example.com")));
        assert_eq!(reply.status, 503, "sign-up {n}");
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "sign-up {n} took {took:?}");
    }
    let said = server.stderr.lock().unwrap().clone();
    assert!(
        said.contains("could not store a sign-up: the database cannot be reached: ")
            && said.to_lowercase().contains("refused"),
        "the log says why: {said}"
    );
    postgres.resume();
    let back = Instant::now();
    loop {
        let reply = post(server.address, &sign_up("after@example.com"));
        if reply.status == 201 {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(10),
            "never back: {}",
            reply.status
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn an_unusable_database_is_named_at_start_at_once() {
    let location = sqlite();
    std::fs::write(
        sqlite_file(&location),
        "not a database, just text ".repeat(200),
    )
    .unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args([
            "serve",
            "--dist",
            fixture().to_str().unwrap(),
            "--port",
            "0",
        ])
        .args(["--database", &location.display()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("file is not a database"), "{said}");

    let postgres = Postgres::start();
    postgres.stop();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args([
            "waitlist",
            "--database",
            &postgres.location.display(),
            "count",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let said = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert!(said.contains("refused"), "{said}");
}

// --- 3. Timeouts, a cap on connections, a shutdown deadline -----------------------------

fn short_limits() -> Limits {
    Limits {
        header_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(2),
        ..Limits::default()
    }
}

/// Sends `bytes` and reads until the server closes; how long that took and what it said.
fn held_for(address: SocketAddr, bytes: &[u8]) -> (Duration, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    stream.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    (
        started.elapsed(),
        String::from_utf8_lossy(&raw).into_owned(),
    )
}

#[test]
fn idle_and_half_sent_requests_are_closed_on_time() {
    let location = sqlite();
    let address = collecting_into(&location, short_limits());
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
    assert!(
        said.contains("the sign-up arrived too slowly: please try again"),
        "{said}"
    );
}

#[test]
fn the_body_timeout_is_a_flag_and_answers_408() {
    let location = sqlite();
    let server = Server::start(Some(&location), &["--body-timeout", "1s"]);
    let request = format!(
        "POST /api/waitlist HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{",
        server.address
    );
    let (took, said) = held_for(server.address, request.as_bytes());
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(took < Duration::from_secs(4), "{took:?}");
}

#[test]
fn idle_connections_up_to_the_descriptor_limit_never_lock_visitors_out() {
    let prlimit = Command::new("prlimit").arg("--version").output();
    assert!(prlimit.is_ok(), "prlimit (util-linux) is needed");
    let mut command = Command::new("prlimit");
    command.args(["--nofile=256", "--", env!("CARGO_BIN_EXE_lathe-site")]);
    let server = Server::start_with(command, None, &["--header-timeout", "2s"]);
    let idle: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(server.address).ok())
        .collect();
    assert!(idle.len() >= 256, "only {} connections made", idle.len());
    let started = Instant::now();
    let reply = send_bytes(
        server.address,
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(reply.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    drop(idle);
}

#[test]
fn sigterm_ends_the_server_by_its_deadline_even_with_a_half_sent_request() {
    let server = Server::start(
        None,
        &["--header-timeout", "60s", "--shutdown-timeout", "1s"],
    );
    let mut half = TcpStream::connect(server.address).unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nAccept: te")
        .unwrap();
    // A request under way at the stop is still answered.
    let mut whole = TcpStream::connect(server.address).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut server = server;
    server.signal("TERM");
    let started = Instant::now();
    let status = server.exited_within(Duration::from_secs(6));
    assert!(
        status.is_some_and(|s| s.success()),
        "no clean exit within 6 s of SIGTERM ({status:?})"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    let _ = whole.write_all(b"x");
    drop(half);
}

// --- 4. Behind the real nginx -----------------------------------------------------------

#[test]
fn behind_nginx_a_client_cannot_pick_its_own_allowance() {
    let location = sqlite();
    let backend = free_port();
    let mut lathe = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    lathe
        .args(["serve", "--dist", fixture().to_str().unwrap()])
        .args([
            "--port",
            &backend.to_string(),
            "--database",
            &location.display(),
        ])
        .args(["--behind-proxy", "--sign-ups-per-minute", "2"])
        .stdout(Stdio::null());
    let _lathe = Running(lathe.spawn().unwrap());
    let front = free_port();
    let nginx = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/nginx/run-local.sh"
    ))
    .args([&front.to_string(), fixture().to_str().unwrap()])
    .env("LATHE_UPSTREAM", format!("127.0.0.1:{backend}"))
    .env("LATHE_SITE", env!("CARGO_BIN_EXE_lathe-site"))
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let _nginx = Running(nginx);
    let front: SocketAddr = ([127, 0, 0, 1], front).into();
    let started = Instant::now();
    while TcpStream::connect(front).is_err()
        || TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], backend))).is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nginx or lathe-site did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let post_as = |forged: &str, email: &str| {
        post_with(
            front,
            &[
                "Content-Type: application/json",
                &format!("Origin: http://{front}"),
                &format!("X-Forwarded-For: {forged}"),
                "X-Forwarded-For: 10.0.0.1",
            ],
            sign_up(email).as_bytes(),
        )
    };
    let statuses: Vec<u16> = (0..6)
        .map(|n| post_as(&format!("203.0.113.{n}"), &format!("n{n}@example.com")).status)
        .collect();
    assert_eq!(
        statuses,
        [201, 201, 429, 429, 429, 429],
        "one allowance, whatever is forged"
    );
    // The page's own origin passes through nginx; another's does not.
    let other = post_with(
        front,
        &[
            "Content-Type: application/json",
            "Origin: https://evil.example",
        ],
        sign_up("evil@example.com").as_bytes(),
    );
    assert_eq!(other.status, 403);
    // The requests of the pages the emails link to reach lathe-site too (which, without
    // --smtp, says it does not confirm addresses), and nothing else under /api does.
    for action in ["confirm", "resend", "manage", "erase"] {
        let body = br#"{"token":"x"}"#;
        let request = format!(
            "POST /api/waitlist/{action} HTTP/1.1\r\nHost: {front}\r\nOrigin: http://{front}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let reply = common::send_bytes(front, &[request.as_bytes(), body].concat());
        assert_eq!(
            (reply.status, common::error(&reply)),
            (
                404,
                "this server does not confirm addresses: start it with --smtp".into()
            ),
            "{action}"
        );
    }
    let elsewhere = common::send_to(front, "POST /api/waitlist/other HTTP/1.1\r\nHost: x");
    assert_eq!(elsewhere.status, 404, "nginx's own answer: no such file");
    assert!(
        !elsewhere.body.starts_with(b"{"),
        "not passed to lathe-site"
    );
    // The site itself is still nginx's.
    assert_eq!(
        common::send_to(front, "GET /contact HTTP/1.1\r\nHost: x").status,
        200
    );
    assert_eq!(stored(&location).len(), 2);
}

/// A process asked to stop (SIGTERM) when dropped, and killed if it has not within 5 s.
/// Not killed at once: nginx's workers outlive a killed master (and hold the test's
/// output open).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let asked = Instant::now();
        while asked.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// --- 6. Control characters never reach a database, and never a 5xx ----------------------

fn control_characters_are_refused(location: &Location) {
    let address = collecting_into(location, Limits::default());
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
        let said = common::json(&reply);
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
fn sqlite_control_characters_are_refused_with_the_forms_message() {
    control_characters_are_refused(&sqlite());
}

#[test]
fn postgres_control_characters_are_refused_with_the_forms_message() {
    let postgres = Postgres::start();
    control_characters_are_refused(&postgres.location);
}

#[test]
fn an_address_too_long_for_an_index_is_refused_not_a_5xx() {
    let postgres = Postgres::start();
    let address = collecting_into(&postgres.location, Limits::default());
    let long = format!("{}@example.com", "a".repeat(3000));
    assert_eq!(post(address, &sign_up(&long)).status, 422);
}

// --- 9. Where a post comes from ---------------------------------------------------------

#[test]
fn the_origin_check_compares_the_scheme_and_reads_the_referer() {
    let location = sqlite();
    let address = collecting_into(&location, Limits::default());
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

// --- 12. A large export takes little memory ---------------------------------------------

#[test]
fn an_export_streams_in_little_memory() {
    let location = sqlite();
    // 100,000 entries with 2 KB messages: 200 MB and more of JSON.
    run(async {
        let store = Store::open(&location).await.unwrap();
        store.close().await;
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
             INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at)
             SELECT 'e' || i || '@example.com', 'e' || i || '@example.com', 'Name ' || i, '',
                 '', 'general', replace(hex(zeroblob(1000)), '00', 'xy'), '2026-11-22', i
             FROM n",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    });
    for format in ["json", "csv"] {
        // 100 MB of data segment: a fraction of the export's size.
        let out = Command::new("prlimit")
            .args(["--data=100000000", "--", env!("CARGO_BIN_EXE_lathe-site")])
            .args([
                "waitlist",
                "--database",
                &location.display(),
                "export",
                "--format",
                format,
                "--status",
                "all",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = out;
        let mut stdout = child.stdout.take().unwrap();
        let mut bytes = 0_u64;
        let mut lines = 0_u64;
        let mut chunk = vec![0_u8; 1 << 16];
        loop {
            let n = stdout.read(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            bytes += n as u64;
            #[expect(clippy::naive_bytecount, reason = "a test; not worth a crate")]
            let newlines = chunk[..n].iter().filter(|&&b| b == b'\n').count();
            lines += newlines as u64;
        }
        let done = child.wait_with_output().unwrap();
        assert!(
            done.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(bytes > 200_000_000, "{format}: {bytes} bytes");
        if format == "csv" {
            assert_eq!(lines, 100_001, "a header and every entry");
        }
    }
}
