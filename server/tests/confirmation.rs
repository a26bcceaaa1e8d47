//! Confirmed sign-ups (double opt-in) against a real SMTP server (aiosmtpd, started by
//! the tests) and both databases: the email and its links, confirming only by a POST,
//! used, expired and forged links, repeats, the day's limit of emails to one address,
//! a mail server that is down and then up, a restart, and two instances on one
//! PostgreSQL.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lathe_site::store::Location;
use lathe_site::token::{Claims, Key, Purpose};

mod common;
use common::{Postgres, Reply, Server, free_port, post, post_with, send_to, sign_up, sqlite};

const KEY: &str = "a test key of more than thirty-two bytes";

/// aiosmtpd on loopback, writing each message it accepts into a folder.
struct Smtp {
    port: u16,
    folder: PathBuf,
    child: Option<Child>,
}

impl Smtp {
    fn start() -> Self {
        let folder =
            std::env::temp_dir().join(format!("lathe-smtp-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&folder).unwrap();
        let mut smtp = Self {
            port: free_port(),
            folder,
            child: None,
        };
        smtp.up();
        smtp
    }

    /// A port where no mail server listens yet: [`Smtp::up`] starts it there.
    fn down_at_first() -> Self {
        let smtp = Self::start();
        let mut smtp = smtp;
        smtp.down();
        smtp
    }

    fn up(&mut self) {
        // Debian's package is for Debian's Python; pip's for whichever is first on PATH.
        let python = ["/usr/bin/python3", "python3"]
            .into_iter()
            .find(|python| {
                Command::new(python)
                    .args(["-c", "import aiosmtpd"])
                    .status()
                    .is_ok_and(|s| s.success())
            })
            .expect("a Python with aiosmtpd (scripts/setup.sh installs python3-aiosmtpd)");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/smtp_sink.py");
        let child = Command::new(python)
            .args([
                script,
                self.folder.to_str().unwrap(),
                &self.port.to_string(),
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        wait_for("the SMTP server", Duration::from_secs(20), || {
            std::net::TcpStream::connect(address).is_ok()
        });
    }

    fn down(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message received, oldest first.
    fn messages(&self) -> Vec<String> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "eml"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    }

    /// Waits until `n` messages have come, and returns them.
    fn wait_for_messages(&self, n: usize) -> Vec<String> {
        wait_for(&format!("{n} emails"), Duration::from_secs(30), || {
            self.messages().len() >= n
        });
        self.messages()
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        self.down();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "no {what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The server, confirming addresses through `smtp`.
fn confirming(database: &Location, smtp: &Smtp) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command.env("LATHE_TOKEN_KEY", KEY);
    Server::start_with(
        command,
        Some(database),
        &[
            "--smtp",
            &smtp.url(),
            "--mail-from",
            "Lathe <hello@example.com>",
            "--site-url",
            "https://lathe.example.com",
        ],
    )
}

/// An email's recipient, subject, and the token of its link to `page`.
struct Email {
    to: String,
    subject: String,
    text: String,
}

impl Email {
    fn parse(raw: &str) -> Self {
        let header = |name: &str| {
            raw.lines()
                .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let body = raw.split_once("\r\n\r\n").map_or(raw, |(_, b)| b);
        Self {
            to: header("X-Envelope-To"),
            subject: header("Subject"),
            text: quoted_printable(&body.replace("\r\n", "\n")),
        }
    }

    /// The token of its link to `page` (`confirm` or `manage`).
    fn token(&self, page: &str) -> Option<String> {
        let prefix = format!("https://lathe.example.com/{page}#");
        self.text
            .lines()
            .find_map(|line| line.trim().strip_prefix(&prefix))
            .map(str::to_owned)
    }
}

/// The text of a quoted-printable body (RFC 2045 §6.7), as a mail client shows it: soft
/// line breaks (`=` at the end of a line) joined, `=XX` bytes decoded.
fn quoted_printable(body: &str) -> String {
    let joined = body.replace("=\n", "");
    let mut bytes = Vec::with_capacity(joined.len());
    let mut rest = joined.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if let (b'=', Some(hex)) = (byte, tail.get(..2)) {
            let hex = std::str::from_utf8(hex).unwrap();
            bytes.push(u8::from_str_radix(hex, 16).unwrap());
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).unwrap()
}

fn emails(smtp: &Smtp, n: usize) -> Vec<Email> {
    smtp.wait_for_messages(n)
        .iter()
        .map(|raw| Email::parse(raw))
        .collect()
}

fn post_token(address: SocketAddr, path: &str, token: &str) -> Reply {
    let body = serde_json::json!({ "token": token }).to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Origin: http://{address}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    common::send_bytes(address, request.as_bytes())
}

fn status_of(reply: &Reply) -> (u16, String) {
    let json: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    (
        reply.status,
        json["status"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The entries as the owner exports them (JSON), every status.
fn export(database: &Location) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["waitlist", "--database", &database.display()])
        .args(["export", "--format", "json", "--status", "all"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn status_in_export(database: &Location, email: &str) -> String {
    export(database)
        .iter()
        .find(|e| e["email"] == email)
        .map_or_else(
            || "absent".into(),
            |e| e["status"].as_str().unwrap().to_owned(),
        )
}

fn confirms_by_post_only(database: &Location) {
    let smtp = Smtp::start();
    let server = confirming(database, &smtp);
    let address = server.address;
    let added = post(address, &sign_up("ada@example.com"));
    assert_eq!(
        (added.status, added.body.as_slice()),
        (201, &b"{\"status\":\"added\"}"[..])
    );

    let [email] = &emails(&smtp, 1)[..] else {
        unreachable!()
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
            &format!("GET /api/waitlist/confirm?token={token} HTTP/1.1\r\nHost: {address}")
        )
        .status,
        405
    );
    assert_eq!(status_in_export(database, "ada@example.com"), "pending");

    // The button's POST confirms; the link is then used.
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &token)),
        (200, "confirmed".into())
    );
    assert_eq!(status_in_export(database, "ada@example.com"), "confirmed");
    let again = post_token(address, "/api/waitlist/confirm", &token);
    assert_eq!(status_of(&again), (409, "used".into()));

    // A repeat sign-up answers as a new one, and tells the address it is there already.
    let repeat = post(address, &sign_up("ADA@example.com"));
    assert_eq!((repeat.status, repeat.body), (added.status, added.body));
    let emails = emails(&smtp, 2);
    assert_eq!(emails[1].subject, "You are already on the Lathe waitlist");
    assert!(emails[1].token("confirm").is_none());
    assert!(emails[1].token("manage").is_some());
}

#[test]
fn sqlite_confirms_by_post_only_and_a_repeat_is_told_it_is_there() {
    confirms_by_post_only(&sqlite());
}

#[test]
fn postgres_confirms_by_post_only_and_a_repeat_is_told_it_is_there() {
    let postgres = Postgres::start();
    confirms_by_post_only(&postgres.location);
}

#[test]
fn expired_forged_and_misused_links_explain_themselves_and_an_expired_one_is_sent_anew() {
    let database = sqlite();
    let smtp = Smtp::start();
    let server = confirming(&database, &smtp);
    let address = server.address;
    post(address, &sign_up("bea@example.com"));
    let [email] = &emails(&smtp, 1)[..] else {
        unreachable!()
    };
    let token = email.token("confirm").unwrap();
    let key = Key::new(KEY).unwrap();
    let claims = key.verify(&token, Purpose::Confirm, 0).unwrap();

    // The same link, 48 hours on: signed as the server would, expired.
    let expired = key.sign(&Claims {
        expires_ms: 1,
        ..claims.clone()
    });
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &expired)),
        (410, "expired".into())
    );
    // Asking for a new one sends it; it works.
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/resend", &expired)),
        (202, "sent".into())
    );
    let emails = emails(&smtp, 2);
    let fresh = emails[1].token("confirm").unwrap();
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &fresh)),
        (200, "confirmed".into())
    );
    // Once confirmed, the first link is used, and no new one is sent.
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &token)),
        (409, "used".into())
    );
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/resend", &expired)),
        (409, "used".into())
    );

    // Not ours: another key, an altered entry, a manage link, junk, no JSON.
    let other = Key::new("another key, also more than 32 bytes")
        .unwrap()
        .sign(&claims);
    let manage = email.token("manage").unwrap();
    for forged in [
        other.as_str(),
        &token.replacen(".c.", ".m.", 1),
        &manage,
        "v1",
        "",
    ] {
        assert_eq!(
            status_of(&post_token(address, "/api/waitlist/confirm", forged)),
            (400, "invalid".into()),
            "{forged}"
        );
    }
    let not_json = post_with(address, &["Content-Type: text/plain"], b"x");
    assert_eq!(not_json.status, 415);
    // A link whose entry is gone.
    let gone = key.sign(&Claims {
        entry: "AAAAAAAAAAAAAAAAAAAAAA".into(),
        ..claims
    });
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &gone)),
        (404, "unknown".into())
    );
}

