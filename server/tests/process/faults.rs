//! The sign-up path under faults that need the server as a process of its own: kill -9
//! under load, a database that goes down (and what the log says), and a real nginx in
//! front. The promise under test: every 2xx is a committed row.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use lathe_site::store::{Location, Store};
use lathe_site_testkit::{
    Loading, Postgres, address_said, error, fixture, load, post, post_with, send_bytes, send_to,
    sign_up, sqlite,
};

use crate::server::Server;

/// What `location` holds, read through a connection of its own.
fn emails(location: &Location) -> BTreeSet<String> {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = Store::open(location).await.unwrap();
        let entries: Vec<_> = store.entries().try_collect().await.unwrap();
        store.close().await;
        entries.into_iter().map(|e| e.email).collect()
    })
}

fn kill_9_under_load_loses_no_acknowledged_sign_up(location: &Location) {
    let server = Server::start(Some(location), &[]);
    let loading = Loading::default();
    let acknowledged = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "t", 8, &loading));
        // Killed in the middle of the load, after a number of sign-ups, not a time.
        loading.until_more(300);
        server.signal("KILL");
        loading.stop();
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
    let said =
        server.log_once_it_says("could not store a sign-up: the database cannot be reached: ");
    assert!(said.contains(Postgres::DOWN), "the log says why: {said}");
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
fn behind_nginx_a_client_cannot_pick_its_own_allowance() {
    let location = sqlite();
    let lathe = Server::start(
        Some(&location),
        &["--behind-proxy", "--sign-ups-per-minute", "2"],
    );
    let nginx = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/nginx/run-local.sh"
    ))
    .args(["0", fixture().to_str().unwrap()])
    .env("LATHE_UPSTREAM", lathe.address.to_string())
    .env("LATHE_SITE", env!("CARGO_BIN_EXE_lathe-site"))
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let mut nginx = Running(nginx);
    // Listening already when it says where (run-local.sh binds before nginx starts).
    let front = address_said(
        "nginx",
        nginx.0.stdout.take().unwrap(),
        "nginx on ",
        Duration::from_secs(30),
    );
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
    only_the_waitlists_paths_reach_lathe_site(front);
    // The site itself is still nginx's.
    assert_eq!(
        send_to(front, "GET /contact HTTP/1.1\r\nHost: x").status,
        200
    );
    assert_eq!(emails(&location).len(), 2);
}

/// Through nginx (`front`), the waitlist's paths reach lathe-site, and nothing else under
/// /api does.
fn only_the_waitlists_paths_reach_lathe_site(front: SocketAddr) {
    // The requests of the pages the emails link to reach lathe-site too (which, without
    // --smtp, says it does not confirm addresses), and nothing else under /api does.
    for action in ["confirm", "resend", "manage", "erase"] {
        let body = br#"{"token":"x"}"#;
        let request = format!(
            "POST /api/waitlist/{action} HTTP/1.1\r\nHost: {front}\r\nOrigin: http://{front}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let reply = send_bytes(front, &[request.as_bytes(), body].concat());
        assert_eq!(
            (reply.status, error(&reply)),
            (
                404,
                "this server does not confirm addresses: start it with --smtp".into()
            ),
            "{action}"
        );
    }
    // So do the form's requests for proof-of-work challenges (this server asks for none).
    let challenge = send_to(
        front,
        "GET /api/waitlist/challenge HTTP/1.1\r\nHost: x\r\nConnection: close",
    );
    assert_eq!(
        (challenge.status, challenge.header("cache-control")),
        (204, Some("no-store")),
        "lathe-site's answer"
    );
    let elsewhere = send_to(front, "POST /api/waitlist/other HTTP/1.1\r\nHost: x");
    assert_eq!(elsewhere.status, 404, "nginx's own answer: no such file");
    assert!(
        !elsewhere.body.starts_with(b"{"),
        "not passed to lathe-site"
    );
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

lathe_site_testkit::on_both_databases!(durable: kill_9_under_load_loses_no_acknowledged_sign_up);
