//! Every kind of email the server sends (the confirmation, "already on the list", an
//! invitation), read as receiving mail systems read it (the test kit's
//! `read_as_received`: Python's strict mail parser, dkimpy, SpamAssassin; none of them
//! ours): the headers receivers demand, DKIM signatures that verify with an RSA and an
//! Ed25519 key and fail when a byte of the body or a signed header changes, and a spam
//! score of at most 1.0.

use std::io::Write as _;
use std::path::PathBuf;

use lathe_site::mail::MailServer;
use lathe_site::mail::dkim::{DkimKey, Published, Signer};
use lathe_site_testkit::{Smtp, post, post_token, read_as_received, sign_up, sqlite, status_of};
use serde_json::Value;

use crate::helpers::{TestApp, collecting, invite, mail, unlimited};

/// The highest SpamAssassin score an email may have (its local rules; 5.0 is spam).
const SPAM_LIMIT: f64 = 1.0;

const LETTER: &str = "Your early access to Lathe, {name}\n\nDear {name},\n\nYour place has come up: download Lathe from the link in your account.\n";

/// A test key (`server/tests/fixtures/dkim/`), and where its record would be published.
fn key(file: &str) -> (DkimKey, Published) {
    let path = format!("{}/tests/fixtures/dkim/{file}", env!("CARGO_MANIFEST_DIR"));
    let key = DkimKey::from_pem(&std::fs::read_to_string(path).unwrap()).unwrap();
    let at = Published {
        selector: "lathe2026".into(),
        domain: "example.com".into(),
    };
    (key, at)
}

/// One of each kind of email, as the sink caught them, from a server sending through
/// `server` (the test's, as `customise` leaves it): a sign-up's confirmation, the same
/// address again once confirmed, then a wave's invitation.
fn one_of_each(customise: impl FnOnce(MailServer) -> MailServer) -> (Smtp, Vec<PathBuf>) {
    let database = sqlite();
    let smtp = Smtp::start();
    let mut config = collecting(&database, unlimited());
    let mut mail = mail(&smtp);
    mail.server = customise(mail.server);
    config.waitlist.as_mut().unwrap().mail = Some(mail);
    let app = TestApp::start(config);

    assert_eq!(post(app.address, &sign_up("ada@example.com")).status, 201);
    app.deliver_due();
    let token = smtp.messages()[0].token("confirm").unwrap();
    let confirmed = post_token(app.address, "/api/waitlist/confirm", &token);
    assert_eq!(status_of(&confirmed).0, 200);
    assert_eq!(post(app.address, &sign_up("ada@example.com")).status, 201);
    app.deliver_due();
    let (ok, _, said) = invite(&database, LETTER, &["--count", "1"]);
    assert!(ok, "{said}");
    app.deliver_due();

    let files = smtp.message_files();
    let subjects: Vec<String> = smtp.messages().into_iter().map(|m| m.subject).collect();
    assert_eq!(
        subjects,
        [
            "Confirm your place on the Lathe waitlist",
            "You are already on the Lathe waitlist",
            "Your early access to Lathe, Ada Lovelace",
        ]
    );
    (smtp, files)
}

/// The headers every email must carry, once each, well formed.
fn has_the_headers_receivers_demand(email: &Value) {
    let headers = &email["headers"];
    assert!(
        headers["From"].as_str().unwrap().ends_with("@example.com>"),
        "{email}"
    );
    assert_eq!(headers["To"], "ada@example.com");
    assert_eq!(headers["MIME-Version"], "1.0");
    assert_eq!(email["content_type"], "text/plain");
    assert_eq!(email["charset"], "utf-8");
    assert_eq!(email["message_id_well_formed"], true, "{email}");
    let id = headers["Message-ID"].as_str().unwrap();
    assert!(
        id.ends_with("@example.com>"),
        "at the sender's domain: {id}"
    );
    assert!(email["date"].is_string(), "a Date that parses: {email}");
    for name in [
        "From",
        "To",
        "Subject",
        "Date",
        "Message-ID",
        "MIME-Version",
        "Content-Type",
    ] {
        assert_eq!(email["counts"][name], 1, "one {name}: {email}");
    }
    assert!(
        email["text"]
            .as_str()
            .unwrap()
            .contains("https://lathe.example.com/manage#"),
        "the text decodes: {email}"
    );
}

