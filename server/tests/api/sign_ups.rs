//! `POST /api/waitlist` against real databases: a SQLite file, and a PostgreSQL cluster
//! of its own (scripts/postgres.sh, from Debian's `postgresql` package). Requests go
//! over raw sockets, byte for byte; what was stored is read back with a separate
//! connection, or with the owner's own `lathe-site waitlist` commands.

use std::num::NonZeroU32;

use lathe_site::store::Location;
use lathe_site::waitlist::Settings;
use lathe_site_testkit::{
    NOTICE, Reply, error, json, post, post_with, send_to, sign_up, sign_up_with, sqlite,
};

use crate::helpers::{TestApp, sql, stored, unlimited};

/// A sign-up lands as a row. The same address again (in another case, or another Unicode
/// form) leaves the entry as it was, is counted with its time, and is answered byte for
/// byte as a new sign-up: no one learns that an address is on the list, or rewrites it.
fn a_repeat_sign_up_leaves_the_entry_and_answers_as_a_new_one(location: &Location) {
    let app = TestApp::collecting(location, unlimited());
    let address = app.address;
    let first = post(address, &sign_up("Jos\u{e9}@Example.com"));
    assert_eq!(first.status, 201, "{}", first.text());
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

/// N concurrent sign-ups in, N rows out, each answered 201.
fn two_hundred_concurrent_sign_ups_make_two_hundred_rows(location: &Location) {
    const CLIENTS: usize = 50;
    const EACH: usize = 4;
    let app = TestApp::collecting(location, unlimited());
    let address = app.address;
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
#[expect(clippy::too_many_lines, reason = "one table of cases")]
fn bad_input_gets_a_clear_refusal_and_stores_nothing() {
    let location = sqlite();
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
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
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
    let body = serde_json::json!({
        "name": " \u{3000}", "email": "ada@example", "message": "", "privacyNotice": NOTICE,
    });
    let reply = post(address, &body.to_string());
    assert_eq!(reply.status, 422);
    assert_eq!(
        json(&reply),
        serde_json::json!({
            "error": "the sign-up breaks the form's rules",
            "reason": "breaks-rules",
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
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
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
    let app = TestApp::collecting(&location, settings(0));
    let address = app.address;
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
    let proxied_app = TestApp::collecting(&sqlite(), settings(1));
    let proxied = proxied_app.address;
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
    let direct_app = TestApp::collecting(&sqlite(), settings(0));
    let direct = direct_app.address;
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
    let app = TestApp::collecting(
        &location,
        Settings {
            per_minute: NonZeroU32::new(5),
            ..Settings::default()
        },
    );
    let address = app.address;
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
    let app = TestApp::collecting(
        &location,
        Settings {
            allowed_origins: vec![allowed.into()],
            ..unlimited()
        },
    );
    let address = app.address;
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
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
    assert_eq!(post(address, &sign_up("ada@example.com")).status, 201);
    // The table goes, behind the server's back.
    sql(&location, "DROP TABLE waitlist");
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
    let app = TestApp::site();
    let reply = post(app.address, &sign_up("ada@example.com"));
    assert_eq!(reply.status, 503);
    assert_eq!(
        error(&reply),
        "this server is not collecting sign-ups: start it with --database"
    );
}

/// Above 60,000 a minute the allowance's interval was 0 ms, so a sign-up that reached the
/// database a millisecond after a later one was refused although the client had most of
/// its burst left. Kept in µs, it is exact to 60,000,000 a minute: sign-ups out of their
/// order share the burst, and the burst's end is where it should be.
fn an_allowance_of_any_size_takes_sign_ups_out_of_order(database: &Location) {
    use lathe_site::store::{MAX_PER_MINUTE, Store};
    crate::helpers::run(async {
        let store = Store::open(database).await.unwrap();
        let admit = async |client: &str, per_minute: u32, now_us: i64| {
            store
                .admit(client, NonZeroU32::new(per_minute).unwrap(), now_us)
                .await
                .unwrap()
        };
        let t = 1_800_000_000_000_000_i64;
        for per_minute in [120_000, 6_000_000, MAX_PER_MINUTE] {
            let client = format!("client at {per_minute}");
            assert_eq!(admit(&client, per_minute, t).await, None);
            assert_eq!(
                admit(&client, per_minute, t - 1000).await,
                None,
                "1 ms earlier"
            );
            assert_eq!(
                admit(&client, per_minute, t - 1).await,
                None,
                "1 µs earlier"
            );
        }
        // Seven a minute: a burst of seven at one instant, then the eighth waits 60 s / 7.
        let client = "a whole burst";
        for n in 0..7 {
            assert_eq!(admit(client, 7, t).await, None, "sign-up {n} of the burst");
        }
        // 8,571,428 µs: exact to the microsecond.
        assert_eq!(admit(client, 7, t).await, Some(8_571_428));
        assert_eq!(admit(client, 7, t + 8_571_428).await, None);
        store.close().await;
    });
}

lathe_site_testkit::on_both_databases!(
    a_repeat_sign_up_leaves_the_entry_and_answers_as_a_new_one,
    two_hundred_concurrent_sign_ups_make_two_hundred_rows,
    an_allowance_of_any_size_takes_sign_ups_out_of_order,
);

#[test]
fn on_postgresql_two_servers_share_one_clients_allowance_and_keep_no_address() {
    let postgres = lathe_site_testkit::Postgres::start();
    let settings = || Settings {
        per_minute: NonZeroU32::new(5),
        ..Settings::default()
    };
    let (a, b) = (
        TestApp::collecting(&postgres.location, settings()),
        TestApp::collecting(&postgres.location, settings()),
    );
    let statuses: Vec<u16> = (0..10)
        .map(|n| {
            let app = if n % 2 == 0 { &a } else { &b };
            post(app.address, &sign_up(&format!("shared{n}@example.com"))).status
        })
        .collect();
    assert_eq!(
        statuses,
        [201, 201, 201, 201, 201, 429, 429, 429, 429, 429],
        "5 across both, not 10"
    );
    let refused = post(b.address, &sign_up("one.more@example.com"));
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=12).contains(&retry), "one sign-up every 12 s: {retry}");
    assert_eq!(stored(&postgres.location).len(), 5);
    let kept = crate::helpers::sql_text(&postgres.location, "SELECT client FROM allowances");
    assert!(
        !kept.contains("127.0.0.1") && kept.len() > 20,
        "a keyed hash: {kept}"
    );
}
