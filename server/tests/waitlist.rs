//! `POST /api/waitlist` against real databases: a SQLite file, and a PostgreSQL cluster
//! of its own (scripts/postgres.sh, from Debian's `postgresql` package). Requests go
//! over raw sockets, byte for byte; what was stored is read back with a separate
//! connection, or with the owner's own `lathe-site waitlist` commands.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::process::Command;

use futures_util::TryStreamExt;
use lathe_site::Site;
use lathe_site::store::{Entry, Location, Store};
use lathe_site::waitlist::{Settings, Waitlist};

mod common;
use common::{
    NOTICE, Postgres, Reply, error, fixture, json, post, post_with, send_to, sign_up, sign_up_with,
    sqlite,
};

/// The site, collecting into `location`, on an ephemeral loopback port.
fn collecting(location: &Location, settings: Settings) -> SocketAddr {
    let location = location.clone();
    common::start_with(async move {
        let store = Store::open(&location).await.unwrap();
        Site::load(fixture(), false)
            .unwrap()
            .with_waitlist(Waitlist::new(store, settings))
    })
}

fn unlimited() -> Settings {
    Settings {
        per_minute: None,
        ..Settings::default()
    }
}

/// What `location` holds, read through a connection of its own.
fn stored(location: &Location) -> Vec<Entry> {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = Store::open(location).await.unwrap();
        let entries = store.entries().try_collect().await.unwrap();
        store.close().await;
        entries
    })
}

