//! One-click unsubscribe (RFC 8058) on both databases, with a real SMTP server: the
//! invitation's two headers and its link, the POST a mail provider sends (no cookie, no
//! Origin, nothing but the URL's token) unsubscribing at once with a 200 and no redirect,
//! a GET (a link scanner's) changing nothing, other links' tokens refused there and this
//! one refused elsewhere, a repeat harmless, and an unsubscribed address never mailed or
//! invited again, with only the erasure's record kept.

use lathe_site::domain::token::{Key, Purpose};
use lathe_site::store::Location;
use lathe_site_testkit::{Email, Reply, Smtp, export, get, owner, post_to, post_token, status_of};

use crate::helpers::{KEY, TestApp, sql_text};
use crate::invitations::confirmed;

const LETTER: &str = "Your early access to Lathe, {name}\n\nDear {name},\n\nYou are in.\n";

/// The POST a mail provider sends for its reader's one click: form-encoded, no cookie,
/// no Origin (RFC 8058 §3.2).
fn one_click(address: std::net::SocketAddr, path: &str) -> Reply {
    post_to(
        address,
        path,
        &["Content-Type: application/x-www-form-urlencoded"],
        b"List-Unsubscribe=One-Click",
    )
}

/// The same as multipart form data, as some providers send it.
fn one_click_multipart(address: std::net::SocketAddr, path: &str) -> Reply {
    let body = "--b\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--b--\r\n";
    post_to(
        address,
        path,
        &["Content-Type: multipart/form-data; boundary=b"],
        body.as_bytes(),
    )
}

/// The page's heading.
fn heading(reply: &Reply) -> String {
    let text = reply.text();
    let start = text.find("<h1>").map(|i| i + 4).unwrap_or_default();
    let end = text.find("</h1>").unwrap_or_default();
    text[start..end].to_owned()
}

fn emails_of(database: &Location) -> Vec<String> {
    export(database)
        .iter()
        .map(|e| e["email"].as_str().unwrap().to_owned())
        .collect()
}

/// Invites `count` more with [`LETTER`] and sends their emails: the invitations.
fn invite(app: &TestApp, smtp: &Smtp, database: &Location, count: &str) -> Vec<Email> {
    let before = smtp.messages().len();
    let (ok, _, said) = crate::helpers::invite(database, LETTER, &["--count", count]);
    assert!(ok, "{said}");
    app.deliver_due();
    smtp.messages().into_iter().skip(before).collect()
}

/// Other links' tokens do nothing at `path`'s endpoint, and its token nothing elsewhere.
fn other_links_do_nothing_here(address: std::net::SocketAddr, email: &Email, path: &str) {
    let token = path.split_once("?token=").unwrap().1.to_owned();
    let manage = email.token("manage").unwrap();
    let claims = Key::new(KEY)
        .unwrap()
        .verify(&manage, Purpose::Manage, 0)
        .unwrap();
    let forged = Key::new("another key, also more than 32 bytes")
        .unwrap()
        .sign(&lathe_site::domain::token::Claims {
            purpose: Purpose::Unsubscribe,
            ..claims
        });
    for wrong in [manage.as_str(), forged.as_str(), "junk", ""] {
        let wrong_path = format!("/api/waitlist/unsubscribe?token={wrong}");
        let refused = one_click(address, &wrong_path);
        assert_eq!(refused.status, 400, "{wrong}");
        assert_eq!(heading(&refused), "This link is not one of ours");
        assert_eq!(get(address, &wrong_path).status, 400);
    }
    assert_eq!(one_click(address, "/api/waitlist/unsubscribe").status, 400);
    for elsewhere in [
        "/api/waitlist/manage",
        "/api/waitlist/erase",
        "/api/waitlist/confirm",
    ] {
        assert_eq!(
            status_of(&post_token(address, elsewhere, &token)),
            (400, "invalid".into()),
            "{elsewhere}"
        );
    }
}