#[test]
fn ten_sign_ups_for_one_address_send_it_three_emails() {
    let database = sqlite();
    let smtp = Smtp::start();
    let server = confirming(&database, &smtp);
    for _ in 0..10 {
        assert_eq!(
            post(server.address, &sign_up("victim@example.com")).status,
            201
        );
    }
    assert_eq!(emails(&smtp, 3).len(), 3);
    // Every queued email has gone: the outbox holds those three, sent, and nothing more.
    wait_for("the outbox to empty", Duration::from_secs(10), || {
        outbox(&database) == (0, 3, 0)
    });
    assert_eq!(smtp.messages().len(), 3);
}

/// The owner's view of the outbox: (queued, sent, failed).
fn outbox(database: &Location) -> (u64, u64, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["waitlist", "--database", &database.display(), "outbox"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let number = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    (number("queued"), number("sent"), number("failed"))
}

fn sqlite3(database: &Location, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(database.display())
        .arg(sql)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn a_mail_server_that_is_down_delays_every_email_and_a_restart_loses_none() {
    let database = sqlite();
    let mut smtp = Smtp::down_at_first();
    let addresses: Vec<String> = (0..5).map(|i| format!("early{i}@example.com")).collect();
    {
        let server = confirming(&database, &smtp);
        for email in &addresses {
            assert_eq!(post(server.address, &sign_up(email)).status, 201);
        }
        // Each was tried and failed, and waits for its next attempt.
        wait_for("failed attempts", Duration::from_secs(10), || {
            sqlite3(
                &database,
                "SELECT COUNT(*) FROM outbox WHERE attempts > 0 AND last_error IS NOT NULL",
            ) == "5"
        });
    } // the server stops here, with every email unsent
    smtp.up();
    let server = confirming(&database, &smtp);
    let more = "late@example.com";
    assert_eq!(post(server.address, &sign_up(more)).status, 201);
    let mut to: Vec<String> = emails(&smtp, 6).into_iter().map(|e| e.to).collect();
    wait_for("the outbox to empty", Duration::from_secs(10), || {
        outbox(&database) == (0, 6, 0)
    });
    to = {
        let mut all: Vec<String> = smtp.messages().iter().map(|m| Email::parse(m).to).collect();
        all.sort();
        assert_eq!(all.len(), to.len(), "an email went twice");
        all
    };
    let mut expected = addresses.clone();
    expected.push(more.into());
    expected.sort();
    assert_eq!(to, expected);
}

#[test]
fn two_instances_on_one_postgresql_send_one_email_per_sign_up() {
    let postgres = Postgres::start();
    let smtp = Smtp::start();
    let (a, b) = (
        confirming(&postgres.location, &smtp),
        confirming(&postgres.location, &smtp),
    );
    let addresses: Vec<String> = (0..30).map(|i| format!("pair{i}@example.com")).collect();
    for (i, email) in addresses.iter().enumerate() {
        let server = if i % 2 == 0 { &a } else { &b };
        assert_eq!(post(server.address, &sign_up(email)).status, 201);
    }
    emails(&smtp, 30);
    // Every email marked sent (after its message was received): any sent twice is there.
    wait_for("the outbox to empty", Duration::from_secs(10), || {
        outbox(&postgres.location) == (0, 30, 0)
    });
    let mut to: Vec<String> = smtp.messages().iter().map(|m| Email::parse(m).to).collect();
    to.sort();
    let mut expected = addresses;
    expected.sort();
    assert_eq!(to, expected);
}

/// The owner's `lathe-site waitlist ARGS`: (success, standard output, standard error).
fn owner(database: &Location, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["waitlist", "--database", &database.display()])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn manages_and_erases(database: &Location) {
    let smtp = Smtp::start();
    let server = confirming(database, &smtp);
    let address = server.address;
    post(address, &sign_up("cleo@example.com"));
    post(address, &sign_up("dan@example.com"));
    let emails = emails(&smtp, 2);
    let cleo = emails.iter().find(|e| e.to == "cleo@example.com").unwrap();
    let manage = cleo.token("manage").unwrap();

    // What is stored, as the owner's export has it.
    let shown = post_token(address, "/api/waitlist/manage", &manage);
    assert_eq!(shown.status, 200);
    let shown = common::json(&shown);
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
    let other = Key::new("another key, also more than 32 bytes")
        .unwrap()
        .sign(&claims);
    for path in ["/api/waitlist/manage", "/api/waitlist/erase"] {
        for wrong in [confirm.as_str(), other.as_str(), "junk"] {
            assert_eq!(
                status_of(&post_token(address, path, wrong)),
                (400, "invalid".into()),
                "{path} {wrong}"
            );
        }
    }
    assert_eq!(export(database).len(), 2);

    // Erased on the owner's press: the entry and the emails queued to it go; the erasure
    // is recorded, with nothing about whose it was.
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/erase", &manage)),
        (200, "erased".into())
    );
    let left: Vec<String> = export(database)
        .iter()
        .map(|e| e["email"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(left, ["dan@example.com"]);
    let (ok, shown, _) = owner(database, &["show", "cleo@example.com"]);
    assert!(!ok, "{shown}");
    for path in ["/api/waitlist/manage", "/api/waitlist/erase"] {
        assert_eq!(
            status_of(&post_token(address, path, &manage)),
            (404, "unknown".into())
        );
    }
    // The confirmation link of an erased entry confirms nothing.
    assert_eq!(
        status_of(&post_token(address, "/api/waitlist/confirm", &confirm)),
        (404, "unknown".into())
    );
}

#[test]
fn sqlite_a_visitor_sees_downloads_and_erases_their_entry() {
    let database = sqlite();
    manages_and_erases(&database);
    assert_eq!(
        sqlite3(&database, "SELECT erased_by FROM erasures"),
        "visitor"
    );
    assert_eq!(
        sqlite3(
            &database,
            "SELECT COUNT(*) FROM outbox WHERE email_key = 'cleo@example.com'"
        ),
        "0"
    );
}

#[test]
fn postgres_a_visitor_sees_downloads_and_erases_their_entry() {
    let postgres = Postgres::start();
    manages_and_erases(&postgres.location);
}

/// A time, as `--as-of` takes it.
fn as_of(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap());
    humantime::format_rfc3339_millis(at).to_string()
}

fn purge(database: &Location, at: i64, dry_run: bool) -> (String, String) {
    let at = as_of(at);
    let mut args = vec!["purge", "--as-of", &at];
    if dry_run {
        args.push("--dry-run");
    }
    let (ok, out, err) = owner(database, &args);
    assert!(ok, "{err}");
    (out, err)
}

const DAY: i64 = 24 * 60 * 60 * 1000;

/// Runs `statement` on `database`, through a connection of its own.
fn sql(database: &Location, statement: &str) {
    sqlx::any::install_default_drivers();
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
        sqlx::query(statement).execute(&pool).await.unwrap();
        pool.close().await;
    });
}

