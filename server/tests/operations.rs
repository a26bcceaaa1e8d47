//! What an owner operates the server with: every flag from the environment, `/healthz`
//! and `/readyz` (the database's state, and a shutdown under way), against the real
//! binary and real databases.

use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod common;
use common::{
    Postgres, Reply, Server, fixture, free_port, load, post, post_with, send_to, sign_up, sqlite,
};

fn get(address: SocketAddr, path: &str) -> Reply {
    send_to(address, &format!("GET {path} HTTP/1.1\r\nHost: {address}"))
}

fn body(reply: &Reply) -> String {
    String::from_utf8_lossy(&reply.body).into_owned()
}

/// Polls `check` every 20 ms until it holds, at most `limit`.
fn until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn every_serve_flag_is_listed_with_its_environment_variable() {
    let help = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    // Each option's entry runs from its `--flag` line to the next one.
    let mut entries: Vec<String> = Vec::new();
    for line in help.lines() {
        if line.trim_start().starts_with("--") || line.trim_start().starts_with("-h,") {
            entries.push(line.to_owned());
        } else if let Some(entry) = entries.last_mut() {
            entry.push_str(line);
        }
    }
    entries.retain(|entry| !entry.contains("--help"));
    assert!(entries.len() >= 15, "{help}");
    for entry in entries {
        assert!(entry.contains("[env: LATHE_"), "no variable for:\n{entry}");
    }
}