fn unsubscribes_in_one_click_and_for_good(database: &Location) {
    let smtp = Smtp::start();
    let app = TestApp::confirming(database, &smtp);
    let address = app.address;
    let everyone = ["a1@example.com", "a2@example.com", "a3@example.com"];
    confirmed(&app, &smtp, database, &everyone, &[]);
    for email in smtp.messages() {
        assert_eq!(
            email.list_unsubscribe, "",
            "transactional: {}",
            email.subject
        );
        assert_eq!(email.list_unsubscribe_post, "");
    }
    let invitations = invite(&app, &smtp, database, "2");
    assert_eq!(invitations.len(), 2);
    let a1 = invitations.iter().find(|e| e.to == everyone[0]).unwrap();
    let a2 = invitations.iter().find(|e| e.to == everyone[1]).unwrap();

    // The two headers, naming the link the text shows.
    let path = a1.unsubscribe_path().expect("the link in the text");
    assert!(
        path.starts_with("/api/waitlist/unsubscribe?token=v1.u."),
        "{path}"
    );
    assert_eq!(
        a1.list_unsubscribe,
        format!("<https://lathe.example.com{path}>")
    );
    assert_eq!(a1.list_unsubscribe_post, "List-Unsubscribe=One-Click");
    assert_ne!(a2.unsubscribe_path(), Some(path.clone()), "a link each");

    // A GET (a link scanner, or a reader without one-click) changes nothing: one button.
    let page = get(address, &path);
    assert_eq!(page.status, 200);
    assert_eq!(heading(&page), "Unsubscribe from the waitlist");
    assert_eq!(page.text().matches("<button").count(), 1);
    assert!(page.text().contains("<form method=\"post\">"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    // Its own policy (its style by hash, its form to itself), not the site's build's.
    let policy = page.header("content-security-policy").unwrap();
    assert!(
        policy.starts_with("default-src 'none'; style-src 'sha256-")
            && policy.contains("; form-action 'self';"),
        "{policy}"
    );
    assert_eq!(emails_of(database).len(), 3);

    other_links_do_nothing_here(address, a1, &path);
    assert_eq!(emails_of(database).len(), 3);

    // The provider's POST: unsubscribed at once, 200, no redirect.
    let done = one_click(address, &path);
    assert_eq!(done.status, 200, "{}", done.text());
    assert_eq!(done.header("location"), None);
    assert_eq!(heading(&done), "You are unsubscribed");
    assert_eq!(emails_of(database), &everyone[1..]);
    // A repeat, and the page after, are harmless.
    let again = one_click_multipart(address, &path);
    assert_eq!(
        (again.status, heading(&again)),
        (200, "You are unsubscribed".into())
    );
    let after = get(address, &path);
    assert_eq!(
        (after.status, heading(&after)),
        (200, "Nothing to unsubscribe".into())
    );
    assert!(!after.text().contains("<button"));

    // Kept: the erasure's record, why, and nothing about whose.
    assert_eq!(
        sql_text(
            database,
            "SELECT COUNT(*) FROM erasures WHERE erased_by = 'unsubscribed'"
        ),
        "1"
    );
    let (ok, stats, _) = owner(database, &["stats"]);
    assert!(ok);
    assert!(
        stats.contains("waves 1: 2 invited; 1 unsubscribed\n"),
        "{stats}"
    );

    // Never mailed or invited again: the next wave takes the last one only, and nothing
    // waits in the outbox for the address.
    let later = invite(&app, &smtp, database, "10");
    let to: Vec<&str> = later.iter().map(|e| e.to.as_str()).collect();
    assert_eq!(to, [everyone[2]]);
    assert_eq!(
        sql_text(
            database,
            "SELECT COUNT(*) FROM outbox WHERE email_key = 'a1@example.com'"
        ),
        "0"
    );
    assert!(
        smtp.messages()
            .iter()
            .filter(|e| e.to == everyone[0])
            .count()
            == 2
    );

    // The multipart form unsubscribes as well.
    let path = a2.unsubscribe_path().unwrap();
    assert_eq!(
        heading(&one_click_multipart(address, &path)),
        "You are unsubscribed"
    );
    assert_eq!(emails_of(database), [everyone[2]]);
}

lathe_site_testkit::on_both_databases!(unsubscribes_in_one_click_and_for_good);