fn purges_what_is_due(database: &Location) {
    let smtp = Smtp::start();
    {
        let server = confirming(database, &smtp);
        for email in ["kept@example.com", "late@example.com"] {
            post(server.address, &sign_up(email));
        }
        let emails = emails(&smtp, 2);
        let kept = emails.iter().find(|e| e.to == "kept@example.com").unwrap();
        assert_eq!(
            status_of(&post_token(
                server.address,
                "/api/waitlist/confirm",
                &kept.token("confirm").unwrap()
            ))
            .0,
            200
        );
    }
    {
        // One more, stored by a server that sends no email.
        let server = Server::start(Some(database), &[]);
        post(server.address, &sign_up("quiet@example.com"));
    }
    // A known clock: signed up at T, the confirmed one's last interaction at T + 1 day.
    let t = 1_795_000_000_000_i64;
    sql(
        database,
        &format!("UPDATE waitlist SET created_at = {t}, last_interaction_at = {t}"),
    );
    sql(
        database,
        &format!(
            "UPDATE waitlist SET last_interaction_at = {} WHERE email_key = 'kept@example.com'",
            t + DAY
        ),
    );
    let all = || {
        let mut emails: Vec<String> = export(database)
            .iter()
            .map(|e| e["email"].as_str().unwrap().to_owned())
            .collect();
        emails.sort();
        emails
    };

    // 7 days less a millisecond: nothing is due.
    assert_eq!(purge(database, t + 7 * DAY - 1, false).0, "");
    assert_eq!(all().len(), 3);
    // 7 days: the address nobody confirmed; a dry run shows it and deletes nothing.
    let (out, err) = purge(database, t + 7 * DAY, true);
    assert_eq!(out, "late@example.com\tunconfirmed\n");
    assert!(
        err.contains("would purge 1 never confirmed, 0 inactive"),
        "{err}"
    );
    assert_eq!(all().len(), 3);
    let (out, _) = purge(database, t + 7 * DAY, false);
    assert_eq!(out, "late@example.com\tunconfirmed\n");
    assert_eq!(all(), ["kept@example.com", "quiet@example.com"]);

    // 2 years after the last interaction (the rule counts 732 days): the unconfirmed
    // entry first, the confirmed one a day later.
    assert_eq!(purge(database, t + 732 * DAY - 1, false).0, "");
    assert_eq!(
        purge(database, t + 732 * DAY, false).0,
        "quiet@example.com\tretention\n"
    );
    assert_eq!(purge(database, t + 733 * DAY - 1, false).0, "");
    assert_eq!(
        purge(database, t + 733 * DAY, false).0,
        "kept@example.com\tretention\n"
    );
    assert!(all().is_empty());
}