#[test]
fn a_server_configured_only_by_its_environment() {
    let database = sqlite();
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command
        .arg("serve")
        .env("LATHE_DIST", fixture())
        .env("LATHE_PORT", port.to_string())
        .env("LATHE_HSTS", "true")
        .env("LATHE_DATABASE", database.display())
        .env("LATHE_SIGN_UPS_PER_MINUTE", "1")
        .env("LATHE_ALLOW_ORIGIN", "https://a.example,https://b.example")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let up = until(Duration::from_secs(20), || {
        TcpStream::connect(address).is_ok()
    });
    let result = std::panic::catch_unwind(|| {
        assert!(up, "the server did not start on LATHE_PORT");
        let page = get(address, "/");
        assert_eq!(page.status, 200);
        assert!(
            page.header("strict-transport-security").is_some(),
            "LATHE_HSTS"
        );
        let from = |origin: &str, email: &str| {
            post_with(
                address,
                &[
                    &format!("Origin: {origin}"),
                    "Content-Type: application/json",
                ],
                sign_up(email).as_bytes(),
            )
            .status
        };
        assert_eq!(
            from("https://b.example", "ada@example.com"),
            201,
            "LATHE_ALLOW_ORIGIN"
        );
        assert_eq!(from("https://c.example", "bob@example.com"), 403);
        assert_eq!(
            from("https://a.example", "eve@example.com"),
            429,
            "LATHE_SIGN_UPS_PER_MINUTE=1"
        );
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// `lathe-site ready` (the container image's health check) against `port`: its exit
/// code and what it said.
fn ready(port: u16) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["ready", "--port", &port.to_string()])
        .env_remove("LATHE_HOST")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn ready_fails_where_nothing_listens() {
    let (code, said) = ready(free_port());
    assert_eq!(code, Some(1));
    assert!(
        said.starts_with("lathe-site: cannot connect to 127.0.0.1:"),
        "{said}"
    );
}

#[test]
fn healthz_answers_and_readyz_turns_503_as_soon_as_the_server_is_told_to_stop() {
    let database = sqlite();
    let mut server = Server::start(Some(&database), &["--shutdown-delay", "3s"]);
    let address = server.address;
    let health = get(address, "/healthz");
    assert_eq!((health.status, body(&health).as_str()), (200, "ok\n"));
    assert_eq!(health.header("cache-control"), Some("no-store"));
    let readyz = get(address, "/readyz");
    assert_eq!((readyz.status, body(&readyz).as_str()), (200, "ready\n"));
    assert_eq!(readyz.header("cache-control"), Some("no-store"));
    // Not pages: a POST is not allowed, and they carry the site's headers.
    assert_eq!(readyz.header("x-content-type-options"), Some("nosniff"));
    // The container image's health check says the same.
    assert_eq!(ready(address.port()), (Some(0), String::new()));

    server.signal("TERM");
    assert!(
        until(Duration::from_secs(2), || get(address, "/readyz").status
            == 503),
        "readyz still 200 after SIGTERM"
    );
    let draining = get(address, "/readyz");
    assert_eq!(body(&draining), "shutting down\n");
    let (code, said) = ready(address.port());
    assert_eq!(code, Some(1));
    assert!(said.contains("is not ready: 503"), "{said}");
    // Still serving while the load balancer notices, and still alive.
    assert_eq!(get(address, "/").status, 200);
    assert_eq!(get(address, "/healthz").status, 200);
    assert!(
        server.exited_within(Duration::from_secs(10)).is_some(),
        "the server did not stop after its delay"
    );
}

#[test]
fn readyz_follows_postgresql_down_and_back() {
    let postgres = Postgres::start();
    let server = Server::start(Some(&postgres.location), &[]);
    let address = server.address;
    assert_eq!(get(address, "/readyz").status, 200);
    postgres.stop();
    let down = get(address, "/readyz");
    assert_eq!(down.status, 503);
    assert!(
        body(&down).starts_with("the database is unreachable: "),
        "{}",
        body(&down)
    );
    // The process itself is fine: a load balancer's liveness check must not restart it.
    assert_eq!(get(address, "/healthz").status, 200);
    postgres.resume();
    assert!(
        until(Duration::from_secs(10), || get(address, "/readyz").status
            == 200),
        "readyz did not recover"
    );
    // And sign-ups go through again.
    assert_eq!(post(address, &sign_up("ada@example.com")).status, 201);
}

#[test]
fn without_a_database_readyz_is_ready_and_both_routes_answer_head() {
    let server = Server::start(None, &[]);
    assert_eq!(get(server.address, "/readyz").status, 200);
    let head = send_to(
        server.address,
        &format!("HEAD /healthz HTTP/1.1\r\nHost: {}", server.address),
    );
    assert_eq!(head.status, 200);
}

/// The owner's tool: `lathe-site waitlist --database DATABASE ARGS...`.
fn waitlist(database: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["waitlist", "--database", database])
        .args(args)
        .output()
        .unwrap()
}

/// `sqlite3 FILE SQL`, as an owner would check a copy.
fn sqlite3(file: &Path, sql: &str) -> String {
    let out = Command::new("sqlite3").arg(file).arg(sql).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_backup_taken_under_load_holds_every_sign_up_acknowledged_before_it_and_restores() {
    let database = sqlite();
    let server = Server::start(Some(&database), &[]);
    // Sign-ups acknowledged before the backup starts...
    let stop = AtomicBool::new(false);
    let before = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "before", 4, &stop));
        std::thread::sleep(Duration::from_millis(700));
        stop.store(true, Ordering::Relaxed);
        loaded.join().unwrap()
    });
    assert!(before.len() > 20, "too little load: {}", before.len());
    // ...then the backup, while more are written.
    let copy = Path::new(&database.display()).with_extension("backup.db");
    let stop = AtomicBool::new(false);
    let (during, backup) = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "during", 4, &stop));
        std::thread::sleep(Duration::from_millis(200));
        let backup = waitlist(&database.display(), &["backup", copy.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::Relaxed);
        (loaded.join().unwrap(), backup)
    });
    assert!(
        backup.status.success(),
        "{}",
        String::from_utf8_lossy(&backup.stderr)
    );
    assert!(!during.is_empty(), "nothing was written during the backup");
    assert_eq!(sqlite3(&copy, "pragma integrity_check").trim(), "ok");
    let saved: BTreeSet<String> = sqlite3(&copy, "select email from waitlist")
        .lines()
        .map(str::to_owned)
        .collect();
    let missing: Vec<_> = before.difference(&saved).collect();
    assert!(
        missing.is_empty(),
        "acknowledged before the backup, missing: {missing:?}"
    );

    // Restored as the help says: the server stopped, the copy in the database's place.
    drop(server);
    let restored = sqlite();
    std::fs::copy(&copy, Path::new(&restored.display())).unwrap();
    let server = Server::start(Some(&restored), &[]);
    let count = waitlist(&restored.display(), &["count"]);
    assert_eq!(
        String::from_utf8_lossy(&count.stdout).trim(),
        saved.len().to_string()
    );
    assert_eq!(
        post(server.address, &sign_up("new@example.com")).status,
        201
    );
    // A second backup to the same file is refused, not overwritten.
    let again = waitlist(&database.display(), &["backup", copy.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    let _ = std::fs::remove_file(&copy);
}

#[test]
fn a_postgresql_backup_points_to_pg_dump() {
    let postgres = Postgres::start();
    let out = waitlist(
        &postgres.location.display(),
        &["backup", "/tmp/never-written.db"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pg_dump"));
    assert!(!Path::new("/tmp/never-written.db").exists());
}

#[test]
fn the_systemd_unit_verifies_and_is_sandboxed_to_an_exposure_of_2_or_less() {
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/systemd/lathe-site.service"
    ))
    .unwrap();
    assert!(unit.contains("ExecStart=/usr/local/bin/lathe-site serve"));
    // Checked with the binary where the unit expects it: this build's.
    let dir = tempfile_dir("systemd");
    let file = dir.join("lathe-site.service");
    std::fs::write(
        &file,
        unit.replace(
            "/usr/local/bin/lathe-site",
            env!("CARGO_BIN_EXE_lathe-site"),
        ),
    )
    .unwrap();
    let verify = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        verify.status.success() && verify.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let security = Command::new("systemd-analyze")
        .args(["security", "--offline=yes"])
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&security.stdout);
    let last = report
        .lines()
        .rfind(|l| l.contains("Overall exposure level"))
        .unwrap_or_else(|| panic!("no rating: {report}"));
    let exposure: f64 = last
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number in {last}"));
    assert!(exposure <= 2.0, "{last}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new folder of this test's own under Cargo's scratch space.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A sign-up with the given values: nothing of them may ever reach a log line.
fn private_sign_up(email: &str, name: &str, message: &str) -> String {
    serde_json::json!({
        "name": name, "email": email, "company": "Private Company Ltd", "role": "",
        "interest": "general", "message": message, "privacyNotice": "2026-11-22", "website": "",
    })
    .to_string()
}

/// The server's log after a page, a refused and a stored sign-up, and a database failure.
fn log_of_a_session(format: &str) -> String {
    let postgres = Postgres::start();
    let server = Server::start(Some(&postgres.location), &["--log-format", format]);
    let address = server.address;
    assert_eq!(get(address, "/").status, 200);
    let refused = private_sign_up("secret-address", "Ada Secret", "My secret plan");
    assert_eq!(post(address, &refused).status, 422);
    let stored = private_sign_up(
        "carol.private@example.com",
        "Carol Private",
        "Very private words",
    );
    assert_eq!(post(address, &stored).status, 201);
    postgres.stop();
    let failed = private_sign_up("dan.private@example.com", "Dan Private", "Also private");
    assert_eq!(post(address, &failed).status, 503);
    // The lines are written as requests end: wait for the last one.
    assert!(until(Duration::from_secs(5), || {
        server.stderr.lock().unwrap().matches("answered").count() >= 4
    }));
    let log = server.stderr.lock().unwrap().clone();
    for private in [
        "secret-address",
        "Ada Secret",
        "My secret plan",
        "carol.private",
        "Carol Private",
        "Very private words",
        "dan.private",
        "Dan Private",
        "Also private",
        "Private Company",
    ] {
        assert!(!log.contains(private), "{private:?} in the log:\n{log}");
    }
    log
}

#[test]
fn text_logs_say_each_request_refusal_and_failure_and_nothing_a_visitor_typed() {
    let log = log_of_a_session("text");
    let line = |needles: &[&str]| {
        log.lines()
            .find(|l| needles.iter().all(|n| l.contains(n)))
            .unwrap_or_else(|| panic!("no line with {needles:?} in:\n{log}"))
            .to_owned()
    };
    let page = line(&["method=GET", "path=/", "status=200"]);
    assert!(
        page.contains("client=127.0.0.1")
            && page.contains("bytes=")
            && page.contains("duration_ms="),
        "{page}"
    );
    line(&["breaks-rules", "status=422", "email:invalid-email"]);
    line(&["sign-up stored", "status=201"]);
    line(&["ERROR", "not-stored", "could not store a sign-up: "]);
    line(&["method=POST", "path=/api/waitlist", "status=503"]);
}

#[test]
fn json_logs_are_one_object_a_line_with_the_same_fields() {
    let log = log_of_a_session("json");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let find = |check: &dyn Fn(&serde_json::Value) -> bool| {
        lines
            .iter()
            .find(|l| check(l))
            .unwrap_or_else(|| panic!("no such line in:\n{log}"))
            .clone()
    };
    let page = find(&|l| l["span"]["path"] == "/" && l["status"] == 200);
    assert_eq!(page["span"]["method"], "GET");
    assert_eq!(page["span"]["client"], "127.0.0.1");
    assert!(page["bytes"].as_u64().unwrap() > 0);
    assert!(page["duration_ms"].as_f64().is_some());
    assert!(page["timestamp"].is_string() && page["level"] == "INFO");
    let refusal = find(&|l| l["reason"] == "breaks-rules");
    assert_eq!(refusal["status"], 422);
    assert_eq!(refusal["rules"], "email:invalid-email");
    let failure = find(&|l| l["reason"] == "not-stored");
    assert_eq!(failure["level"], "ERROR");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .starts_with("could not store a sign-up: ")
    );
}

/// A Prometheus server of the test's own (Debian's package), scraping `target` every
/// second; stopped when dropped.
struct Prometheus {
    child: std::process::Child,
    address: SocketAddr,
    dir: std::path::PathBuf,
}

impl Prometheus {
    fn start(target: &str) -> Self {
        let dir = tempfile_dir("prometheus");
        std::fs::write(
            dir.join("prometheus.yml"),
            format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: lathe\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let child = Command::new("prometheus")
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={address}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus (make setup installs Debian's package)");
        Self {
            child,
            address,
            dir,
        }
    }

    /// The value of an instant query's first result, once there is one.
    fn value(&self, query: &str) -> Option<String> {
        let encoded: String = query
            .bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect();
        if TcpStream::connect(self.address).is_err() {
            return None;
        }
        let reply = get(self.address, &format!("/api/v1/query?query={encoded}"));
        let answer: serde_json::Value = serde_json::from_slice(&reply.body).ok()?;
        Some(answer["data"]["result"][0]["value"][1].as_str()?.to_owned())
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn prometheus_scrapes_the_metrics_listener_and_counts_sign_ups_and_refusals() {
    let database = sqlite();
    let metrics = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let server = Server::start(Some(&database), &["--metrics-addr", &metrics.to_string()]);
    for n in 0..3 {
        let email = format!("m{n}@example.com");
        assert_eq!(post(server.address, &sign_up(&email)).status, 201);
    }
    for _ in 0..2 {
        assert_eq!(post(server.address, &sign_up("not-an-address")).status, 422);
    }
    assert_eq!(get(server.address, "/").status, 200);
    // Never on the site's own port.
    assert_eq!(get(server.address, "/metrics").status, 404);

    let text = body(&get(metrics, "/metrics"));
    for name in [
        "lathe_requests_total",
        "lathe_request_duration_seconds_bucket",
        "lathe_sign_ups_stored_total",
        "lathe_sign_ups_refused_total",
        "lathe_database_duration_seconds_bucket",
        "lathe_open_connections",
    ] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut promtool.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    assert!(
        checked.status.success(),
        "promtool: {}{}\n{text}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );

    let prometheus = Prometheus::start(&metrics.to_string());
    let mut last = (None, None);
    let counted = until(Duration::from_secs(30), || {
        last = (
            prometheus.value("lathe_sign_ups_stored_total"),
            prometheus.value("sum(lathe_sign_ups_refused_total)"),
        );
        last == (Some("3".to_owned()), Some("2".to_owned()))
    });
    assert!(counted, "Prometheus saw {last:?}");
    assert_eq!(
        prometheus
            .value("sum(lathe_requests_total{route=\"sign-up\",status=\"201\"})")
            .as_deref(),
        Some("3")
    );
}
