//! The line and referrals, on both databases: a confirmed friend moves their referrer
//! ahead by the places a friend is worth; a friend with the referrer's own mailbox, on a
//! disposable domain, already on the list, or whose mailbox earned a credit before (even
//! for an entry since erased) earns nothing; a malformed or unknown code never stops a
//! sign-up; the line after invitations and erasures; two instances racing to credit one
//! mailbox credit it once; and the server's places against the core's rule
//! (`lathe_core::line::place`) over random lines.

use lathe_core::line::{Standing as CoreStanding, place};
use lathe_site::store::Location;
use lathe_site_testkit::{
    Email, Postgres, Smtp, json, owner, post, post_token, sign_up, sign_up_with,
};
use serde_json::Value;

use crate::helpers::{
    Links, TestApp, collecting, invite, links, mail, schema_before, sql_text, unlimited,
};

const CONFIRM: &str = "/api/waitlist/confirm";
const MANAGE: &str = "/api/waitlist/manage";
const ERASE: &str = "/api/waitlist/erase";

/// A sign-up from `email` through the share link with `code`, as the form posts it.
fn sign_up_by(email: &str, code: &str) -> String {
    sign_up_with(email, "ref", code)
}

/// The latest email to `to`, after the due ones went.
fn latest_to(app: &TestApp, smtp: &Smtp, to: &str) -> Email {
    app.deliver_due();
    smtp.messages()
        .into_iter()
        .rev()
        .find(|e| e.to == to)
        .unwrap_or_else(|| panic!("an email to {to}"))
}

/// Someone on the list: their manage link's token.
struct Member {
    manage: String,
}

impl Member {
    /// What their manage page shows of the line.
    fn line(&self, app: &TestApp) -> Value {
        let reply = post_token(app.address, MANAGE, &self.manage);
        assert_eq!(reply.status, 200, "{}", reply.text());
        json(&reply)["line"].clone()
    }

    fn place(&self, app: &TestApp) -> i64 {
        self.line(app)["place"].as_i64().expect("a place")
    }

    fn code(&self, app: &TestApp) -> String {
        self.line(app)["code"].as_str().unwrap().to_owned()
    }
}

/// Signs up `email` (through `code`'s link, if given) and confirms it from its email,
/// and its referrer's credit is given (as the server's worker does, at once): the member,
/// and the confirmation's answer.
fn join(app: &TestApp, smtp: &Smtp, email: &str, code: Option<&str>) -> (Member, Value) {
    let body = match code {
        Some(code) => sign_up_by(email, code),
        None => sign_up(email),
    };
    assert_eq!(post(app.address, &body).status, 201);
    let email = latest_to(app, smtp, email);
    let confirm = email.token("confirm").expect("a confirmation link");
    let answer = json(&post_token(app.address, CONFIRM, &confirm));
    app.credit_due();
    let manage = email.token("manage").expect("a manage link");
    (Member { manage }, answer)
}