#[test]
fn sqlite_purge_deletes_exactly_what_is_due_as_the_clock_moves() {
    let database = sqlite();
    purges_what_is_due(&database);
    assert_eq!(
        sqlite3(
            &database,
            "SELECT erased_by, COUNT(*) FROM erasures GROUP BY erased_by ORDER BY erased_by"
        ),
        "retention|2\nunconfirmed|1"
    );
    // The emails sent (over a day before the last purge) are gone too.
    assert_eq!(sqlite3(&database, "SELECT COUNT(*) FROM outbox"), "0");
}

#[test]
fn postgres_purge_deletes_exactly_what_is_due_as_the_clock_moves() {
    let postgres = Postgres::start();
    purges_what_is_due(&postgres.location);
}

#[test]
fn the_server_purges_when_it_starts() {
    let database = sqlite();
    let smtp = Smtp::start();
    {
        let server = confirming(&database, &smtp);
        post(server.address, &sign_up("stale@example.com"));
        post(server.address, &sign_up("fresh@example.com"));
        emails(&smtp, 2);
    }
    let eight_days_ago = lathe_site::now_ms() - 8 * DAY;
    sqlite3(
        &database,
        &format!(
            "UPDATE waitlist SET created_at = {eight_days_ago} WHERE email_key = 'stale@example.com'"
        ),
    );
    let _server = confirming(&database, &smtp);
    wait_for("the purge at start", Duration::from_secs(10), || {
        export(&database).len() == 1
    });
    assert_eq!(export(&database)[0]["email"], "fresh@example.com");
}