/// A sign-up lands as a row. The same address again (in another case, or another Unicode
/// form) leaves the entry as it was, is counted with its time, and is answered byte for
/// byte as a new sign-up: no one learns that an address is on the list, or rewrites it.
fn signs_up_and_repeats(location: &Location) {
    let address = collecting(location, unlimited());
    let first = post(address, &sign_up("Jos\u{e9}@Example.com"));
    assert_eq!(
        first.status,
        201,
        "{}",
        String::from_utf8_lossy(&first.body)
    );
    assert_eq!(json(&first)["status"], "added");
    assert_eq!(first.header("cache-control"), Some("no-store"));
    assert_eq!(
        first.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let [entry] = stored(location).try_into().unwrap();
    assert_eq!(entry.email, "Jos\u{e9}@Example.com");
    assert_eq!(entry.name, "Ada Lovelace");
    assert_eq!(entry.company, "Analytical Engines");
    assert_eq!(entry.interest.as_str(), "enterprise");
    assert_eq!(entry.message, "A booking app, please.");
    assert_eq!(entry.privacy_notice, NOTICE);
    assert_eq!((entry.repeats, entry.last_repeat_at), (0, None));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let age = now - u128::try_from(entry.created_at).unwrap();
    assert!(age < 60_000, "stored with its time ({age} ms ago)");

    // Someone else, who knows the address, in another case and decomposed (e + U+0301).
    let again = serde_json::json!({
        "name": "Eve", "email": "jose\u{301}@example.COM", "message": "Rewritten.",
        "privacyNotice": "2027-01-01",
    });
    let second = post(address, &again.to_string());
    let fresh = post(address, &sign_up("someone.new@example.com"));
    assert_eq!(second.status, fresh.status);
    assert_eq!(
        second.body, fresh.body,
        "a repeat is answered as a new sign-up"
    );
    let headers = |reply: &Reply| {
        reply
            .headers
            .iter()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("date"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(headers(&second), headers(&fresh));
    let entries = stored(location);
    assert_eq!(entries.len(), 2);
    let kept = entries.iter().find(|e| e.email == entry.email).unwrap();
    assert_eq!(kept.email, entry.email);
    assert_eq!(kept.name, "Ada Lovelace", "not rewritten");
    assert_eq!(kept.message, entry.message);
    assert_eq!(kept.privacy_notice, NOTICE);
    assert_eq!(kept.repeats, 1, "the repeat is counted");
    let repeated_at = kept.last_repeat_at.expect("and its time kept");
    assert!(repeated_at >= entry.created_at);
}

#[test]
fn sqlite_a_repeat_sign_up_leaves_the_entry_and_answers_as_a_new_one() {
    signs_up_and_repeats(&sqlite());
}

#[test]
fn postgres_a_repeat_sign_up_leaves_the_entry_and_answers_as_a_new_one() {
    let postgres = Postgres::start();
    signs_up_and_repeats(&postgres.location);
}

/// N concurrent sign-ups in, N rows out, each answered 201.
fn loses_nothing(location: &Location) {
    const CLIENTS: usize = 50;
    const EACH: usize = 4;
    let address = collecting(location, unlimited());
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|client| {
                scope.spawn(move || {
                    (0..EACH)
                        .map(|n| {
                            post(address, &sign_up(&format!("c{client}.n{n}@example.com"))).status
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    assert_eq!(statuses.len(), CLIENTS * EACH);
    assert!(statuses.iter().all(|&s| s == 201), "{statuses:?}");
    let mut emails: Vec<String> = stored(location).into_iter().map(|e| e.email).collect();
    emails.sort();
    emails.dedup();
    assert_eq!(emails.len(), CLIENTS * EACH, "every sign-up, once");
}

#[test]
fn sqlite_200_concurrent_sign_ups_make_200_rows() {
    loses_nothing(&sqlite());
}

#[test]
fn postgres_200_concurrent_sign_ups_make_200_rows() {
    let postgres = Postgres::start();
    loses_nothing(&postgres.location);
}

#[test]
#[expect(clippy::too_many_lines, reason = "one table of cases")]
fn bad_input_gets_a_clear_refusal_and_stores_nothing() {
    let location = sqlite();
    let address = collecting(&location, unlimited());
    let json_type = "Content-Type: application/json";
    let origin = format!("Origin: http://{address}");
    let valid = sign_up("ada@example.com");
    let with = |key: &str, value: serde_json::Value| {
        let mut body: serde_json::Value = serde_json::from_str(&valid).unwrap();
        body[key] = value;
        body.to_string()
    };
    let cases: Vec<(Reply, u16, &str)> = vec![
        (
            post_with(address, &["Content-Type: text/plain"], valid.as_bytes()),
            415,
            "send the sign-up as JSON (Content-Type: application/json)",
        ),
        (
            post_with(address, &[], valid.as_bytes()),
            415,
            "send the sign-up as JSON",
        ),
        (
            post_with(
                address,
                &["Content-Type: application/x-www-form-urlencoded"],
                b"name=Ada",
            ),
            415,
            "send the sign-up as JSON",
        ),
        (
            post_with(address, &[json_type], &vec![b' '; 65 * 1024]),
            413,
            "the sign-up is larger than 64 KiB",
        ),
        (
            post(address, "{\"name\": "),
            400,
            "not a sign-up: EOF while parsing",
        ),
        (
            post(address, "[]"),
            400,
            "not a sign-up: expected a JSON object",
        ),
        (
            post(
                address,
                r#"["Ada","ada@example.com","","","general","Hi","1",""]"#,
            ),
            400,
            "not a sign-up: expected a JSON object",
        ),
        (post(address, "\u{0}"), 400, "not a sign-up: expected value"),
        (
            post(address, &with("name", 7.into())),
            400,
            "not a sign-up: invalid type: integer `7`, expected a string",
        ),
        (
            post(address, &with("email", serde_json::Value::Null)),
            400,
            "not a sign-up: invalid type: null, expected a string",
        ),
        (
            post(address, &with("interest", "sales".into())),
            400,
            "not a sign-up: unknown variant `sales`, expected one of `general`, `enterprise`, `developer`, `partnership`, `press`",
        ),
        (
            post(address, &with("admin", true.into())),
            400,
            "not a sign-up: unknown field `admin`",
        ),
        (
            post(address, r#"{"name":"Ada","email":"ada@example.com"}"#),
            400,
            "not a sign-up: missing field `message`",
        ),
        (
            post(address, &with("privacyNotice", " ".into())),
            400,
            "not a sign-up: privacyNotice must name the version of the privacy notice shown",
        ),
        (
            post(address, &with("privacyNotice", "v".repeat(65).into())),
            400,
            "not a sign-up: privacyNotice must name the version",
        ),
        (
            post_with(
                address,
                &[json_type, "Origin: https://evil.example"],
                valid.as_bytes(),
            ),
            403,
            "sign-ups are accepted from the site's own pages only",
        ),
        (
            post_with(address, &[json_type, "Origin: null"], valid.as_bytes()),
            403,
            "sign-ups are accepted from the site's own pages only",
        ),
        (
            post_with(
                address,
                &[json_type, "Sec-Fetch-Site: cross-site"],
                valid.as_bytes(),
            ),
            403,
            "sign-ups are accepted from the site's own pages only",
        ),
        (
            post_with(address, &[json_type, &origin], b"{\"name\":\"\xff\"}"),
            400,
            "not a sign-up",
        ),
    ];
    for (n, (reply, status, message)) in cases.iter().enumerate() {
        assert_eq!(
            reply.status,
            *status,
            "case {n}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert!(
            error(reply).starts_with(message),
            "case {n}: {:?} does not start with {message:?}",
            error(reply)
        );
        assert_eq!(reply.header("cache-control"), Some("no-store"), "case {n}");
    }
    assert!(stored(&location).is_empty());
    // Other methods: not a page to serve, and not a sign-up.
    let get = send_to(address, "GET /api/waitlist HTTP/1.1\r\nHost: x");
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST"));
    // Still serving, and still collecting.
    assert_eq!(send_to(address, "GET / HTTP/1.1\r\nHost: x").status, 200);
    assert_eq!(post(address, &valid).status, 201);
}

#[test]
fn the_rules_and_their_messages_are_the_cores() {
    let location = sqlite();
    let address = collecting(&location, unlimited());
    let body = serde_json::json!({
        "name": " \u{3000}", "email": "ada@example", "message": "", "privacyNotice": NOTICE,
    });
    let reply = post(address, &body.to_string());
    assert_eq!(reply.status, 422);
    assert_eq!(
        json(&reply),
        serde_json::json!({
            "error": "the sign-up breaks the form's rules",
            "errors": [
                { "field": "name", "code": "required", "message": "Full name is required" },
                { "field": "email", "code": "invalid-email", "message": "Please enter a valid email address" },
                { "field": "message", "code": "required", "message": "Message is required" },
            ],
        })
    );
    let reply = post(
        address,
        &serde_json::json!({"name":"Ada","email":"","message":"Hi","privacyNotice":NOTICE})
            .to_string(),
    );
    assert_eq!(reply.status, 422);
    assert_eq!(
        json(&reply)["errors"][0]["message"],
        "Email address is required"
    );
    assert!(stored(&location).is_empty());
}

#[test]
fn the_honeypot_is_answered_as_a_success_and_stores_nothing() {
    let location = sqlite();
    let address = collecting(&location, unlimited());
    let reply = post(
        address,
        &sign_up_with("bot@example.com", "website", "https://spam.example"),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(json(&reply)["status"], "added");
    assert!(stored(&location).is_empty());
    let person = sign_up_with("bot@example.com", "website", "");
    assert_eq!(post(address, &person).status, 201);
    assert_eq!(stored(&location).len(), 1, "an empty honeypot is a person");
}

#[test]
fn too_many_sign_ups_from_one_client_get_429_with_retry_after() {
    let location = sqlite();
    let settings = |trusted_proxies| Settings {
        per_minute: NonZeroU32::new(2),
        trusted_proxies,
        ..Settings::default()
    };
    let address = collecting(&location, settings(0));
    for n in 0..2 {
        assert_eq!(
            post(address, &sign_up(&format!("{n}@example.com"))).status,
            201
        );
    }
    let refused = post(address, &sign_up("2@example.com"));
    assert_eq!(refused.status, 429);
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=30).contains(&retry), "one sign-up every 30 s: {retry}");
    assert_eq!(
        error(&refused),
        format!("too many sign-ups from your address: try again in {retry} s")
    );
    assert_eq!(stored(&location).len(), 2);
    // Pages are never limited.
    assert_eq!(send_to(address, "GET / HTTP/1.1\r\nHost: x").status, 200);

    // Behind a proxy, each forwarded address has its own allowance; unless told, the
    // header is not trusted (anyone could send it).
    let proxied = collecting(&sqlite(), settings(1));
    let from = |lines: &[&str], email: &str| {
        let mut headers = vec!["Content-Type: application/json".to_owned()];
        headers.extend(lines.iter().map(|l| format!("X-Forwarded-For: {l}")));
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        post_with(proxied, &headers, sign_up(email).as_bytes()).status
    };
    assert_eq!(from(&["203.0.113.9, 198.51.100.1"], "a@example.com"), 201);
    assert_eq!(from(&["198.51.100.1"], "b@example.com"), 201);
    assert_eq!(from(&["198.51.100.1"], "c@example.com"), 429);
    assert_eq!(from(&["198.51.100.2"], "c@example.com"), 201);
    // A client that writes its own line before the proxy's gets no new allowance: the
    // lines are one list, and the proxy's entry is the last.
    for n in 0..4 {
        let own = format!("10.9.8.{n}");
        assert_eq!(
            from(&[&own, "198.51.100.1"], &format!("forged{n}@example.com")),
            429,
            "{own}"
        );
    }
    // IPv6 clients are counted per /64.
    assert_eq!(from(&["2001:db8:0:1::1"], "v6a@example.com"), 201);
    assert_eq!(from(&["2001:db8:0:1::2"], "v6b@example.com"), 201);
    assert_eq!(from(&["2001:db8:0:1:ffff::3"], "v6c@example.com"), 429);
    assert_eq!(from(&["2001:db8:0:2::1"], "v6c@example.com"), 201);
    let direct = collecting(&sqlite(), settings(0));
    for n in 0..3 {
        let status = post_with(
            direct,
            &[
                "Content-Type: application/json",
                &format!("X-Forwarded-For: 198.51.100.{n}"),
            ],
            sign_up(&format!("{n}@example.com")).as_bytes(),
        )
        .status;
        assert_eq!(status, if n < 2 { 201 } else { 429 });
    }
}

#[test]
fn a_visitor_who_mistypes_is_not_locked_out() {
    let location = sqlite();
    let address = collecting(
        &location,
        Settings {
            per_minute: NonZeroU32::new(5),
            ..Settings::default()
        },
    );
    let honeypot = sign_up_with("bot@example.com", "website", "https://spam.example");
    for _ in 0..5 {
        assert_eq!(post(address, &sign_up("ada@example")).status, 422);
        assert_eq!(post(address, "{").status, 400);
        assert_eq!(post(address, &honeypot).status, 201);
    }
    for n in 0..5 {
        let reply = post(address, &sign_up(&format!("ada{n}@example.com")));
        assert_eq!(reply.status, 201, "sign-up {n} after the typos");
    }
    assert_eq!(post(address, &sign_up("ada5@example.com")).status, 429);
    assert_eq!(stored(&location).len(), 5);
}

#[test]
fn another_origin_posts_only_when_allowed_with_cors() {
    let location = sqlite();
    let allowed = "https://site.test";
    let address = collecting(
        &location,
        Settings {
            allowed_origins: vec![allowed.into()],
            ..unlimited()
        },
    );
    let preflight = send_to(
        address,
        &format!(
            "OPTIONS /api/waitlist HTTP/1.1\r\nHost: x\r\nOrigin: {allowed}\r\n\
             Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type"
        ),
    );
    assert_eq!(preflight.status, 200);
    assert_eq!(
        preflight.header("access-control-allow-origin"),
        Some(allowed)
    );
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        Some("POST")
    );
    let reply = post_with(
        address,
        &[
            "Content-Type: application/json",
            &format!("Origin: {allowed}"),
        ],
        sign_up("ada@example.com").as_bytes(),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(reply.header("access-control-allow-origin"), Some(allowed));
    let other = send_to(
        address,
        "OPTIONS /api/waitlist HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\n\
         Access-Control-Request-Method: POST",
    );
    assert_eq!(other.header("access-control-allow-origin"), None);
    assert_eq!(stored(&location).len(), 1);
}

#[test]
fn a_failing_database_gets_503_and_the_server_keeps_serving() {
    let location = sqlite();
    let address = collecting(&location, unlimited());
    assert_eq!(post(address, &sign_up("ada@example.com")).status, 201);
    // The table goes, behind the server's back.
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        sqlx::query("DROP TABLE waitlist")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });
    let reply = post(address, &sign_up("grace@example.com"));
    assert_eq!(reply.status, 503);
    assert_eq!(
        error(&reply),
        "the sign-up could not be stored just now: please try again"
    );
    assert_eq!(send_to(address, "GET / HTTP/1.1\r\nHost: x").status, 200);
}

#[test]
fn without_a_database_the_endpoint_says_it_is_not_collecting() {
    let address = common::start(Site::load(fixture(), false).unwrap());
    let reply = post(address, &sign_up("ada@example.com"));
    assert_eq!(reply.status, 503);
    assert_eq!(
        error(&reply),
        "this server is not collecting sign-ups: start it with --database"
    );
}

fn owner(location: &Location, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .arg("waitlist")
        .args(["--database", &location.display()])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_owner_exports_shows_and_erases_entries() {
    let location = sqlite();
    let address = collecting(&location, unlimited());
    for email in ["ada@example.com", "grace@example.com"] {
        assert_eq!(post(address, &sign_up(email)).status, 201);
    }
    let formula = sign_up_with(
        "eve@example.com",
        "name",
        "=HYPERLINK(\"https://evil.example\")",
    );
    assert_eq!(post(address, &formula).status, 201);

    // Without --smtp nobody confirmed anything: the default export (confirmed entries)
    // is empty, and says what it left out.
    let (ok, csv, said) = owner(&location, &["export"]);
    assert!(ok);
    assert_eq!(csv.lines().count(), 1, "{csv}");
    assert_eq!(
        said,
        "left out: 3 unconfirmed (--status all exports every entry)\n"
    );

    let (ok, csv, said) = owner(&location, &["export", "--status", "unconfirmed"]);
    assert!(ok);
    assert_eq!(said, "");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "\"email\",\"name\",\"company\",\"role\",\"interest\",\"message\",\"privacy_notice\",\"created_at\",\"repeats\",\"last_repeat_at\",\"status\",\"confirmed_at\""
    );
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with(
        "\"ada@example.com\",\"Ada Lovelace\",\"Analytical Engines\",\"CTO\",\"enterprise\",\"A booking app, please.\",\"2026-11-22\",\""
    ));
    assert!(
        lines[1].ends_with("\",\"0\",\"\",\"unconfirmed\",\"\""),
        "{}",
        lines[1]
    );
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"https://evil.example\"\")\""),
        "a formula is defused: {csv}"
    );

    let (ok, exported, _) = owner(
        &location,
        &["export", "--format", "json", "--status", "all"],
    );
    assert!(ok);
    let exported: serde_json::Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(exported.as_array().unwrap().len(), 3);
    let eve = exported
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["email"] == "eve@example.com")
        .unwrap();
    assert_eq!(eve["name"], "=HYPERLINK(\"https://evil.example\")");
    assert_eq!(exported[0]["privacy_notice"], NOTICE);

    let (ok, shown, _) = owner(&location, &["show", "GRACE@example.com"]);
    assert!(ok);
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["email"], "grace@example.com");
    assert!(shown["created_at"].as_str().unwrap().ends_with('Z'));

    let (ok, said, _) = owner(&location, &["erase", "Grace@Example.com"]);
    assert!(ok);
    assert_eq!(said, "erased the entry for Grace@Example.com\n");
    let (ok, _, said) = owner(&location, &["show", "grace@example.com"]);
    assert!(!ok);
    assert_eq!(said, "lathe-site: no entry for grace@example.com\n");
    let (ok, _, said) = owner(&location, &["erase", "grace@example.com"]);
    assert!(!ok);
    assert_eq!(said, "lathe-site: no entry for grace@example.com\n");
    let (ok, count, _) = owner(&location, &["count"]);
    assert!(ok);
    assert_eq!(count, "2\n");

    let missing: Location = "/nonexistent/folder/w.db".parse().unwrap();
    let (ok, _, said) = owner(&missing, &["count"]);
    assert!(!ok);
    assert!(
        said.starts_with("lathe-site: cannot open the database /nonexistent/folder/w.db: "),
        "{said}"
    );
}