fn a_confirmed_friend_moves_their_referrer_ahead(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let mut members = Vec::new();
    for n in 1..=10 {
        let (member, answer) = join(&app, &smtp, &format!("m{n}@example.com"), None);
        assert_eq!(answer["status"], "confirmed");
        assert_eq!(answer["line"]["place"], n, "{answer}");
        assert_eq!(answer["line"]["of"], n);
        assert_eq!(answer["line"]["placesPerReferral"], 5);
        members.push(member);
    }
    let code = members[9].code(&app);
    assert_eq!(code.len(), 12, "{code}");
    assert!(lathe_core::referral::is_code(&code));
    assert_ne!(code, members[8].code(&app), "each entry has its own code");

    // A friend who signs up through the link but has not confirmed yet: joined, not
    // credited.
    assert_eq!(
        post(app.address, &sign_up_by("friend@example.org", &code)).status,
        201
    );
    let line = members[9].line(&app);
    assert_eq!(
        (
            &line["joined"],
            &line["confirmed"],
            &line["credits"],
            &line["place"]
        ),
        (
            &Value::from(1),
            &Value::from(0),
            &Value::from(0),
            &Value::from(10)
        ),
        "{line}"
    );
    // Once they confirm, the tenth moves five places ahead, to 5 (of two keys of 5, the
    // more credited goes first), and the friend stands last.
    let email = latest_to(&app, &smtp, "friend@example.org");
    let answer = json(&post_token(
        app.address,
        CONFIRM,
        &email.token("confirm").unwrap(),
    ));
    assert_eq!(
        (&answer["line"]["place"], &answer["line"]["of"]),
        (&Value::from(11), &Value::from(11))
    );
    // The credit is due from the confirmation and given by the worker's next batch.
    let line = members[9].line(&app);
    assert_eq!(
        (&line["confirmed"], &line["credits"], &line["place"]),
        (&Value::from(1), &Value::from(0), &Value::from(10)),
        "{line}"
    );
    assert_eq!(app.credit_due(), 1, "one friend's credit settled");
    assert_eq!(app.credit_due(), 0, "and none left due");
    let line = members[9].line(&app);
    assert_eq!(
        (
            &line["joined"],
            &line["confirmed"],
            &line["credits"],
            &line["place"],
            &line["of"]
        ),
        (
            &Value::from(1),
            &Value::from(1),
            &Value::from(1),
            &Value::from(5),
            &Value::from(11)
        ),
        "{line}"
    );
    // Everyone else moved back by at most one place.
    let places: Vec<i64> = members.iter().map(|m| m.place(&app)).collect();
    assert_eq!(places, [1, 2, 3, 4, 6, 7, 8, 9, 10, 5]);
    // The manage page shows no one's address but the member's own.
    assert!(!members[9].line(&app).to_string().contains("friend"));

    the_owner_sees_the_tenths_credit(database);
}

/// After [`a_confirmed_friend_moves_their_referrer_ahead`], the owner's tools: the
/// referrers, the figures, the export.
fn the_owner_sees_the_tenths_credit(database: &Location) {
    let id = sql_text(
        database,
        "SELECT id FROM waitlist WHERE email_key = 'm10@example.com'",
    );
    let (ok, out, said) = owner(database, &["referrers", "--top", "5"]);
    assert!(ok, "{said}");
    assert_eq!(
        out,
        format!("id\tsigned up\tconfirmed\tcredited\tplace\n{id}\t1\t1\t1\t5\n")
    );
    let (_, out, _) = owner(database, &["referrers", "--with-addresses"]);
    assert!(out.ends_with("\t5\tm10@example.com\n"), "{out}");
    let (_, stats, _) = owner(database, &["stats"]);
    assert!(
        stats.contains(
            "\nreferred 9 % of confirmed (1 of 11); viral coefficient 0.09 (1 credited)\n"
        ),
        "{stats}"
    );
    let today = stats.lines().rev().nth(2).unwrap();
    assert!(
        today.ends_with("\t11\t1\t11"),
        "sign-ups, through a link, confirmations: {today}"
    );
    let exported = lathe_site_testkit::export(database);
    let row = |email: &str| {
        exported
            .iter()
            .find(|e| e["email"] == email)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            &row("m10@example.com")["place"],
            &row("m10@example.com")["referrals"]
        ),
        (&Value::from(5), &Value::from(1))
    );
    assert_eq!(row("m5@example.com")["place"], 6);
    assert_eq!(row("friend@example.org")["place"], 11);
}

