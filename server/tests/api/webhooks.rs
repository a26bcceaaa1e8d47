//! Webhooks to a real receiver that checks every delivery with the Standard Webhooks
//! reference library (`standardwebhooks`, from `PyPI`): the events and what each carries, one
//! event sent once, the same `webhook-id` on every retry after a 503 or while the receiver
//! is down, never a retry after a 4xx, and nothing kept about an erased entry.

use lathe_site::hooks::Receiver as HookReceiver;
use lathe_site::store::Location;
use lathe_site_testkit::webhooks::{Receiver, SECRET};
use lathe_site_testkit::{Smtp, owner, post, post_token, sign_up, sqlite, status_of};

use crate::helpers::{TestApp, collecting, mail, unlimited};

const HOUR: i64 = 60 * 60 * 1000;

/// The site collecting into `database`, telling `receiver`, confirming through `smtp` if
/// given.
fn telling(database: &Location, receiver: &Receiver, smtp: Option<&Smtp>) -> TestApp {
    let mut config = collecting(database, unlimited());
    let waitlist = config.waitlist.as_mut().unwrap();
    waitlist.webhooks = Some(HookReceiver::new(&receiver.url(), Some(SECRET)).unwrap());
    waitlist.mail = smtp.map(mail);
    TestApp::start(config)
}

/// A new SQLite database, a receiver, and the site collecting into the one and telling
/// the other, confirming nothing.
fn told() -> (lathe_site_testkit::Sqlite, Receiver, TestApp) {
    let database = sqlite();
    let receiver = Receiver::start();
    let app = telling(&database, &receiver, None);
    (database, receiver, app)
}

fn types(receiver: &Receiver) -> Vec<String> {
    receiver
        .deliveries()
        .iter()
        .map(|d| d.event["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Confirmed, invited, erased: each event verified, each carrying what it should.
fn tells_the_receiver_of_each_event(database: &Location) {
    let receiver = Receiver::start();
    let smtp = Smtp::start();
    let app = telling(database, &receiver, Some(&smtp));
    let now = lathe_site::now_ms();
    assert_eq!(post(app.address, &sign_up("ada@example.com")).status, 201);
    app.deliver_due();
    assert_eq!(
        app.deliver_events_at(now),
        0,
        "a pending address is no event"
    );
    let token = smtp.messages()[0].token("confirm").unwrap();
    assert_eq!(
        status_of(&post_token(app.address, "/api/waitlist/confirm", &token)).0,
        200
    );
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let letter = "Welcome, {name}

In you come.
";
    let (ok, _, said) = crate::helpers::invite(database, letter, &["--count", "1"]);
    assert!(ok, "{said}");
    app.deliver_due();
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let (ok, _, said) = owner(database, &["erase", "ada@example.com"]);
    assert!(ok, "{said}");
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);

    let got = receiver.deliveries();
    assert_eq!(
        types(&receiver),
        ["entry.confirmed", "invitation.sent", "entry.erased"]
    );
    let id = got[0].event["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        got[0].event["data"],
        serde_json::json!({
            "id": id, "name": "Ada Lovelace", "email": "ada@example.com", "interest": "enterprise",
        })
    );
    assert_eq!(got[1].event["data"]["wave"], 1);
    assert_eq!(got[1].event["data"]["email"], "ada@example.com");
    assert_eq!(
        got[2].event["data"],
        serde_json::json!({ "id": id }),
        "the id alone"
    );
    for delivery in &got {
        assert!(delivery.id.starts_with("msg_"), "{}", delivery.id);
        assert!(delivery.event["timestamp"].as_str().unwrap().ends_with('Z'));
    }
    assert_eq!(receiver.attempts().len(), 3, "each once");
}

/// The confirmed person's name, address and interest as they were written, whatever
/// characters they hold (on PostgreSQL the confirmation's statement puts them into the
/// event's body).
fn a_confirmed_name_of_any_characters_is_told_as_written(database: &Location) {
    let receiver = Receiver::start();
    let smtp = Smtp::start();
    let app = telling(database, &receiver, Some(&smtp));
    let name = "Zoë \"Z\" O'Brien \\ 東京 name";
    let body = lathe_site_testkit::sign_up_with("zoe@example.com", "name", name);
    assert_eq!(post(app.address, &body).status, 201);
    app.deliver_due();
    let token = smtp.messages()[0].token("confirm").unwrap();
    assert_eq!(
        status_of(&post_token(app.address, "/api/waitlist/confirm", &token)).0,
        200
    );
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let got = receiver.deliveries();
    assert_eq!(got[0].event["data"]["name"], name);
    assert_eq!(got[0].event["data"]["email"], "zoe@example.com");
}

lathe_site_testkit::on_both_databases!(
    a_confirmed_name_of_any_characters_is_told_as_written,
    tells_the_receiver_of_each_event,
    without_confirmation_a_new_entry_is_an_event_with_its_id_alone,
);

/// A friend confirmed through a share link: `referral.credited` with the referrer's id,
/// credits and new place, nothing of the friend.
#[test]
fn a_credited_referral_is_told_with_the_referrers_id_credits_and_place() {
    let database = sqlite();
    let (receiver, smtp) = (Receiver::start(), Smtp::start());
    let app = telling(&database, &receiver, Some(&smtp));
    crate::invitations::confirmed(
        &app,
        &smtp,
        &database,
        &["a@example.com", "b@example.com", "c@example.com"],
        &[],
    );
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 3);
    let code = crate::helpers::sql_text(
        &database,
        "SELECT referral_code FROM waitlist WHERE email_key = 'c@example.com'",
    );
    let friend = lathe_site_testkit::sign_up_with("friend@example.org", "ref", &code);
    assert_eq!(post(app.address, &friend).status, 201);
    app.deliver_due();
    let token = smtp.messages().last().unwrap().token("confirm").unwrap();
    assert_eq!(
        status_of(&post_token(app.address, "/api/waitlist/confirm", &token)).0,
        200
    );
    assert_eq!(
        app.credit_due(),
        1,
        "the friend's credit, given by the worker"
    );
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 2);
    let got = receiver.deliveries();
    let credited: Vec<_> = got
        .iter()
        .filter(|d| d.event["type"] == "referral.credited")
        .collect();
    let [credited] = credited[..] else {
        panic!("one referral.credited in {:?}", types(&receiver))
    };
    let id = crate::helpers::sql_text(
        &database,
        "SELECT id FROM waitlist WHERE email_key = 'c@example.com'",
    );
    // Third of four, five places a friend: number 3 less 5 is the head of the line.
    assert_eq!(
        credited.event["data"],
        serde_json::json!({ "id": id, "credits": 1, "place": 1 })
    );
}

