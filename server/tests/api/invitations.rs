//! The owner's invitations in waves (`lathe-site waitlist invite`, `waves`), on both
//! databases and a real SMTP server: the earliest confirmed entries first, nobody twice,
//! a dry run that queues nothing, the owner's letter to each name with the manage link,
//! an entry erased before its email goes, and what an invited entry is to its owner.

use lathe_site::store::Location;
use lathe_site_testkit::{Smtp, export, owner, post, post_token, sign_up, sqlite, status_of};

use crate::helpers::{TestApp, sql, sql_text};

const DAY: i64 = 24 * 60 * 60 * 1000;

const LETTER: &str = "Your early access to Lathe, {name}\n\nDear {name},\n\nYour place has come up: download Lathe from the link in your account.\n";

/// `addresses` signed up (in this order, a second apart) and confirmed from their emails'
/// links; `pending` signed up and never confirmed.
pub(crate) fn confirmed(
    app: &TestApp,
    smtp: &Smtp,
    database: &Location,
    addresses: &[&str],
    pending: &[&str],
) {
    for email in addresses.iter().chain(pending) {
        assert_eq!(post(app.address, &sign_up(email)).status, 201);
    }
    app.deliver_due();
    for (n, email) in addresses.iter().enumerate() {
        let message = smtp
            .messages()
            .into_iter()
            .find(|m| m.to == *email)
            .unwrap();
        let token = message.token("confirm").unwrap();
        let confirmed = post_token(app.address, "/api/waitlist/confirm", &token);
        assert_eq!(status_of(&confirmed).0, 200, "{email}");
        let at = 1_795_000_000_000_i64 + 1000 * i64::try_from(n).unwrap();
        sql(
            database,
            &format!("UPDATE waitlist SET created_at = {at} WHERE email_key = '{email}'"),
        );
    }
}

/// `lathe-site waitlist invite ARGS` with [`LETTER`].
fn invite(database: &Location, args: &[&str]) -> (bool, String, String) {
    crate::helpers::invite(database, LETTER, args)
}