fn friends_that_earn_nothing(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let (referrer, _) = join(&app, &smtp, "a.da@gmail.com", None);
    let (_, _) = join(&app, &smtp, "early@example.com", None);
    let code = referrer.code(&app);
    let credits = |app: &TestApp| referrer.line(app)["credits"].as_i64().unwrap();

    // The referrer's own mailbox, however it is written; a disposable domain; an address
    // already on the list (its repeat brings the code too late).
    join(&app, &smtp, "ADA+waitlist@googlemail.com", Some(&code));
    join(&app, &smtp, "someone@mailinator.com", Some(&code));
    assert_eq!(
        post(app.address, &sign_up_by("early@example.com", &code)).status,
        201
    );
    let line = referrer.line(&app);
    assert_eq!(
        (&line["credits"], &line["joined"], &line["place"]),
        (&Value::from(0), &Value::from(0), &Value::from(1)),
        "none of them is a friend: {line}"
    );

    // A malformed, unknown or non-text code is ignored: the sign-up is stored all the same.
    for (email, code) in [
        ("m1@example.com", Value::from("short")),
        ("m2@example.com", Value::from("AAAAAAAAAAAA")),
        ("m3@example.com", Value::from(12)),
        ("m4@example.com", Value::Null),
    ] {
        let mut body: Value = serde_json::from_str(&sign_up(email)).unwrap();
        body["ref"] = code;
        let reply = post(app.address, &body.to_string());
        assert_eq!(reply.status, 201, "{}", reply.text());
    }

    // A friend earns one credit; their mailbox never earns another, whatever address
    // leads to it, even once they have erased their entry and signed up again.
    let (friend, _) = join(&app, &smtp, "grace.hopper@gmail.com", Some(&code));
    assert_eq!(credits(&app), 1);
    join(&app, &smtp, "gracehopper+2@gmail.com", Some(&code));
    assert_eq!(credits(&app), 1);
    assert_eq!(
        json(&post_token(app.address, ERASE, &friend.manage))["status"],
        "erased"
    );
    join(&app, &smtp, "grace.hopper@gmail.com", Some(&code));
    assert_eq!(credits(&app), 1);
    assert_eq!(
        sql_text(database, "SELECT COUNT(*) FROM credited_mailboxes"),
        "1"
    );
    // Kept as a keyed hash: no address, no mailbox in it.
    let hash = sql_text(database, "SELECT mailbox_hash FROM credited_mailboxes");
    assert!(!hash.contains('@') && hash.len() == 43, "{hash}");

    // A referrer erased before their friend confirms earns nothing, and the friend's
    // confirmation goes through.
    let (gone, _) = join(&app, &smtp, "gone@example.com", None);
    let gone_code = gone.code(&app);
    assert_eq!(
        post(app.address, &sign_up_by("late@example.net", &gone_code)).status,
        201
    );
    post_token(app.address, ERASE, &gone.manage);
    let email = latest_to(&app, &smtp, "late@example.net");
    let answer = json(&post_token(
        app.address,
        CONFIRM,
        &email.token("confirm").unwrap(),
    ));
    assert_eq!(answer["status"], "confirmed");
    assert_eq!(app.credit_due(), 1, "the friend's due credit settled");
    assert_eq!(
        sql_text(database, "SELECT COUNT(*) FROM credited_mailboxes"),
        "1",
        "and nothing given"
    );
}

/// A friend who confirms and erases their entry before the worker's next batch still
/// earns their referrer the credit (the erasure gives it), once.
fn an_erasure_gives_the_credit_still_due(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let members: Vec<Member> = (1..=7)
        .map(|n| join(&app, &smtp, &format!("m{n}@example.com"), None).0)
        .collect();
    let code = members[6].code(&app);
    assert_eq!(
        post(app.address, &sign_up_by("brief@example.org", &code)).status,
        201
    );
    let email = latest_to(&app, &smtp, "brief@example.org");
    let answer = json(&post_token(
        app.address,
        CONFIRM,
        &email.token("confirm").unwrap(),
    ));
    assert_eq!(answer["line"]["place"], 8);
    assert_eq!(members[6].line(&app)["credits"], 0, "due, not given yet");
    let erased = json(&post_token(
        app.address,
        ERASE,
        &email.token("manage").unwrap(),
    ));
    assert_eq!(erased["status"], "erased");
    let line = members[6].line(&app);
    assert_eq!(
        (&line["credits"], &line["place"], &line["of"]),
        (&Value::from(1), &Value::from(2), &Value::from(7)),
        "7 - 5 = 2: before the second, by its credit: {line}"
    );
    assert_eq!(app.credit_due(), 0, "nothing left due");
    assert_eq!(
        sql_text(database, "SELECT COUNT(*) FROM credited_mailboxes"),
        "1"
    );
}

