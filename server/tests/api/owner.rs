//! The owner's commands (`lathe-site waitlist …`), run as the owner runs them, as a
//! program, against what the application in-process stored: export, show, erase,
//! count, purge as the clock moves, backup under load and restore, and the export of a
//! large list in little memory.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use lathe_site::store::Location;
use lathe_site_testkit::{
    Loading, NOTICE, Postgres, Smtp, export, load, owner, post, post_token, sign_up, sign_up_with,
    sqlite, status_of,
};

use crate::helpers::{TestApp, run, sql, sql_text, unlimited};

#[test]
fn the_owner_exports_shows_and_erases_entries() {
    let location = sqlite();
    let app = TestApp::collecting(&location, unlimited());
    let address = app.address;
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
        "\"email\",\"name\",\"company\",\"role\",\"interest\",\"message\",\"privacy_notice\",\"created_at\",\"repeats\",\"last_repeat_at\",\"status\",\"confirmed_at\",\"invited_at\",\"wave\",\"place\",\"referrals\""
    );
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with(
        "\"ada@example.com\",\"Ada Lovelace\",\"Analytical Engines\",\"CTO\",\"enterprise\",\"A booking app, please.\",\"2026-11-22\",\""
    ));
    assert!(
        lines[1].ends_with("\",\"0\",\"\",\"unconfirmed\",\"\",\"\",\"\",\"\",\"0\""),
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

fn purge_deletes_exactly_what_is_due_as_the_clock_moves(database: &Location) {
    let smtp = Smtp::start();
    {
        let app = TestApp::confirming(database, &smtp);
        for email in ["kept@example.com", "late@example.com"] {
            post(app.address, &sign_up(email));
        }
        app.deliver_due();
        let emails = smtp.messages();
        let kept = emails.iter().find(|e| e.to == "kept@example.com").unwrap();
        assert_eq!(
            status_of(&post_token(
                app.address,
                "/api/waitlist/confirm",
                &kept.token("confirm").unwrap()
            ))
            .0,
            200
        );
    }
    {
        // One more, stored by a server that sends no email.
        let app = TestApp::collecting(database, unlimited());
        post(app.address, &sign_up("quiet@example.com"));
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
    for (by, n) in [("retention", "2"), ("unconfirmed", "1")] {
        let query = format!("SELECT COUNT(*) FROM erasures WHERE erased_by = '{by}'");
        assert_eq!(sql_text(database, &query), n, "{by}");
    }
    // The emails sent (over a day before the last purge) are gone too.
    assert_eq!(sql_text(database, "SELECT COUNT(*) FROM outbox"), "0");
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
    let server = TestApp::collecting(&database, unlimited());
    // Sign-ups acknowledged before the backup starts...
    let loading = Loading::default();
    let before = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "before", 4, &loading));
        loading.until_more(100);
        loading.stop();
        loaded.join().unwrap()
    });
    assert!(before.len() >= 100, "too little load: {}", before.len());
    // ...then the backup, while more are written (counted in sign-ups, not seconds).
    let copy = Path::new(&database.display()).with_extension("backup.db");
    let loading = Loading::default();
    let (during, backup) = std::thread::scope(|scope| {
        let loaded = scope.spawn(|| load(server.address, "during", 4, &loading));
        loading.until_more(20);
        let backup = owner(&database, &["backup", copy.to_str().unwrap()]);
        loading.until_more(20);
        loading.stop();
        (loaded.join().unwrap(), backup)
    });
    assert!(backup.0, "{}", backup.2);
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
    let server = TestApp::collecting(&restored, unlimited());
    let (_, count, _) = owner(&restored, &["count"]);
    assert_eq!(count.trim(), saved.len().to_string());
    assert_eq!(
        post(server.address, &sign_up("new@example.com")).status,
        201
    );
    // A second backup to the same file is refused, not overwritten.
    let (ok, _, said) = owner(&database, &["backup", copy.to_str().unwrap()]);
    assert!(!ok);
    assert!(said.contains("exists already"), "{said}");
    let _ = std::fs::remove_file(&copy);
}

#[test]
fn a_postgresql_backup_points_to_pg_dump() {
    let postgres = Postgres::start();
    let (ok, _, said) = owner(&postgres.location, &["backup", "/tmp/never-written.db"]);
    assert!(!ok);
    assert!(said.contains("pg_dump"), "{said}");
    assert!(!Path::new("/tmp/never-written.db").exists());
}

#[test]
fn a_json_export_streams_in_little_memory() {
    export_streams_in_little_memory("json");
}

#[test]
fn a_csv_export_streams_in_little_memory() {
    export_streams_in_little_memory("csv");
}

/// Each format a test of its own: they run side by side, the suite's longest pole halved.
fn export_streams_in_little_memory(format: &str) {
    // 40,000 entries with 2 KB messages: about 85 MB of CSV and 95 of JSON, more than twice
    // the data segment the export may take (below). Measured, the export needs about 30 MB
    // of it however large the list (at 26 MB SQLite runs out of memory).
    const ENTRIES: u64 = 40_000;
    const LIMIT: u64 = 40_000_000;
    let location = sqlite();
    run(async {
        let store = lathe_site::store::Store::open(&location).await.unwrap();
        store.close().await;
        let pool = sqlx::AnyPool::connect(&location.url).await.unwrap();
        sqlx::query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
             INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at)
             SELECT 'e' || i || '@example.com', 'e' || i || '@example.com', 'Name ' || i, '',
                 '', 'general', replace(hex(zeroblob(1000)), '00', 'xy'), '2026-11-22', i
             FROM n",
        )
        .bind(i64::try_from(ENTRIES).unwrap())
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    });
    // Half the export's size in data segment: it cannot hold the export.
    let out = Command::new("prlimit")
        .arg(format!("--data={LIMIT}"))
        .args(["--", env!("CARGO_BIN_EXE_lathe-site")])
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
    assert!(bytes > 2 * LIMIT, "{format}: {bytes} bytes");
    if format == "csv" {
        assert_eq!(lines, ENTRIES + 1, "a header and every entry");
    }
}

#[test]
fn the_owners_commands_on_postgresql_print_nothing_but_their_answer() {
    let postgres = Postgres::start();
    // Twice: the migrations run on a database that has them the second time, where
    // PostgreSQL sends a NOTICE ("relation ... already exists, skipping").
    for _ in 0..2 {
        let (ok, count, said) = owner(&postgres.location, &["count"]);
        assert!(ok, "{said}");
        assert_eq!(count, "0\n");
        assert_eq!(said, "", "nothing on standard error");
    }
}

lathe_site_testkit::on_both_databases!(purge_deletes_exactly_what_is_due_as_the_clock_moves);
