//! The sign-up path under faults that need the server as a process of its own: kill -9
//! under load, a database that goes down (and what the log says), and a real nginx in
//! front (and the one-click unsubscribe's page through it). The promise under test:
//! every 2xx is a committed row.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use lathe_site::domain::token::{Claims, Key, Purpose, random_id};
use lathe_site::store::{Location, Store};
use lathe_site_testkit::{
    Loading, Postgres, Smtp, address_said, error, fixture, load, post, post_with, scratch,
    send_bytes, send_to, sign_up, sqlite,
};

use crate::server::{KEY, Server, confirming};

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
    let (nginx, front, tmp) = nginx_before(&lathe);
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
    // Stopped, run-local.sh leaves nothing behind in the temporary folder.
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        1,
        "nginx's folder"
    );
    drop(nginx);
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// nginx with deploy/nginx/lathe.conf and lathe-waitlist.conf, passing the waitlist's
/// paths to `lathe`: the process, where it listens, and the folder it was given as its
/// `TMPDIR` (run-local.sh makes its own folder in it, and removes it when stopped).
fn nginx_before(lathe: &Server) -> (Running, SocketAddr, PathBuf) {
    static N: AtomicU32 = AtomicU32::new(0);
    let tmp = scratch(&format!(
        "nginx-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&tmp).unwrap();
    let nginx = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/nginx/run-local.sh"
    ))
    .args(["0", fixture().to_str().unwrap()])
    .env("LATHE_UPSTREAM", lathe.address.to_string())
    .env("LATHE_SITE", env!("CARGO_BIN_EXE_lathe-site"))
    .env("TMPDIR", &tmp)
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
    (nginx, front, tmp)
}

#[test]
fn behind_nginx_the_one_click_unsubscribe_is_lathe_sites_page_with_its_own_headers() {
    let smtp = Smtp::start();
    let lathe = confirming(&sqlite(), &smtp, &["--behind-proxy"]);
    let (_nginx, front, _) = nginx_before(&lathe);
    // A token of ours for an entry that is not there: the page that says so.
    let token = Key::new(KEY).unwrap().sign(&Claims {
        purpose: Purpose::Unsubscribe,
        entry: random_id(),
        nonce: random_id(),
        expires_ms: 0,
    });
    let path = format!("/api/waitlist/unsubscribe?token={token}");
    let page = send_to(front, &format!("GET {path} HTTP/1.1\r\nHost: {front}"));
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("<h1>Nothing to unsubscribe</h1>"),
        "{}",
        page.text()
    );
    // lathe-site's policy alone (the site's forbids the page's style and form), and
    // nginx's noindex.
    let policies: Vec<&str> = page
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("content-security-policy"))
        .map(|(_, value)| value.as_str())
        .collect();
    assert_eq!(policies.len(), 1, "{policies:?}");
    assert!(
        policies[0].contains("form-action 'self'"),
        "{}",
        policies[0]
    );
    assert_eq!(page.header("x-robots-tag"), Some("noindex"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    // A provider's one-click, from its own servers: no Origin, no cookie.
    let body = b"List-Unsubscribe=One-Click";
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {front}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let done = send_bytes(front, &[request.as_bytes(), body].concat());
    assert_eq!(done.status, 200);
    assert!(done.text().contains("<h1>You are unsubscribed</h1>"));
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
    // And the invitations' one-click unsubscribe, both ways.
    for method in ["GET", "POST"] {
        let reply = send_to(
            front,
            &format!("{method} /api/waitlist/unsubscribe?token=x HTTP/1.1\r\nHost: {front}"),
        );
        assert_eq!(
            (reply.status, error(&reply)),
            (
                404,
                "this server does not confirm addresses: start it with --smtp".into()
            ),
            "{method}"
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
