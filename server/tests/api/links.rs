//! Confirmed sign-ups (double opt-in) against a real SMTP server (aiosmtpd) and both
//! databases, the application in-process and its outbox's due emails sent when the test
//! says: the email and its links, confirming only by a POST, used, expired and forged
//! links, repeats, the day's limit of emails to one address, a mail server that is down,
//! slow, or refuses, a restart, two instances on one PostgreSQL, and what a visitor sees
//! and erases from the manage link.

use std::time::Duration;

use lathe_site::domain::token::{Claims, Key, Purpose};
use lathe_site::store::Location;
use lathe_site_testkit::{
    Email, Postgres, Smtp, export, json, outbox, owner, post, post_to, post_token, send_to,
    sign_up, sqlite, status_of,
};

use crate::helpers::{
    KEY, TestApp, collecting, confirming_without_mail, mail_within, sql_text, unlimited,
};

const CONFIRM: &str = "/api/waitlist/confirm";
const RESEND: &str = "/api/waitlist/resend";
const MANAGE: &str = "/api/waitlist/manage";
const ERASE: &str = "/api/waitlist/erase";

fn status_in_export(database: &Location, email: &str) -> String {
    export(database)
        .iter()
        .find(|e| e["email"] == email)
        .map_or_else(
            || "absent".into(),
            |e| e["status"].as_str().unwrap().to_owned(),
        )
}

/// What the link route at `path` answers `token`: its status and the body's `status`.
fn link(address: std::net::SocketAddr, path: &str, token: &str) -> (u16, String) {
    status_of(&post_token(address, path, token))
}

/// `claims`, signed as no server of ours signs them.
fn signed_by_another_key(claims: &Claims) -> String {
    Key::new("another key, also more than 32 bytes")
        .unwrap()
        .sign(claims)
}

/// The emails sent so far, after the outbox's due ones went.
fn delivered(app: &TestApp, smtp: &Smtp) -> Vec<Email> {
    app.deliver_due();
    smtp.messages()
}

fn confirms_by_post_only_and_a_repeat_is_told_it_is_there(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let address = app.address;
    let added = post(address, &sign_up("ada@example.com"));
    assert_eq!(
        (added.status, added.body.as_slice()),
        (201, &b"{\"status\":\"added\"}"[..])
    );

    let [email] = &delivered(&app, &smtp)[..] else {
        panic!("one email")
    };
    assert_eq!(email.to, "ada@example.com");
    assert_eq!(email.subject, "Confirm your place on the Lathe waitlist");
    let token = email.token("confirm").expect("a confirmation link");
    assert!(email.token("manage").is_some(), "a manage link");
    assert_eq!(status_in_export(database, "ada@example.com"), "pending");

    // Opening the link (what a mail scanner does) confirms nothing: the token is in the
    // fragment, and the API takes a POST only.
    assert_eq!(
        send_to(
            address,
            &format!("GET {CONFIRM}?token={token} HTTP/1.1\r\nHost: {address}")
        )
        .status,
        405
    );
    assert_eq!(status_in_export(database, "ada@example.com"), "pending");

    // The button's POST confirms; the link is then used.
    assert_eq!(link(address, CONFIRM, &token), (200, "confirmed".into()));
    assert_eq!(status_in_export(database, "ada@example.com"), "confirmed");
    let again = post_token(address, CONFIRM, &token);
    assert_eq!(status_of(&again), (409, "used".into()));

    // A repeat sign-up answers as a new one, and tells the address it is there already.
    let repeat = post(address, &sign_up("ADA@example.com"));
    assert_eq!((repeat.status, repeat.body), (added.status, added.body));
    let emails = delivered(&app, &smtp);
    assert_eq!(emails.len(), 2);
    assert_eq!(emails[1].subject, "You are already on the Lathe waitlist");
    assert!(emails[1].token("confirm").is_none());
    assert!(emails[1].token("manage").is_some());
}