#[test]
fn every_email_has_the_headers_receivers_demand_and_a_low_spam_score() {
    let (_smtp, files) = one_of_each(|server| server);
    let emails = read_as_received(&files, None, true);
    let mut ids: Vec<&str> = Vec::new();
    for email in &emails {
        has_the_headers_receivers_demand(email);
        assert!(
            email["headers"].get("DKIM-Signature").is_none(),
            "no key, no signature"
        );
        ids.push(email["headers"]["Message-ID"].as_str().unwrap());
        let score = email["spamassassin"]["score"].as_f64().unwrap();
        let rules = &email["spamassassin"]["rules"];
        // Straight to stderr, past the test harness's capture: make test's log shows the
        // rules that fired for every kind of email, passing or not.
        let _ = writeln!(
            std::io::stderr(),
            "{}: SpamAssassin {score} ({rules})",
            email["headers"]["Subject"]
        );
        assert!(
            score <= SPAM_LIMIT,
            "{}: {score}, {rules}",
            email["headers"]["Subject"]
        );
        assert!(
            !rules
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r == "MISSING_MID" || r == "MISSING_DATE"),
            "{rules}"
        );
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 3, "a Message-ID of its own each");
    // RFC 8058's one-click on the invitation (subscription mail) only, each header once.
    for transactional in &emails[..2] {
        assert!(transactional["headers"].get("List-Unsubscribe").is_none());
        assert!(
            transactional["headers"]
                .get("List-Unsubscribe-Post")
                .is_none()
        );
    }
    let invitation = &emails[2];
    let url = invitation["headers"]["List-Unsubscribe"].as_str().unwrap();
    assert!(
        url.starts_with("<https://lathe.example.com/api/waitlist/unsubscribe?token=v1.u.")
            && url.ends_with('>'),
        "{url}"
    );
    assert_eq!(
        invitation["headers"]["List-Unsubscribe-Post"],
        "List-Unsubscribe=One-Click"
    );
    assert_eq!(invitation["counts"]["List-Unsubscribe"], 1);
    assert_eq!(invitation["counts"]["List-Unsubscribe-Post"], 1);
    assert!(
        invitation["text"]
            .as_str()
            .unwrap()
            .contains(&format!("\r\n{}\r\n", &url[1..url.len() - 1])),
        "the same link in the text: {}",
        invitation["text"]
    );
}

/// Every email signed with `file`'s key verifies with dkimpy against the record
/// `dkim-record` prints, relaxed/relaxed, over the headers it must cover; a changed byte
/// of the body or a changed Subject fails it.
fn signed_with(file: &str, algorithm: &str) {
    let (key, at) = key(file);
    let (_smtp, files) = one_of_each(|server| server.signed_by(Signer::new(&key, &at)));
    let emails = read_as_received(&files, Some(&key.record()), false);
    for (n, email) in emails.iter().enumerate() {
        has_the_headers_receivers_demand(email);
        assert_eq!(email["dkim"]["verifies"], true, "{email}");
        assert_eq!(email["dkim"]["body_changed_verifies"], false, "{email}");
        assert_eq!(email["dkim"]["subject_changed_verifies"], false, "{email}");
        let signature = email["headers"]["DKIM-Signature"].as_str().unwrap();
        let tags: Vec<&str> = signature.split(';').map(str::trim).collect();
        assert!(
            tags.contains(&format!("a={algorithm}-sha256").as_str()),
            "{signature}"
        );
        assert!(tags.contains(&"d=example.com"), "{signature}");
        assert!(tags.contains(&"s=lathe2026"), "{signature}");
        assert!(tags.contains(&"c=relaxed/relaxed"), "{signature}");
        let mut signed =
            String::from("h=from:to:subject:date:message-id:mime-version:content-type");
        if n == 2 {
            // The invitation is subscription mail: its unsubscribe headers are signed too.
            signed.push_str(":list-unsubscribe:list-unsubscribe-post");
        }
        assert!(tags.contains(&signed.as_str()), "{signature}");
    }
}

#[test]
fn emails_signed_with_an_rsa_key_verify_with_dkims_reference_implementation() {
    signed_with("rsa2048.pem", "rsa");
}

#[test]
fn emails_signed_with_an_ed25519_key_verify_with_dkims_reference_implementation() {
    signed_with("ed25519.pem", "ed25519");
}

#[test]
fn invitations_come_from_their_own_sender_where_one_is_given() {
    let (_smtp, files) = one_of_each(|server| {
        server
            .invitations_from("Lathe news <news@example.com>")
            .unwrap()
    });
    let emails = read_as_received(&files, None, false);
    let from: Vec<&str> = emails
        .iter()
        .map(|email| email["headers"]["From"].as_str().unwrap())
        .collect();
    assert_eq!(
        from,
        [
            "Lathe <hello@example.com>",
            "Lathe <hello@example.com>",
            "Lathe news <news@example.com>",
        ]
    );
    for email in &emails {
        has_the_headers_receivers_demand(email);
    }
}