fn invites_in_waves(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let early = [
        "a1@example.com",
        "a2@example.com",
        "a3@example.com",
        "a4@example.com",
        "a5@example.com",
    ];
    confirmed(&app, &smtp, database, &early, &["waiting@example.com"]);
    let welcomes = smtp.messages().len();

    // A dry run says who, and changes nothing.
    let (ok, said, summary) = invite(database, &["--count", "2", "--dry-run"]);
    assert!(ok, "{summary}");
    assert_eq!(
        said,
        "a1@example.com\tAda Lovelace\na2@example.com\tAda Lovelace\n"
    );
    assert!(
        summary.starts_with("would invite 2 in wave 1: 4294967295 a minute, the last due at 2"),
        "{summary}"
    );
    assert!(summary.ends_with(" UTC\n"), "{summary}");
    assert_eq!(app.deliver_due(), 0, "nothing queued");
    assert!(export(database).iter().all(|e| e["status"] != "invited"));

    // Wave 1: the two who signed up first.
    let (ok, said, summary) = invite(database, &["--count", "2"]);
    assert!(ok, "{summary}");
    assert_eq!(
        said,
        "a1@example.com\tAda Lovelace\na2@example.com\tAda Lovelace\n"
    );
    assert!(
        summary.starts_with(
            "invited 2 in wave 1: the server sends their emails (with --smtp), 4294967295 a minute"
        ),
        "{summary}"
    );
    // Wave 2 takes the rest, never the same twice, never the unconfirmed.
    let (ok, said, _) = invite(database, &["--count", "10"]);
    assert!(ok);
    assert_eq!(said.lines().count(), 3, "{said}");
    assert!(said.starts_with("a3@example.com\t"), "{said}");
    let (ok, said, summary) = invite(database, &["--count", "10"]);
    assert!(ok);
    assert_eq!(
        (said.as_str(), summary.as_str()),
        (
            "",
            "nobody to invite: no confirmed entry is waiting for one\n"
        )
    );

    assert_eq!(app.deliver_due(), 5);
    let invitations: Vec<_> = smtp.messages().into_iter().skip(welcomes).collect();
    let mut to: Vec<&str> = invitations.iter().map(|m| m.to.as_str()).collect();
    to.sort_unstable();
    assert_eq!(to, early, "each once");
    let first = &invitations[0];
    assert_eq!(first.subject, "Your early access to Lathe, Ada Lovelace");
    assert!(
        first
            .text
            .starts_with("Dear Ada Lovelace,\n\nYour place has come up"),
        "{}",
        first.text
    );
    // Its owner sees the invitation on the manage page.
    let manage = first.token("manage").expect("the manage link beneath");
    let shown = lathe_site_testkit::json(&post_token(app.address, "/api/waitlist/manage", &manage));
    assert_eq!(shown["entry"]["status"], "invited");
    assert!(
        shown["entry"]["invited_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );

    the_owner_sees_two_waves_of_five(database);

    // An invited address signed up again is told it is there.
    post(app.address, &sign_up("a1@example.com"));
    app.deliver_due();
    assert_eq!(
        smtp.messages().last().unwrap().subject,
        "You are already on the Lathe waitlist"
    );
}

/// The waves as `waves` lists them, and the invited entries in the export.
fn the_owner_sees_two_waves_of_five(database: &Location) {
    let (ok, waves, _) = owner(database, &["waves"]);
    assert!(ok);
    let rows: Vec<Vec<&str>> = waves.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "wave", "made", "size", "queued", "sent", "failed", "interest", "subject"
        ]
    );
    assert_eq!(rows[1][0], "1");
    assert_eq!(
        rows[1][2..],
        [
            "2",
            "0",
            "2",
            "0",
            "all",
            "Your early access to Lathe, {name}"
        ]
    );
    assert_eq!(rows[2][2..6], ["3", "0", "3", "0"]);
    assert_eq!(rows.len(), 3);

    // Invited entries: in the export with their wave, and nobody else is.
    let exported = export(database);
    let invited: Vec<_> = exported
        .iter()
        .filter(|e| e["status"] == "invited")
        .collect();
    assert_eq!(invited.len(), 5);
    assert!(
        invited
            .iter()
            .all(|e| e["invited_at"].as_str().is_some_and(|t| t.ends_with('Z')))
    );
    assert_eq!(
        exported
            .iter()
            .find(|e| e["email"] == "a1@example.com")
            .unwrap()["wave"],
        1
    );
    assert_eq!(
        exported
            .iter()
            .find(|e| e["email"] == "a5@example.com")
            .unwrap()["wave"],
        2
    );
    let (ok, csv, _) = owner(database, &["export", "--status", "invited"]);
    assert!(ok);
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",\"invited_at\",\"wave\",\"place\",\"referrals\"")
    );
}

lathe_site_testkit::on_both_databases!(invites_in_waves);

#[test]
fn an_entry_erased_before_its_invitation_goes_gets_none() {
    let database = sqlite();
    let smtp = Smtp::start();
    let app = TestApp::confirming(&database, &smtp);
    confirmed(
        &app,
        &smtp,
        &database,
        &["gone@example.com", "kept@example.com"],
        &[],
    );
    let sent = smtp.messages().len();
    let (ok, _, said) = invite(&database, &["--count", "2"]);
    assert!(ok, "{said}");
    let (ok, _, said) = owner(&database, &["erase", "gone@example.com"]);
    assert!(ok, "{said}");
    assert_eq!(app.deliver_due(), 1);
    let to: Vec<String> = smtp
        .messages()
        .into_iter()
        .skip(sent)
        .map(|m| m.to)
        .collect();
    assert_eq!(to, ["kept@example.com"]);
    let (_, waves, _) = owner(&database, &["waves"]);
    let row: Vec<&str> = waves.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(row[2..6], ["2", "0", "1", "0"], "taken 2, sent 1");
}