#[test]
fn expired_forged_and_misused_links_explain_themselves_and_an_expired_one_is_sent_anew() {
    let database = sqlite();
    let smtp = Smtp::start();
    let app = TestApp::confirming(&database, &smtp);
    let address = app.address;
    post(address, &sign_up("bea@example.com"));
    let [email] = &delivered(&app, &smtp)[..] else {
        panic!("one email")
    };
    let token = email.token("confirm").unwrap();
    let key = Key::new(KEY).unwrap();
    let claims = key.verify(&token, Purpose::Confirm, 0).unwrap();

    // The same link, 48 hours on: signed as the server would, expired.
    let expired = key.sign(&Claims {
        expires_ms: 1,
        ..claims.clone()
    });
    assert_eq!(link(address, CONFIRM, &expired), (410, "expired".into()));
    // Asking for a new one sends it; it works.
    assert_eq!(link(address, RESEND, &expired), (202, "sent".into()));
    let emails = delivered(&app, &smtp);
    let fresh = emails[1].token("confirm").unwrap();
    assert_eq!(link(address, CONFIRM, &fresh), (200, "confirmed".into()));
    // Once confirmed, the first link is used, and no new one is sent.
    assert_eq!(link(address, CONFIRM, &token), (409, "used".into()));
    assert_eq!(link(address, RESEND, &expired), (409, "used".into()));
    assert_eq!(delivered(&app, &smtp).len(), 2);

    // Not ours: another key, an altered entry, a manage link, junk, JSON of another shape.
    let other = signed_by_another_key(&claims);
    let manage = email.token("manage").unwrap();
    for forged in [
        other.as_str(),
        &token.replacen(".c.", ".m.", 1),
        &manage,
        "v1",
        "",
    ] {
        assert_eq!(
            link(address, CONFIRM, forged),
            (400, "invalid".into()),
            "{forged}"
        );
    }
    let origin = format!("Origin: http://{address}");
    for body in [&b"{\"link\":\"x\"}"[..], b"[]", b"{"] {
        let reply = post_to(
            address,
            CONFIRM,
            &["Content-Type: application/json", &origin],
            body,
        );
        assert_eq!(status_of(&reply), (400, "invalid".into()));
    }
    // A link whose entry is gone.
    let gone = key.sign(&Claims {
        entry: "AAAAAAAAAAAAAAAAAAAAAA".into(),
        ..claims
    });
    assert_eq!(link(address, CONFIRM, &gone), (404, "unknown".into()));
}

#[test]
fn a_link_request_that_is_not_json_too_large_or_from_elsewhere_is_refused_as_a_links() {
    let database = sqlite();
    let app = TestApp::start(confirming_without_mail(&database));
    let address = app.address;
    let origin = format!("Origin: http://{address}");
    for path in [CONFIRM, RESEND, MANAGE, ERASE] {
        let not_json = post_to(address, path, &["Content-Type: text/plain", &origin], b"x");
        assert_eq!(
            (not_json.status, json(&not_json)["error"].as_str()),
            (
                415,
                Some("send the link's token as JSON (Content-Type: application/json)")
            ),
            "{path}"
        );
        assert_eq!(not_json.header("cache-control"), Some("no-store"));
        let large = format!("{{\"token\":\"{}\"}}", "x".repeat(2000));
        let too_large = post_to(
            address,
            path,
            &["Content-Type: application/json", &origin],
            large.as_bytes(),
        );
        assert_eq!(too_large.status, 413, "{path}");
        let elsewhere = post_to(
            address,
            path,
            &[
                "Content-Type: application/json",
                "Origin: https://evil.example",
            ],
            b"{\"token\":\"x\"}",
        );
        assert_eq!(elsewhere.status, 403, "{path}");
    }
}

fn ten_sign_ups_for_one_address_send_it_three_emails(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    for _ in 0..10 {
        assert_eq!(
            post(app.address, &sign_up("victim@example.com")).status,
            201
        );
    }
    assert_eq!(app.deliver_due(), 3, "three queued, the rest not");
    assert_eq!(smtp.messages().len(), 3);
    assert_eq!(outbox(database), (0, 3, 0));
}

/// Ten sign-ups at once for one address: still three emails.
fn ten_sign_ups_at_once_for_one_address_send_it_three_emails(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let barrier = std::sync::Barrier::new(10);
    std::thread::scope(|scope| {
        for _ in 0..10 {
            let (barrier, address) = (&barrier, app.address);
            scope.spawn(move || {
                barrier.wait();
                assert_eq!(post(address, &sign_up("racer@example.com")).status, 201);
            });
        }
    });
    assert_eq!(app.deliver_due(), 3, "three queued, the rest not");
    assert_eq!(outbox(database), (0, 3, 0));
}

#[test]
fn a_mail_server_that_is_down_delays_every_email_and_a_restart_loses_none() {
    let database = sqlite();
    let mut smtp = Smtp::down_at_first();
    let addresses: Vec<String> = (0..5).map(|i| format!("early{i}@example.com")).collect();
    {
        let app = TestApp::confirming(&database, &smtp);
        for email in &addresses {
            assert_eq!(post(app.address, &sign_up(email)).status, 201);
        }
        // Each is tried, fails, and waits for its next attempt.
        assert_eq!(app.deliver_due(), 5);
        assert_eq!(
            sql_text(
                &database,
                "SELECT COUNT(*) FROM outbox WHERE attempts = 1 AND last_error IS NOT NULL"
            ),
            "5"
        );
        assert_eq!(outbox(&database), (5, 0, 0));
    } // the server stops here, with every email unsent
    smtp.up();
    let app = TestApp::confirming(&database, &smtp);
    let more = "late@example.com";
    assert_eq!(post(app.address, &sign_up(more)).status, 201);
    // The new one goes at once; the others once their backoff (a second) is over.
    assert_eq!(app.deliver_due(), 1);
    assert_eq!(app.deliver_due_at(lathe_site::now_ms() + 60_000), 5);
    assert_eq!(outbox(&database), (0, 6, 0));
    let mut to: Vec<String> = smtp.messages().into_iter().map(|e| e.to).collect();
    to.sort();
    let mut expected = addresses.clone();
    expected.push(more.into());
    expected.sort();
    assert_eq!(to, expected, "each once");
}