fn the_line_after_invitations_and_erasures(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let members: Vec<Member> = (1..=6)
        .map(|n| join(&app, &smtp, &format!("m{n}@example.com"), None).0)
        .collect();
    // Two friends of the sixth: 6 - 10 = -4, the head of the line.
    let code = members[5].code(&app);
    join(&app, &smtp, "f1@example.org", Some(&code));
    join(&app, &smtp, "f2@example.org", Some(&code));
    assert_eq!(members[5].place(&app), 1);

    // A wave of two takes the line's first two, in its order.
    let (ok, out, said) = invite(database, "Welcome\n\nHello {name}.", &["--count", "2"]);
    assert!(ok, "{said}");
    let invited: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(invited, ["m6@example.com", "m1@example.com"], "{out}");
    let line = members[5].line(&app);
    assert_eq!(
        (&line["place"], &line["of"]),
        (&Value::Null, &Value::from(6))
    );
    // An erasure leaves the line too.
    post_token(app.address, ERASE, &members[2].manage);
    let places: Vec<i64> = [1, 3, 4].iter().map(|&i| members[i].place(&app)).collect();
    assert_eq!(places, [1, 2, 3]);
    assert_eq!(members[1].line(&app)["of"], 5);
}

fn referrals_off_show_no_line_and_credit_nothing(database: &Location) {
    let smtp = Smtp::start();
    let mut config = collecting(database, unlimited());
    if let Some(waitlist) = &mut config.waitlist {
        waitlist.mail = Some(mail(&smtp));
        waitlist.settings.places_per_referral = 0;
    }
    let app = TestApp::start(config);
    let (member, answer) = join(&app, &smtp, "ada@example.com", None);
    assert_eq!(answer, serde_json::json!({ "status": "confirmed" }));
    let code = sql_text(
        database,
        "SELECT referral_code FROM waitlist WHERE email_key = 'ada@example.com'",
    );
    join(&app, &smtp, "grace@example.com", Some(&code));
    let reply = json(&post_token(app.address, MANAGE, &member.manage));
    assert_eq!(reply["status"], "found");
    assert!(reply.get("line").is_none(), "{reply}");
    assert_eq!(
        sql_text(
            database,
            "SELECT COUNT(*) FROM waitlist WHERE referred_by IS NOT NULL"
        ),
        "0"
    );
}

/// A server started with another `--places-per-referral` remakes every key: the places
/// are the core's for the new value, and the line's counts agree with them.
fn another_value_remakes_the_line(database: &Location) {
    let smtp = Smtp::start();
    let members: Vec<Member> = {
        let app = TestApp::confirming(database, &smtp);
        let members: Vec<Member> = (1..=8)
            .map(|n| join(&app, &smtp, &format!("m{n}@example.com"), None).0)
            .collect();
        let code = members[7].code(&app);
        join(&app, &smtp, "f1@example.org", Some(&code));
        assert_eq!(
            members[7].place(&app),
            3,
            "8 - 5: a tie with 3, won by the credit"
        );
        members
    };
    for (places, expected) in [(2, 6), (0, 8), (5, 3)] {
        let mut config = collecting(database, unlimited());
        if let Some(waitlist) = &mut config.waitlist {
            waitlist.mail = Some(mail(&smtp));
            waitlist.settings.places_per_referral = places;
        }
        let app = TestApp::start(config);
        let standings = standings(database);
        let line: Vec<CoreStanding> = standings.iter().map(|(_, s)| *s).collect();
        let (_, eighth) = standings
            .iter()
            .find(|(e, _)| e == "m8@example.com")
            .unwrap();
        let core = place(*eighth, &line, places);
        assert_eq!(
            core,
            usize::try_from(expected).unwrap(),
            "the core, {places} places"
        );
        if places == 0 {
            // Referrals off: no place is shown at all.
            let reply = json(&post_token(app.address, MANAGE, &members[7].manage));
            assert!(reply.get("line").is_none(), "{reply}");
        } else {
            assert_eq!(members[7].place(&app), expected, "{places} places");
            assert_eq!(members[0].line(&app)["of"], 9);
        }
    }
}