#[test]
fn a_wave_can_take_one_interest_and_a_letter_must_have_a_subject_and_a_text() {
    let database = sqlite();
    let smtp = Smtp::start();
    let app = TestApp::confirming(&database, &smtp);
    confirmed(&app, &smtp, &database, &["dev@example.com"], &[]);
    // Everyone signs up as "enterprise" (testkit's sign-up): one is a developer.
    sql(
        &database,
        "UPDATE waitlist SET interest = 'developer' WHERE email_key = 'dev@example.com'",
    );
    let (ok, said, _) = invite(
        &database,
        &["--count", "5", "--interest", "press", "--dry-run"],
    );
    assert!(ok);
    assert_eq!(said, "");
    let (ok, said, _) = invite(
        &database,
        &["--count", "5", "--interest", "developer", "--dry-run"],
    );
    assert!(ok);
    assert_eq!(said, "dev@example.com\tAda Lovelace\n");
    let (ok, _, said) = invite(&database, &["--count", "5", "--interest", "sales"]);
    assert!(!ok);
    assert!(said.contains("`sales` is not an interest"), "{said}");

    let (ok, _, said) = crate::helpers::invite(&database, "Just a subject\n", &["--count", "1"]);
    assert!(!ok);
    assert_eq!(
        said,
        "lathe-site: --letter: a letter is its subject on the first line, then its text: this one has no text beneath its subject\n"
    );
    let (ok, _, said) = owner(
        &database,
        &[
            "invite",
            "--count",
            "1",
            "--letter",
            "/nonexistent/letter.txt",
        ],
    );
    assert!(!ok);
    assert!(
        said.starts_with("lathe-site: cannot read /nonexistent/letter.txt: "),
        "{said}"
    );
    assert!(
        export(&database).iter().all(|e| e["status"] == "confirmed"),
        "nothing invited"
    );
}

/// `n` confirmed entries, `p1@example.com` signed up first, written straight into the
/// database (a thousand through the form would test the form), standing in the line in
/// that order.
fn many_confirmed(database: &Location, n: u32) {
    sql(
        database,
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})
             INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at, id, status, confirmed_at,
                 manage_nonce, last_interaction_at, referral_code, mailbox_hash)
             SELECT 'p' || i || '@example.com', 'p' || i || '@example.com', 'Person ' || i,
                 '', '', 'general', '', '2026-11-24', 1795000000000 + i,
                 'id' || i, 'confirmed', 1795000000000 + i, 'nonce' || i, 1795000000000 + i,
                 'code' || i, 'mailbox' || i
             FROM n"
        ),
    );
    sql(
        database,
        "INSERT INTO standings (id, line_number, line_key)
         SELECT id, CAST(SUBSTR(id, 3) AS BIGINT), CAST(SUBSTR(id, 3) AS BIGINT) FROM waitlist",
    );
    sql(
        database,
        "INSERT INTO line_counts (bucket, stripe, n)
         SELECT line_key / 4096, 0, COUNT(*) FROM standings GROUP BY line_key / 4096",
    );
}

/// How many invitations went.
fn invitations_sent(database: &Location) -> i64 {
    sql_text(
        database,
        "SELECT COUNT(*) FROM outbox WHERE kind = 'invitation' AND sent_at IS NOT NULL",
    )
    .parse()
    .unwrap()
}