/// On PostgreSQL a sign-up is one statement, which counts the day's emails as they were
/// when it began. Two sign-ups, then eight repeats of the address made to wait for its
/// row together (another connection holds it), so that all eight begin before any ends:
/// still three emails, each repeat counting those before it. (Counted in the statement,
/// each of the eight counted two and queued one: ten.)
#[test]
fn on_postgresql_repeats_that_wait_for_one_row_still_send_three_emails() {
    let postgres = Postgres::start();
    let smtp = Smtp::start();
    let app = TestApp::confirming(&postgres.location, &smtp);
    for _ in 0..2 {
        assert_eq!(post(app.address, &sign_up("held@example.com")).status, 201);
    }
    let address = app.address;
    crate::helpers::run(async {
        use sqlx::Connection as _;
        let url = &postgres.location.url;
        let mut holder = sqlx::AnyConnection::connect(url).await.unwrap();
        let mut watcher = sqlx::AnyConnection::connect(url).await.unwrap();
        let mut tx = holder.begin().await.unwrap();
        sqlx::query("SELECT 1 FROM waitlist WHERE email_key = 'held@example.com' FOR UPDATE")
            .fetch_all(&mut *tx)
            .await
            .unwrap();
        let repeats: Vec<_> = (0..8)
            .map(|_| {
                tokio::task::spawn_blocking(move || post(address, &sign_up("held@example.com")))
            })
            .collect();
        // Until all eight wait for the row.
        loop {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
            )
            .fetch_one(&mut watcher)
            .await
            .unwrap();
            if waiting == 8 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tx.commit().await.unwrap();
        for repeat in repeats {
            assert_eq!(repeat.await.unwrap().status, 201);
        }
    });
    assert_eq!(app.deliver_due(), 3, "three queued, the rest not");
    assert_eq!(outbox(&postgres.location), (0, 3, 0));
}

#[test]
fn two_instances_on_one_postgresql_send_one_email_per_sign_up() {
    let postgres = Postgres::start();
    let smtp = Smtp::start();
    let (a, b) = (
        TestApp::confirming(&postgres.location, &smtp),
        TestApp::confirming(&postgres.location, &smtp),
    );
    let addresses: Vec<String> = (0..30).map(|i| format!("pair{i}@example.com")).collect();
    for (i, email) in addresses.iter().enumerate() {
        let app = if i % 2 == 0 { &a } else { &b };
        assert_eq!(post(app.address, &sign_up(email)).status, 201);
    }
    // Both workers at once, on the same outbox: each email is claimed by one.
    let tried = std::thread::scope(|scope| {
        let from_a = scope.spawn(|| a.deliver_due());
        let from_b = scope.spawn(|| b.deliver_due());
        from_a.join().unwrap() + from_b.join().unwrap()
    });
    assert_eq!(tried, 30);
    assert_eq!(outbox(&postgres.location), (0, 30, 0));
    let mut to: Vec<String> = smtp.messages().into_iter().map(|e| e.to).collect();
    to.sort();
    let mut expected = addresses;
    expected.sort();
    assert_eq!(to, expected);
}