/// A list from before the line (the schema of migration 0008), opened by this server:
/// every entry gets a referral code of its own, the confirmed ones numbered in the order
/// they confirmed stand in the line in that order, the invited ones do not.
fn an_older_list_gets_codes_and_a_line(database: &Location) {
    crate::helpers::run(async {
        let pool = schema_before(database, "0009").await;
        // (email, status, confirmed_at): confirmed out of sign-up order.
        for (n, (email, status, confirmed)) in [
            ("a@example.com", "confirmed", Some(30)),
            ("b@example.com", "pending", None),
            ("c@example.com", "confirmed", Some(10)),
            ("d@example.com", "invited", Some(5)),
            ("e@example.com", "confirmed", Some(20)),
        ]
        .into_iter()
        .enumerate()
        {
            sqlx::query(
                "INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                     privacy_notice, created_at, id, status, confirmed_at,
                     manage_nonce, last_interaction_at)
                 VALUES ($1, $1, 'Old', '', '', 'general', 'Hi', 'v1', $2, $3, $4, $5,
                     $6, $2)",
            )
            .bind(email)
            .bind(i64::try_from(n).unwrap())
            .bind(format!("old-id-{n}"))
            .bind(status)
            .bind(confirmed)
            .bind(format!("old-nonce-{n}"))
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
    });

    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let codes = sql_text(
        database,
        "SELECT STRING_AGG(referral_code, ',') FROM waitlist",
    );
    let codes: std::collections::BTreeSet<&str> = codes.split(',').collect();
    assert_eq!(codes.len(), 5, "five codes, each its own: {codes:?}");
    assert_eq!(
        sql_text(
            database,
            "SELECT COUNT(*) FROM waitlist WHERE mailbox_hash IS NULL"
        ),
        "0",
        "each its mailbox's hash (migration 0012)"
    );
    assert!(
        codes.iter().all(|c| lathe_core::referral::is_code(c)),
        "{codes:?}"
    );
    let mut line = standings(database);
    line.sort_by_key(|(_, s)| s.confirmed);
    let order: Vec<(&str, u64)> = line
        .iter()
        .map(|(e, s)| (e.as_str(), s.confirmed))
        .collect();
    // Numbered in the order of confirmation, the invited one included (5 ms, number 1).
    assert_eq!(
        order,
        [
            ("c@example.com", 2),
            ("e@example.com", 3),
            ("a@example.com", 4)
        ]
    );
    // A new confirmation takes the next number, and the end of the line.
    let (_, answer) = join(&app, &smtp, "new@example.com", None);
    assert_eq!(
        (&answer["line"]["place"], &answer["line"]["of"]),
        (&Value::from(4), &Value::from(4))
    );
    assert_eq!(
        sql_text(
            database,
            "SELECT line_number FROM waitlist JOIN standings USING (id)
             WHERE email_key = 'new@example.com'"
        ),
        "5"
    );
}

/// A list whose line was kept in `waitlist`'s own columns (the schema before migration
/// 0013), opened by this server: each entry that was confirmed or credited keeps its
/// number, credits and key, now in `standings`; the others have no standing; the line
/// and its places are as they were.
fn an_older_line_moves_to_standings(database: &Location) {
    crate::helpers::run(async {
        let pool = schema_before(database, "0013").await;
        // (email, status, number, credits, key): credited in line, in line, invited with
        // a credit, credited before confirming, and neither.
        for (n, (email, status, number, credits, key)) in [
            ("a@example.com", "confirmed", Some(1), 2, Some(-9)),
            ("b@example.com", "confirmed", Some(2), 0, Some(2)),
            ("c@example.com", "invited", Some(3), 1, None),
            ("d@example.com", "pending", None, 1, None),
            ("e@example.com", "pending", None, 0, None),
        ]
        .into_iter()
        .enumerate()
        {
            sqlx::query(
                "INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                     privacy_notice, created_at, id, status, manage_nonce, last_interaction_at,
                     referral_code, mailbox_hash, line_number, credits, line_key, neg_credits)
                 VALUES ($1, $1, 'Old', '', '', 'general', 'Hi', 'v1', $2, $3, $4, $5, $2,
                     $6, $7, $8, $9, $10, -$9)",
            )
            .bind(email)
            .bind(i64::try_from(n).unwrap())
            .bind(format!("old-id-{n}"))
            .bind(status)
            .bind(format!("old-nonce-{n}"))
            .bind(format!("oldcode{n:05}"))
            .bind(format!("mailbox-{n}"))
            .bind(number)
            .bind(credits)
            .bind(key)
            .execute(&pool)
            .await
            .unwrap();
        }
        for statement in [
            "INSERT INTO line_counts (bucket, stripe, n) VALUES (-1, 0, 1), (0, 0, 1)",
            "INSERT INTO settings (name, value) VALUES ('places_per_referral', '5')",
        ] {
            sqlx::query(statement).execute(&pool).await.unwrap();
        }
        pool.close().await;
    });

    let app = TestApp::collecting(database, unlimited());
    assert_eq!(
        sql_text(
            database,
            "SELECT STRING_AGG(w.email || ' ' || s.credits || ' '
                 || COALESCE(CAST(s.line_number AS TEXT), '-') || ' '
                 || COALESCE(CAST(s.line_key AS TEXT), '-') || ' ' || s.neg_credits, ','
                 ORDER BY w.email)
             FROM waitlist w JOIN standings s ON s.id = w.id"
        ),
        "a@example.com 2 1 -9 -2,b@example.com 0 2 2 0,c@example.com 1 3 - -1,\
         d@example.com 1 - - -1"
    );
    let line: Vec<String> = crate::helpers::stored(database)
        .into_iter()
        .filter_map(|e| Some(format!("{} {} {}", e.email, e.place?, e.referrals)))
        .collect();
    assert_eq!(line, ["a@example.com 1 2", "b@example.com 2 0"]);
    drop(app);
}

