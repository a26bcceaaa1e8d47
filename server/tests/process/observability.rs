//! What the owner watches a running server with: its log (text and JSON, never a value
//! a visitor typed), its metrics scraped by a real Prometheus (and the emails'), and the
//! systemd unit it is deployed with. A process of its own each: a log and a metrics
//! recorder are the process's.

use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use lathe_site_testkit::{
    Postgres, Smtp, address_said, get, outbox, post, scratch, sign_up, sqlite, until, wait_for,
};

use crate::server::{Server, confirming, metric, sqlite3};

fn body(reply: &lathe_site_testkit::Reply) -> String {
    reply.text()
}

/// A new folder of this test's own in the scratch space.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = scratch(&format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
    let dir = scratch_dir("systemd");
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
        let dir = scratch_dir("prometheus");
        std::fs::write(
            dir.join("prometheus.yml"),
            format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: lathe\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let mut child = Command::new("prometheus")
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            // Port 0: Prometheus logs the address it was given.
            .arg("--web.listen-address=127.0.0.1:0")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("prometheus (make setup installs Debian's package)");
        let address = address_said(
            "prometheus",
            child.stderr.take().unwrap(),
            "msg=\"Listening on\" address=",
            Duration::from_secs(60),
        );
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
    let server = Server::start(Some(&database), &["--metrics-addr", "127.0.0.1:0"]);
    let metrics = server.metrics.expect("the metrics' address");
    // Two of them through share links that can earn nothing: stored all the same, and the
    // codes counted by why.
    for (n, code) in [(0, Some("short")), (1, Some("AAAAAAAAAAAA")), (2, None)] {
        let email = format!("m{n}@example.com");
        let body = match code {
            Some(code) => lathe_site_testkit::sign_up_with(&email, "ref", code),
            None => sign_up(&email),
        };
        assert_eq!(post(server.address, &body).status, 201);
    }
    for reason in ["malformed", "unknown"] {
        let series = format!("lathe_referrals_ignored_total{{reason=\"{reason}\"}}");
        assert_eq!(metric(metrics, &series), 1, "{series}");
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
        "lathe_referrals_ignored_total",
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
#[test]
fn the_metrics_and_the_owner_see_emails_queued_retried_sent_and_failed() {
    let database = sqlite();
    let mut smtp = Smtp::down_at_first();
    let server = confirming(&database, &smtp, &["--metrics-addr", "127.0.0.1:0"]);
    let metrics = server.metrics.expect("the metrics' address");
    let series =
        |outcome: &str| format!("lathe_emails_total{{kind=\"confirm\",outcome=\"{outcome}\"}}");
    for email in ["one@example.com", "nobody@example.com"] {
        assert_eq!(post(server.address, &sign_up(email)).status, 201);
    }
    assert_eq!(metric(metrics, &series("queued")), 2);
    // The mail server is down: each is tried, and waits to be tried again.
    wait_for("two retries", Duration::from_secs(10), || {
        metric(metrics, &series("retried")) >= 2
    });
    assert_eq!(outbox(&database), (2, 0, 0));
    // Up: one is delivered; the other's mailbox does not exist (550), which is final.
    smtp.up();
    wait_for("one sent and one failed", Duration::from_secs(15), || {
        outbox(&database) == (0, 1, 1)
    });
    assert_eq!(metric(metrics, &series("sent")), 1);
    assert_eq!(metric(metrics, &series("failed")), 1);
    // A 4xx (greylisting) delays an email; it goes on the next try.
    let retried = metric(metrics, &series("retried"));
    assert_eq!(
        post(server.address, &sign_up("later@example.com")).status,
        201
    );
    wait_for("the deferred email sent", Duration::from_secs(15), || {
        outbox(&database) == (0, 2, 1)
    });
    assert_eq!(metric(metrics, &series("retried")), retried + 1);
    let to: Vec<String> = smtp
        .wait_for_messages(2)
        .into_iter()
        .map(|e| e.to)
        .collect();
    assert_eq!(to, ["one@example.com", "later@example.com"]);
    // The refusal quoted the address; neither the log nor the outbox keeps it.
    let logged = server.log_once_it_says("email failed");
    assert!(logged.contains("Recipient address rejected"), "{logged}");
    assert!(!logged.contains("nobody@"), "{logged}");
    assert!(!logged.contains("one@"), "{logged}");
    assert_eq!(
        sqlite3(
            &database,
            "SELECT COUNT(*) FROM outbox WHERE last_error LIKE '%nobody@%'"
        ),
        "0"
    );
}

/// The server, started with `RUST_LOG` set to `setting`.
fn with_rust_log(setting: &str) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command.env("RUST_LOG", setting);
    Server::start_with(command, None, &[])
}

#[test]
fn a_rust_log_not_understood_is_said_and_the_default_levels_apply() {
    let server = with_rust_log("lathe_site=loud");
    assert_eq!(get(server.address, "/").status, 200);
    // The request's line is written at the default's info level.
    let log = server.log_once_it_says("status=200");
    let warning = log
        .lines()
        .find(|l| l.contains("RUST_LOG is not understood"))
        .unwrap_or_else(|| panic!("no warning in:\n{log}"));
    assert!(
        warning.contains("WARN")
            && warning.ends_with("logging at info,sqlx::postgres::notice=warn"),
        "{warning}"
    );
}

#[test]
fn rust_log_can_ask_for_debug_lines() {
    let server = with_rust_log("warn,lathe_site=debug");
    // The debug line the server writes as it starts (the subscriber's own default level,
    // info, had capped it once the filter was tracing-subscriber's `Targets`).
    let log = server.log_once_it_says("starting");
    assert!(
        log.lines()
            .any(|l| l.contains("DEBUG") && l.contains("starting")),
        "{log}"
    );
}
