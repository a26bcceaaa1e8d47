//! The server's life as a process: its command line and environment, a missing build or
//! a busy port, start-up checks of the database and the key, `/healthz`, `/readyz` and
//! `lathe-site ready`, SIGTERM with requests under way, descriptor limits, and the
//! retention purge and the fold of the line's counts it runs when it starts.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lathe_site::domain::token::{Key, Purpose};
use lathe_site::operations::metrics::OPEN_CONNECTIONS;
use lathe_site::store::Location;
use lathe_site_testkit::{
    Postgres, Reply, Reservation, Smtp, address_said, fixture, get, held_for, post, post_with,
    scratch, send_bytes, send_to, sign_up, sqlite, until, wait_for,
};

use crate::server::{Server, confirming, confirming_through, metric, sqlite3};

const DAY: i64 = 24 * 60 * 60 * 1000;

/// How many entries the owner counts.
fn count(database: &Location) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["waitlist", "--database", &database.display(), "count"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn body(reply: &Reply) -> String {
    reply.text()
}

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lathe-site"))
}

#[test]
fn a_missing_build_is_one_clear_line_and_a_failure() {
    let out = binary()
        .args(["serve", "--dist", "/nonexistent/dist", "--port", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "lathe-site: /nonexistent/dist is not a built site (no index.html and 404.html): run `make build` first\n"
    );
}

#[test]
fn a_port_in_use_is_one_clear_line_and_a_failure() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dist = fixture().to_str().unwrap();
    let out = binary()
        .args(["serve", "--dist", dist, "--port", &port])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("lathe-site: cannot listen on 127.0.0.1:{port}: ")),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}