lathe_site_testkit::on_both_databases!(
    an_older_list_gets_codes_and_a_line,
    an_older_line_moves_to_standings,
    another_value_remakes_the_line,
    a_confirmed_friend_moves_their_referrer_ahead,
    friends_that_earn_nothing,
    an_erasure_gives_the_credit_still_due,
    the_line_after_invitations_and_erasures,
    referrals_off_show_no_line_and_credit_nothing,
);

/// Two instances on one PostgreSQL confirm, at once, two entries with one mailbox
/// (`a.b@gmail.com` and `ab@gmail.com`) referred by the same member: one credit.
#[test]
fn two_instances_racing_credit_one_mailbox_once() {
    let postgres = Postgres::start();
    let smtp = Smtp::start();
    let apps = [
        TestApp::confirming(&postgres.location, &smtp),
        TestApp::confirming(&postgres.location, &smtp),
    ];
    let (referrer, _) = join(&apps[0], &smtp, "ref@example.com", None);
    let code = referrer.code(&apps[0]);
    for round in 0..5 {
        let twins = [
            format!("t.w{round}@gmail.com"),
            format!("tw{round}@gmail.com"),
        ];
        let tokens: Vec<String> = twins
            .iter()
            .map(|email| {
                assert_eq!(post(apps[0].address, &sign_up_by(email, &code)).status, 201);
                latest_to(&apps[0], &smtp, email).token("confirm").unwrap()
            })
            .collect();
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            for (app, token) in apps.iter().zip(&tokens) {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let answer = json(&post_token(app.address, CONFIRM, token));
                    assert_eq!(answer["status"], "confirmed");
                });
            }
        });
        // And both instances' workers give the credits due at once.
        let settled: Vec<usize> = std::thread::scope(|scope| {
            let workers: Vec<_> = apps
                .iter()
                .map(|app| {
                    let barrier = &barrier;
                    scope.spawn(move || {
                        barrier.wait();
                        app.credit_due()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(
            settled.iter().sum::<usize>(),
            2,
            "round {round}: {settled:?}"
        );
        assert_eq!(
            referrer.line(&apps[1])["credits"],
            round + 1,
            "round {round}"
        );
    }
}

/// The server's places against the core's rule: random lines (sign-ups through random
/// members' links, confirmations, invitations, erasures), then every member's place as
/// the manage page shows it, and the order a wave takes, each as
/// `lathe_core::line::place` and `order` give them over the same standings.
fn places_are_the_cores(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let mut random = Random(0x5eed_1a7e);
    let mut members: Vec<(String, Member)> = Vec::new();
    let mut pending: Vec<(String, String, String)> = Vec::new(); // email, confirm, manage
    for n in 0..60 {
        let email = format!("p{n}@example.com");
        let body = match random.below(3) {
            0 if !members.is_empty() => {
                let (_, referrer) = &members[random.below(members.len())];
                sign_up_by(&email, &referrer.code(&app))
            }
            _ => sign_up(&email),
        };
        assert_eq!(post(app.address, &body).status, 201);
        let sent = latest_to(&app, &smtp, &email);
        pending.push((
            email,
            sent.token("confirm").unwrap(),
            sent.token("manage").unwrap(),
        ));
        // Confirm one of those waiting, at random, most of the time.
        if random.below(4) > 0 {
            let (email, confirm, manage) = pending.swap_remove(random.below(pending.len()));
            assert_eq!(
                json(&post_token(app.address, CONFIRM, &confirm))["status"],
                "confirmed"
            );
            members.push((email, Member { manage }));
        }
        // The worker's batches come when they come: several credits in one, or an
        // erasure first.
        if random.below(3) == 0 {
            app.credit_due();
        }
        match random.below(12) {
            0 => {
                let expected = core_order(database);
                let (ok, out, said) = invite(database, "Hi\n\nHello {name}.", &["--count", "2"]);
                assert!(ok, "{said}");
                let invited: Vec<String> = out
                    .lines()
                    .map(|l| l.split('\t').next().unwrap().to_owned())
                    .collect();
                let head: Vec<String> = expected.into_iter().take(2).collect();
                assert_eq!(invited, head);
            }
            1 if !members.is_empty() => {
                let (_, gone) = members.swap_remove(random.below(members.len()));
                post_token(app.address, ERASE, &gone.manage);
            }
            _ => {}
        }
    }
    app.credit_due();
    let standings = standings(database);
    let line: Vec<CoreStanding> = standings.iter().map(|(_, s)| *s).collect();
    let mut checked = 0;
    for (email, member) in &members {
        let shown = member.line(&app);
        match standings.iter().find(|(e, _)| e == email) {
            Some((_, standing)) => {
                let expected = place(*standing, &line, 5);
                assert_eq!(shown["place"], expected, "{email}: {shown}");
                checked += 1;
            }
            None => assert_eq!(shown["place"], Value::Null, "{email} was invited"),
        }
        assert_eq!(shown["of"], line.len());
    }
    assert!(checked > 10, "only {checked} places compared");
    assert!(
        line.iter().any(|s| s.credits > 0),
        "no credit in the line: the seed tests nothing"
    );
}

lathe_site_testkit::on_both_databases!(places_are_the_cores);

/// Each entry in line, as the core sees it: its address, confirmation number and credits.
fn standings(database: &Location) -> Vec<(String, CoreStanding)> {
    let text = sql_text(
        database,
        "SELECT COALESCE(STRING_AGG(email || ' ' || line_number || ' ' || credits, ','), '')
         FROM waitlist JOIN standings USING (id) WHERE line_key IS NOT NULL",
    );
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|row| {
            let mut parts = row.split(' ');
            let email = parts.next().unwrap().to_owned();
            let confirmed = parts.next().unwrap().parse().unwrap();
            let credits = parts.next().unwrap().parse().unwrap();
            (email, CoreStanding { confirmed, credits })
        })
        .collect()
}

/// The addresses in line, in the core's order.
fn core_order(database: &Location) -> Vec<String> {
    let mut standings = standings(database);
    standings.sort_by_key(|(_, s)| lathe_core::line::key(*s, 5));
    standings.into_iter().map(|(email, _)| email).collect()
}

/// A small deterministic generator (SplitMix64): the same lines on every run.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        usize::try_from((z ^ (z >> 31)) % n as u64).unwrap()
    }
}

/// On PostgreSQL the credits due are given by two transactions at once, each the share of
/// the friends whose confirmation's time is odd or even: one run gives both shares. Here
/// to a referrer not confirmed yet (given a standing by the credit), who then takes its
/// place ahead of both friends.
#[test]
fn on_postgresql_one_run_gives_both_shares_of_the_credits_due() {
    use lathe_site::store::{Confirmed, Settled, Store};

    let postgres = Postgres::start();
    crate::helpers::run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        let pool = sqlx::AnyPool::connect(&postgres.location.url)
            .await
            .unwrap();
        let join = |email: &'static str, code: Option<String>| {
            let store = store.clone();
            async move {
                let entry = crate::helpers::entry(email);
                let signed_up = store.sign_up(&entry, true, None, code.as_deref(), None);
                signed_up.await.unwrap().unwrap();
            }
        };
        join("referrer@example.com", None).await;
        let referrer = links(&pool, "referrer@example.com").await;
        let now = lathe_site::now_ms();
        for (at, email) in [(now + 1, "odd@example.com"), (now + 2, "even@example.com")] {
            join(email, Some(referrer.referral_code.clone())).await;
            let friend = links(&pool, email).await;
            assert_eq!(
                store
                    .confirm(&friend.id, &friend.confirm_nonce, at)
                    .await
                    .unwrap(),
                Confirmed::Now
            );
        }
        assert_eq!(
            store.credit_due(now + 3).await.unwrap(),
            Settled {
                friends: 2,
                credited: 2
            }
        );
        let standing = store.standing(&referrer.id).await.unwrap().unwrap();
        assert_eq!((standing.credits, standing.place), (2, None));
        let confirmed = store.confirm(&referrer.id, &referrer.confirm_nonce, now + 4);
        assert_eq!(confirmed.await.unwrap(), Confirmed::Now);
        let standing = store.standing(&referrer.id).await.unwrap().unwrap();
        assert_eq!((standing.place, standing.of), (Some(1), 3));
        pool.close().await;
        store.close().await;
    });
}