#[test]
fn the_key_comes_from_systemds_credential_and_without_one_smtp_is_refused_clearly() {
    let database = sqlite();
    let smtp = Smtp::start();
    let mail_args = [
        "--smtp",
        &smtp.url(),
        "--mail-from",
        "Lathe <hello@example.com>",
        "--site-url",
        "https://lathe.example.com",
    ];
    // No key at all: one clear line, and no server.
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["serve", "--database", &database.display(), "--dist"])
        .arg(common::fixture())
        .args(mail_args)
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
    let credentials = std::env::temp_dir().join(format!("lathe-credentials-{}", free_port()));
    std::fs::create_dir_all(&credentials).unwrap();
    let key = "a credential key, which is over 32 bytes long";
    std::fs::write(credentials.join("token.key"), format!("{key}\n")).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command
        .env_remove("LATHE_TOKEN_KEY")
        .env("CREDENTIALS_DIRECTORY", &credentials);
    let server = Server::start_with(command, Some(&database), &mail_args);
    post(server.address, &sign_up("cred@example.com"));
    let [email] = &emails(&smtp, 1)[..] else {
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

/// The value of the metric line that starts with `series`, from a scrape of `metrics`.
fn metric(metrics: SocketAddr, series: &str) -> u64 {
    let reply = common::send_to(
        metrics,
        &format!("GET /metrics HTTP/1.1\r\nHost: {metrics}"),
    );
    let text = String::from_utf8_lossy(&reply.body).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix(series))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_metrics_and_the_owner_see_emails_queued_retried_sent_and_failed() {
    let database = sqlite();
    let mut smtp = Smtp::down_at_first();
    let metrics = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command.env("LATHE_TOKEN_KEY", KEY);
    let server = Server::start_with(
        command,
        Some(&database),
        &[
            "--smtp",
            &smtp.url(),
            "--mail-from",
            "Lathe <hello@example.com>",
            "--site-url",
            "https://lathe.example.com",
            "--metrics-addr",
            &metrics.to_string(),
        ],
    );
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
    let to: Vec<String> = emails(&smtp, 2).into_iter().map(|e| e.to).collect();
    assert_eq!(to, ["one@example.com", "later@example.com"]);
    // The refusal quoted the address; neither the log nor the outbox keeps it.
    let logged = server.stderr.lock().unwrap().clone();
    assert!(logged.contains("email failed"), "{logged}");
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

/// What `lathe-site serve ARGS` says on standard output before it collects.
fn start_lines(database: &Location, args: &[&str]) -> String {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(["serve", "--port", &free_port().to_string(), "--dist"])
        .arg(common::fixture())
        .args(["--database", &database.display()])
        .args(args)
        .env("LATHE_TOKEN_KEY", KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut said = String::new();
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if line.starts_with("collecting sign-ups") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    said
}

#[test]
fn the_server_says_at_start_whether_it_confirms_addresses() {
    let database = sqlite();
    assert!(
        start_lines(&database, &[])
            .contains("no --smtp: addresses are stored unconfirmed, and no email is sent\n")
    );
    let smtp = Smtp::start();
    let said = start_lines(
        &database,
        &[
            "--smtp",
            &smtp.url(),
            "--mail-from",
            "Lathe <hello@example.com>",
            "--site-url",
            "https://lathe.example.com",
        ],
    );
    assert!(
        said.contains("confirming addresses by email (--smtp)\n"),
        "{said}"
    );
    assert!(!said.contains("no --smtp"), "{said}");
}

#[test]
fn a_mail_server_too_slow_to_answer_delays_an_email_which_then_goes_once() {
    let database = sqlite();
    let smtp = Smtp::start();
    let server = confirming(&database, &smtp);
    assert_eq!(
        post(server.address, &sign_up("slow@example.com")).status,
        201
    );
    // The first try waits for the mail server's 10 s timeout, then for its backoff.
    wait_for("a timed-out try", Duration::from_secs(20), || {
        sqlite3(
            &database,
            "SELECT COUNT(*) FROM outbox WHERE attempts = 1 AND last_error IS NOT NULL",
        ) == "1"
    });
    assert!(smtp.messages().is_empty());
    wait_for("the email sent", Duration::from_secs(20), || {
        outbox(&database) == (0, 1, 0)
    });
    let to: Vec<String> = smtp.messages().iter().map(|m| Email::parse(m).to).collect();
    assert_eq!(to, ["slow@example.com"]);
}