#[test]
fn a_one_click_unsubscribe_is_told_as_entry_unsubscribed_with_the_id_alone() {
    let database = sqlite();
    let (receiver, smtp) = (Receiver::start(), Smtp::start());
    let app = telling(&database, &receiver, Some(&smtp));
    crate::invitations::confirmed(&app, &smtp, &database, &["uma@example.com"], &[]);
    // Each event delivered before the next is made: events due together go at once, in
    // no particular order (seen: invitation.sent arriving before entry.confirmed).
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let (ok, _, said) = crate::helpers::invite(
        &database,
        "Welcome, {name}\n\nIn you come.\n",
        &["--count", "1"],
    );
    assert!(ok, "{said}");
    app.deliver_due();
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let path = smtp.messages().last().unwrap().unsubscribe_path().unwrap();
    let done = lathe_site_testkit::post_to(
        app.address,
        &path,
        &["Content-Type: application/x-www-form-urlencoded"],
        b"List-Unsubscribe=One-Click",
    );
    assert_eq!(done.status, 200);
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    let got = receiver.deliveries();
    assert_eq!(
        types(&receiver),
        ["entry.confirmed", "invitation.sent", "entry.unsubscribed"]
    );
    let id = got[0].event["data"]["id"].clone();
    assert_eq!(got[2].event["data"], serde_json::json!({ "id": id }));
}

/// On PostgreSQL the event is kept by the sign-up's one statement: the same there.
fn without_confirmation_a_new_entry_is_an_event_with_its_id_alone(database: &Location) {
    let receiver = Receiver::start();
    let app = telling(database, &receiver, None);
    post(app.address, &sign_up("bea@example.com"));
    post(app.address, &sign_up("BEA@example.com"));
    assert_eq!(
        app.deliver_events_at(lathe_site::now_ms()),
        1,
        "a repeat is no new entry"
    );
    let got = receiver.deliveries();
    assert_eq!(types(&receiver), ["entry.created"]);
    let data = got[0].event["data"].as_object().unwrap();
    assert_eq!(
        data.keys().collect::<Vec<_>>(),
        ["id"],
        "nothing unconfirmed about anyone"
    );
}