#[cfg(unix)]
#[test]
fn it_listens_on_loopback_by_default_and_stops_gracefully_on_sigterm() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    // A relative --dist, as `make start` gives it.
    let dist = fixture().file_name().unwrap().to_str().unwrap();
    let mut child = Running(
        binary()
            .current_dir(fixture().parent().unwrap())
            .args(["serve", "--dist", dist, "--port", &port.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = [0_u8; 64];
    let n = child.0.stdout.as_mut().unwrap().read(&mut line).unwrap();
    let said = String::from_utf8_lossy(&line[..n]);
    assert!(said.contains(&format!("http://127.0.0.1:{port}")), "{said}");
    for target in ["/", "/contact"] {
        let head = format!("GET {target} HTTP/1.1\r\nHost: x");
        assert_eq!(
            send_to(([127, 0, 0, 1], port).into(), &head).status,
            200,
            "{target}"
        );
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.0.wait().unwrap().success(), "a clean exit on SIGTERM");
}

/// A server process, killed if a test fails before it stops it.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
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
        &[
            "--header-timeout",
            "60s",
            "--shutdown-timeout",
            "1s",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    let mut half = TcpStream::connect(server.address).unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nAccept: te")
        .unwrap();
    // The server holds the connection (not only the kernel's queue) when the stop comes.
    let metrics = server.metrics.unwrap();
    wait_for("the connection taken", Duration::from_secs(10), || {
        metric(metrics, OPEN_CONNECTIONS) == 1
    });
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
    drop(half);
}

#[test]
fn an_unusable_database_is_named_at_start_at_once() {
    let location = sqlite();
    std::fs::write(location.file(), "not a database, just text ".repeat(200)).unwrap();
    let dist = fixture().to_str().unwrap();
    let database = location.display();
    let said = fails_at_once(&[
        "serve",
        "--dist",
        dist,
        "--port",
        "0",
        "--database",
        &database,
    ]);
    assert!(said.contains("file is not a database"), "{said}");

    let postgres = Postgres::start();
    postgres.stop();
    let database = postgres.location.display();
    let said = fails_at_once(&["waitlist", "--database", &database, "count"]);
    assert!(said.contains(Postgres::DOWN), "{said}");
}

#[test]
fn an_allowance_it_cannot_keep_is_refused_at_start() {
    let dist = fixture().to_str().unwrap();
    let said = fails_at_once(&[
        "serve",
        "--dist",
        dist,
        "--port",
        "0",
        "--sign-ups-per-minute",
        "60000001",
    ]);
    assert!(said.contains("--sign-ups-per-minute"), "{said}");
    assert!(said.contains("60000001 is not in 0..=60000000"), "{said}");
}

/// What `lathe-site ARGS` says on standard error when it fails, as it must, within 3 s.
fn fails_at_once(args: &[&str]) -> String {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(args)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?}");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "{args:?} took {took:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
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
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command
        .arg("serve")
        .env("LATHE_DIST", fixture())
        .env("LATHE_PORT", "0")
        .env("LATHE_HSTS", "true")
        .env("LATHE_DATABASE", database.display())
        .env("LATHE_SIGN_UPS_PER_MINUTE", "1")
        .env("LATHE_ALLOW_ORIGIN", "https://a.example,https://b.example")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let result = std::panic::catch_unwind(|| {
        // LATHE_PORT=0: the port the system gave, as the server says it.
        let address = address_said("lathe-site", stdout, " on http://", Duration::from_secs(30));
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
    // A port held by a socket that never listens: nothing can listen there meanwhile.
    let nothing = Reservation::new();
    let (code, said) = ready(nothing.port());
    assert_eq!(code, Some(1));
    let refused = "lathe-site: cannot connect to 127.0.0.1:";
    assert!(said.starts_with(refused), "{said}");
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

#[test]
fn the_server_purges_when_it_starts() {
    let database = sqlite();
    let smtp = Smtp::start();
    {
        let server = confirming(&database, &smtp, &[]);
        post(server.address, &sign_up("stale@example.com"));
        post(server.address, &sign_up("fresh@example.com"));
        smtp.wait_for_messages(2);
    }
    let eight_days_ago = lathe_site::now_ms() - 8 * DAY;
    sqlite3(
        &database,
        &format!(
            "UPDATE waitlist SET created_at = {eight_days_ago} WHERE email_key = 'stale@example.com'"
        ),
    );
    let _server = confirming(&database, &smtp, &[]);
    wait_for("the purge at start", Duration::from_secs(10), || {
        count(&database) == "1"
    });
}

/// The line's counts of a bucket behind the last two, spread over rows as confirmations
/// leave them, are folded into one by the server's worker when it starts (and every
/// minute after), the count the same.
#[test]
fn the_server_folds_the_lines_counts_when_it_starts() {
    let database = sqlite();
    drop(Server::start(Some(&database), &[]));
    sqlite3(
        &database,
        "INSERT INTO line_counts (bucket, stripe, n)
         VALUES (0, 3, 7), (0, 9, 5), (0, 40, -2), (1, 0, 1), (2, 5, 1), (2, 6, 1)",
    );
    let _server = Server::start(Some(&database), &[]);
    let rows = || sqlite3(&database, "SELECT bucket, stripe, n FROM line_counts");
    wait_for("the fold at start", Duration::from_secs(10), || {
        rows() == "0|3|10\n1|0|1\n2|5|1\n2|6|1"
    });
}

#[test]
fn the_key_comes_from_systemds_credential_and_without_one_smtp_is_refused_clearly() {
    let database = sqlite();
    let smtp = Smtp::start();
    let mail_args = confirming_through(&smtp.url());
    let mail_args: Vec<&str> = mail_args.iter().map(String::as_str).collect();
    // No key at all: one clear line, and no server.
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["serve", "--database", &database.display(), "--dist"])
        .arg(fixture())
        .args(&mail_args)
        .env_remove("LATHE_TOKEN_KEY")
        .env_remove("CREDENTIALS_DIRECTORY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "--smtp needs the key its links are signed with: --token-key-file FILE, LATHE_TOKEN_KEY, or systemd's credential token.key"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // systemd's LoadCredential: $CREDENTIALS_DIRECTORY/token.key signs the links.
    let credentials = scratch(&format!("credentials-{}", std::process::id()));
    std::fs::create_dir_all(&credentials).unwrap();
    let key = "a credential key, which is over 32 bytes long";
    std::fs::write(credentials.join("token.key"), format!("{key}\n")).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command
        .env_remove("LATHE_TOKEN_KEY")
        .env("CREDENTIALS_DIRECTORY", &credentials);
    let server = Server::start_with(command, Some(&database), &mail_args);
    post(server.address, &sign_up("cred@example.com"));
    let [email] = &smtp.wait_for_messages(1)[..] else {
        unreachable!()
    };
    let token = email.token("confirm").unwrap();
    assert!(
        Key::new(key)
            .unwrap()
            .verify(&token, Purpose::Confirm, 0)
            .is_ok()
    );
    let _ = std::fs::remove_dir_all(&credentials);
}

#[test]
fn the_proof_key_comes_from_a_file_or_systemds_credential_and_without_one_is_refused_clearly() {
    let database = sqlite();
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["serve", "--database", &database.display(), "--dist"])
        .arg(fixture())
        .arg("--proof-of-work")
        .env_remove("LATHE_PROOF_KEY")
        .env_remove("CREDENTIALS_DIRECTORY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "--proof-of-work needs the key its challenges are signed with (32 bytes or more, the same for every instance): --proof-key-file FILE, LATHE_PROOF_KEY, or systemd's credential proof.key"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let folder = scratch(&format!("proof-key-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let key = "a proof-of-work key, which is over 32 bytes long";
    std::fs::write(folder.join("proof.key"), format!("{key}\n")).unwrap();
    let ours = lathe_site::waitlist::proof::Proofs::new(&Key::new(key).unwrap());
    for (how, file) in [
        ("credential", None),
        ("file", Some(folder.join("proof.key"))),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
        command.env_remove("LATHE_PROOF_KEY");
        let mut args = vec!["--proof-of-work".to_owned()];
        match file {
            None => {
                command.env("CREDENTIALS_DIRECTORY", &folder);
            }
            Some(file) => {
                command.env_remove("CREDENTIALS_DIRECTORY");
                args.extend(["--proof-key-file".to_owned(), file.display().to_string()]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let server = Server::start_with(command, Some(&database), &args);
        // Its challenge, solved by the core, checks out under the key in the file.
        let json = get(server.address, "/api/waitlist/challenge").text();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let parameters = serde_json::from_value(value["parameters"].clone()).unwrap();
        let challenge = lathe_core_solver::Challenge::new(json, parameters).unwrap();
        let solution = challenge.solve(0, 2000).unwrap();
        assert!(
            ours.check(Some(&challenge.payload(&solution))).is_ok(),
            "{how}"
        );
    }
    let _ = std::fs::remove_dir_all(&folder);
}