fn a_visitor_sees_downloads_and_erases_their_entry(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let address = app.address;
    post(address, &sign_up("cleo@example.com"));
    post(address, &sign_up("dan@example.com"));
    let emails = delivered(&app, &smtp);
    let cleo = emails.iter().find(|e| e.to == "cleo@example.com").unwrap();
    let manage = cleo.token("manage").unwrap();

    // What is stored, as the owner's export has it.
    let shown = post_token(address, MANAGE, &manage);
    assert_eq!(shown.status, 200);
    let shown = json(&shown);
    assert_eq!(shown["status"], "found");
    let exported = export(database);
    let stored = exported
        .iter()
        .find(|e| e["email"] == "cleo@example.com")
        .unwrap();
    assert_eq!(&shown["entry"], stored);
    assert_eq!(shown["entry"]["name"], "Ada Lovelace");
    assert_eq!(shown["entry"]["status"], "pending");

    // Only a manage link of ours opens it: not the confirmation link, not another key's.
    let confirm = cleo.token("confirm").unwrap();
    let key = Key::new(KEY).unwrap();
    let claims = key.verify(&manage, Purpose::Manage, 0).unwrap();
    let other = signed_by_another_key(&claims);
    for path in [MANAGE, ERASE] {
        for wrong in [confirm.as_str(), other.as_str(), "junk"] {
            assert_eq!(
                link(address, path, wrong),
                (400, "invalid".into()),
                "{path} {wrong}"
            );
        }
    }
    assert_eq!(export(database).len(), 2);

    // Erased on the owner's press: the entry and the emails queued to it go; the erasure
    // is recorded, with nothing about whose it was.
    assert_eq!(link(address, ERASE, &manage), (200, "erased".into()));
    let left: Vec<String> = export(database)
        .iter()
        .map(|e| e["email"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(left, ["dan@example.com"]);
    let (ok, shown, _) = owner(database, &["show", "cleo@example.com"]);
    assert!(!ok, "{shown}");
    for path in [MANAGE, ERASE] {
        assert_eq!(link(address, path, &manage), (404, "unknown".into()));
    }
    // The confirmation link of an erased entry confirms nothing.
    assert_eq!(link(address, CONFIRM, &confirm), (404, "unknown".into()));
    assert_eq!(
        sql_text(database, "SELECT erased_by FROM erasures"),
        "visitor"
    );
    let queued_to_cleo = "SELECT COUNT(*) FROM outbox WHERE email_key = 'cleo@example.com'";
    assert_eq!(sql_text(database, queued_to_cleo), "0");
}

#[test]
fn an_entry_erased_before_its_email_goes_gets_none() {
    let database = sqlite();
    let smtp = Smtp::start();
    let app = TestApp::confirming(&database, &smtp);
    post(app.address, &sign_up("gone@example.com"));
    let (ok, _, err) = owner(&database, &["erase", "gone@example.com"]);
    assert!(ok, "{err}");
    assert_eq!(app.deliver_due(), 0, "the email went with its entry");
    assert!(smtp.messages().is_empty());
}

#[test]
fn the_server_says_at_start_whether_it_confirms_addresses() {
    use crate::helpers::{collecting, mail, unlimited};
    use lathe_site::startup::Application;
    let database = sqlite();
    let said = |config| {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async { Application::build(config).await.unwrap().said().join("\n") })
    };
    let quiet = said(collecting(&database, unlimited()));
    assert!(
        quiet.contains("no --smtp: addresses are stored unconfirmed, and no email is sent\n"),
        "{quiet}"
    );
    let smtp = Smtp::start();
    let mut config = collecting(&database, unlimited());
    config.waitlist.as_mut().unwrap().mail = Some(mail(&smtp));
    let confirming = said(config);
    assert!(
        confirming.contains("confirming addresses by email (--smtp)\n"),
        "{confirming}"
    );
    assert!(!confirming.contains("no --smtp"), "{confirming}");
    assert!(
        confirming.ends_with(&format!(
            "collecting sign-ups at POST /api/waitlist into {}",
            database.display()
        )),
        "{confirming}"
    );
}

#[test]
fn a_mail_server_too_slow_to_answer_delays_an_email_which_then_goes_once() {
    let database = sqlite();
    let smtp = Smtp::start();
    // A timeout of 1 s (--smtp-timeout) rather than the default 10 s: the same path, sooner.
    let timeout = Duration::from_secs(1);
    let mut config = collecting(&database, unlimited());
    config.waitlist.as_mut().unwrap().mail = Some(mail_within(&smtp, timeout));
    let app = TestApp::start(config);
    assert_eq!(post(app.address, &sign_up("slow@example.com")).status, 201);
    // The first try waits for the timeout (the sink answers slow@ after 15 s), and is given up.
    let started = std::time::Instant::now();
    assert_eq!(app.deliver_due(), 1);
    assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
    assert_eq!(
        sql_text(
            &database,
            "SELECT attempts || ' ' || last_error FROM outbox"
        ),
        "1 the mail server failed: no answer within 1s"
    );
    assert!(smtp.messages().is_empty());
    // Its next try, after the backoff, goes through, once.
    assert_eq!(app.deliver_due_at(lathe_site::now_ms() + 60_000), 1);
    assert_eq!(outbox(&database), (0, 1, 0));
    let to: Vec<String> = smtp.messages().into_iter().map(|e| e.to).collect();
    assert_eq!(to, ["slow@example.com"]);
}

lathe_site_testkit::on_both_databases!(
    ten_sign_ups_for_one_address_send_it_three_emails,
    ten_sign_ups_at_once_for_one_address_send_it_three_emails,
    confirms_by_post_only_and_a_repeat_is_told_it_is_there,
    a_visitor_sees_downloads_and_erases_their_entry,
);