#[test]
fn a_503_is_tried_again_with_the_same_id_and_a_2xx_ends_it() {
    let (_database, receiver, app) = told();
    receiver.answer(&[503, 500]);
    post(app.address, &sign_up("retry@example.com"));
    let now = lathe_site::now_ms();
    assert_eq!(app.deliver_events_at(now), 1);
    assert!(receiver.deliveries().is_empty());
    // Not before its backoff; then tried again (a 500), and again (a 204), as the clock
    // moves past each backoff; then never again.
    assert_eq!(app.deliver_events_at(now), 0);
    assert_eq!(app.deliver_events_at(now + HOUR), 2);
    assert_eq!(
        app.deliver_events_at(now + 2 * HOUR),
        0,
        "delivered: never sent again"
    );
    let attempts = receiver.attempts();
    let statuses: Vec<u16> = attempts.iter().map(|(_, s)| *s).collect();
    assert_eq!(statuses, [503, 500, 204]);
    assert!(
        attempts.iter().all(|(id, _)| *id == attempts[0].0),
        "{attempts:?}"
    );
    assert_eq!(receiver.deliveries().len(), 1);
    assert_eq!(receiver.deliveries()[0].id, attempts[0].0);
}

#[test]
fn a_4xx_is_never_tried_again() {
    let (_database, receiver, app) = told();
    receiver.answer(&[410]);
    post(app.address, &sign_up("gone@example.com"));
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    assert_eq!(app.deliver_events_at(lathe_site::now_ms() + 2 * HOUR), 0);
    assert_eq!(receiver.attempts().len(), 1);
}

#[test]
fn a_receiver_down_for_an_hour_misses_nothing() {
    let database = sqlite();
    let mut receiver = Receiver::down_at_first();
    let app = telling(&database, &receiver, None);
    for n in 0..3 {
        post(app.address, &sign_up(&format!("down{n}@example.com")));
    }
    // Every attempt through the hour finds no receiver, and is kept for the next.
    let now = lathe_site::now_ms();
    let mut at = now;
    while at < now + HOUR {
        app.deliver_events_at(at);
        at += 5 * 60 * 1000;
    }
    receiver.up();
    assert_eq!(app.deliver_events_at(now + 3 * HOUR), 3);
    assert_eq!(
        types(&receiver),
        ["entry.created", "entry.created", "entry.created"]
    );
    let mut ids: Vec<String> = receiver.deliveries().into_iter().map(|d| d.id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3);
}

#[test]
fn an_entry_erased_before_its_event_goes_takes_its_data_with_it() {
    let database = sqlite();
    let receiver = Receiver::start();
    let smtp = Smtp::start();
    let app = telling(&database, &receiver, Some(&smtp));
    post(app.address, &sign_up("cleo@example.com"));
    app.deliver_due();
    let token = smtp.messages()[0].token("confirm").unwrap();
    post_token(app.address, "/api/waitlist/confirm", &token);
    // Erased before the confirmation's event went: only the erasure is told.
    let manage = smtp.messages()[0].token("manage").unwrap();
    assert_eq!(
        status_of(&post_token(app.address, "/api/waitlist/erase", &manage)).0,
        200
    );
    assert_eq!(app.deliver_events_at(lathe_site::now_ms()), 1);
    assert_eq!(types(&receiver), ["entry.erased"]);
    let sent = serde_json::to_string(&receiver.deliveries()[0].event).unwrap();
    assert!(!sent.contains("cleo"), "{sent}");
}

#[test]
fn without_a_receiver_no_event_is_kept() {
    let database = sqlite();
    {
        let receiver = Receiver::start();
        let app = telling(&database, &receiver, None);
        post(app.address, &sign_up("early@example.com"));
    } // an event waits, undelivered, when the server stops
    let app = TestApp::collecting(&database, unlimited());
    post(app.address, &sign_up("later@example.com"));
    let kept = crate::helpers::sql_text(&database, "SELECT COUNT(*) FROM webhooks");
    assert_eq!(
        kept, "0",
        "dropped with the receiver, and none written since"
    );
}