/// A wave of 100 at 60 a minute: one a second, on the worker's clock, the last 99 s after
/// the first; a visitor's confirmation queued meanwhile goes in the next claim, ahead of
/// every invitation due; a second wave starts after the first's last. (A wave of 1,000 at
/// 600 a minute showed the same in ten times the emails: 12 s of the suite's sink and
/// server. The schedule stays long, so that the first wave is still going, however busy
/// the machine, when the second is made.)
fn a_wave_goes_at_its_pace_and_a_confirmation_never_waits_behind_it(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    many_confirmed(database, 102);
    let (ok, _, said) = invite(database, &["--count", "100", "--mail-per-minute", "60"]);
    assert!(ok, "{said}");
    assert!(
        said.starts_with(
            "invited 100 in wave 1: the server sends their emails (with --smtp), 60 a minute, the last due at "
        ),
        "{said}"
    );
    let due = |query: &str| -> i64 {
        sql_text(
            database,
            &format!("SELECT {query}(next_attempt_at) FROM outbox WHERE wave = 1"),
        )
        .parse()
        .unwrap()
    };
    let (start, last) = (due("MIN"), due("MAX"));
    assert_eq!(last - start, 99_000);

    // Each in its turn, never before.
    app.deliver_due_at(start + 29_999);
    assert_eq!(invitations_sent(database), 30);

    // A visitor signs up during the wave: by the next claim, 30 more invitations are
    // due, and the confirmation goes first.
    assert_eq!(
        post(app.address, &sign_up("visitor@example.com")).status,
        201
    );
    assert_eq!(app.deliver_once_at(start + 59_999), 16);
    assert!(
        smtp.messages()
            .iter()
            .any(|e| e.to == "visitor@example.com"),
        "the confirmation in the first claim"
    );
    app.deliver_due_at(start + 98_999);
    assert_eq!(invitations_sent(database), 99);
    app.deliver_due_at(start + 99_000);
    assert_eq!(invitations_sent(database), 100);

    // A wave made while one is going starts one interval after its last.
    // (The first's schedule runs 99 s past the real clock: it is still going.)
    let (ok, _, said) = invite(database, &["--count", "2", "--mail-per-minute", "60"]);
    assert!(ok, "{said}");
    let second: i64 = sql_text(
        database,
        "SELECT MIN(next_attempt_at) FROM outbox WHERE wave = 2",
    )
    .parse()
    .unwrap();
    assert_eq!(second, last + 1_000);
}

lathe_site_testkit::on_both_databases!(
    a_wave_goes_at_its_pace_and_a_confirmation_never_waits_behind_it
);

/// `lathe-site waitlist stats`: every figure, with the days moved to known ones.
fn the_owner_reads_the_lists_figures(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    confirmed(
        &app,
        &smtp,
        database,
        &["s1@example.com", "s2@example.com", "s3@example.com"],
        &["s4@example.com"],
    );
    let (ok, _, said) = invite(database, &["--count", "1"]);
    assert!(ok, "{said}");
    let today = lathe_site::now_ms().div_euclid(DAY) * DAY;
    let noon = |days_ago: i64| today - days_ago * DAY + DAY / 2;
    for (email, days_ago) in [("s1", 2), ("s2", 2), ("s3", 1), ("s4", 0)] {
        sql(
            database,
            &format!(
                "UPDATE waitlist SET created_at = {} WHERE email_key = '{email}@example.com'",
                noon(days_ago)
            ),
        );
    }
    sql(
        database,
        &format!(
            "UPDATE waitlist SET confirmed_at = {} WHERE confirmed_at IS NOT NULL",
            noon(0)
        ),
    );
    sql(
        database,
        "UPDATE waitlist SET interest = 'developer' WHERE email_key = 's4@example.com'",
    );

    let (ok, report, said) = owner(database, &["stats"]);
    assert!(ok, "{said}");
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[0],
        "entries 4: unconfirmed 0, pending 1, confirmed 2, invited 1"
    );
    assert_eq!(lines[1], "confirmation rate 75 % (3 of 4 asked)");
    assert_eq!(lines[2], "by interest: enterprise 3, developer 1");
    assert_eq!(
        lines[3],
        "referred 0 % of confirmed (0 of 3); viral coefficient 0.00 (0 credited)"
    );
    assert_eq!(
        lines[4],
        "day (UTC)\tsign-ups\tthrough a link\tconfirmations"
    );
    let days = &lines[5..35];
    assert_eq!(days.len(), 30);
    let date = |ms: i64| lathe_site::domain::time(ms)[..10].to_owned();
    assert_eq!(days[27], format!("{}\t2\t0\t0", date(noon(2))));
    assert_eq!(days[28], format!("{}\t1\t0\t0", date(noon(1))));
    assert_eq!(days[29], format!("{}\t1\t0\t3", date(noon(0))));
    assert!(
        days[..27].iter().all(|d| d.ends_with("\t0\t0\t0")),
        "{days:?}"
    );
    assert_eq!(lines[35], "waves 1: 1 invited; 0 unsubscribed");
    assert_eq!(lines[36], "outbox: queued 1, sent 4, failed 0");
    assert_eq!(lines.len(), 37);
}

lathe_site_testkit::on_both_databases!(the_owner_reads_the_lists_figures);