/// On PostgreSQL an address erased while its confirmation is under way leaves the line's
/// count as it found it: the erasure's one statement, which waited for the row, finds it
/// confirmed and leaves it to a transaction that locks the row first and counts the
/// standing the confirmation gave it out of the line.
#[test]
fn on_postgresql_an_erasure_behind_a_confirmation_counts_its_standing_out() {
    use lathe_site::domain::ErasedBy;
    use lathe_site::store::{Confirmed, Store};
    use sqlx::Connection as _;

    let postgres = Postgres::start();
    crate::helpers::run(async {
        let store = Store::open(&postgres.location).await.unwrap();
        let url = &postgres.location.url;
        let mut watcher = sqlx::AnyConnection::connect(url).await.unwrap();
        for email in ["standing@example.com", "racing@example.com"] {
            let entry = crate::helpers::entry(email);
            store
                .sign_up(&entry, true, None, None, None)
                .await
                .unwrap()
                .unwrap();
        }
        let standing = links(&mut watcher, "standing@example.com").await;
        let now = lathe_site::now_ms();
        assert_eq!(
            store
                .confirm(&standing.id, &standing.confirm_nonce, now)
                .await
                .unwrap(),
            Confirmed::Now
        );
        let Links {
            id: racing,
            confirm_nonce: nonce,
            ..
        } = links(&mut watcher, "racing@example.com").await;

        // The row held; its confirmation, then its erasure, wait for it in that order.
        let mut holder = sqlx::AnyConnection::connect(url).await.unwrap();
        let mut held = holder.begin().await.unwrap();
        sqlx::query("SELECT 1 FROM waitlist WHERE id = $1 FOR UPDATE")
            .bind(&racing)
            .fetch_all(&mut *held)
            .await
            .unwrap();
        let mut waiting = vec![];
        for n in 1..=2_i64 {
            let store = store.clone();
            let (id, nonce) = (racing.clone(), nonce.clone());
            waiting.push(tokio::spawn(async move {
                if n == 1 {
                    let confirmed = store.confirm(&id, &nonce, now).await.unwrap();
                    assert_eq!(confirmed, Confirmed::Now);
                } else {
                    let erased = store.erase("racing@example.com", ErasedBy::Owner, now);
                    assert!(erased.await.unwrap());
                }
            }));
            while sqlx::query_scalar::<_, i64>(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
            )
            .fetch_one(&mut watcher)
            .await
            .unwrap()
                < n
            {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        }
        held.commit().await.unwrap();
        for task in waiting {
            task.await.unwrap();
        }
        let (counted, standing_now): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT CAST(SUM(n) AS BIGINT) FROM line_counts),
                 (SELECT COUNT(*) FROM standings WHERE line_key IS NOT NULL)",
        )
        .fetch_one(&mut watcher)
        .await
        .unwrap();
        assert_eq!(
            (counted, standing_now),
            (1, 1),
            "the line's count and who stands in it"
        );
        let standing = store.standing(&standing.id).await.unwrap().unwrap();
        assert_eq!((standing.place, standing.of), (Some(1), 1));
        store.close().await;
    });
}
