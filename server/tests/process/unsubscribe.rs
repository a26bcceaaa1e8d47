//! One-click unsubscribe across instances: two servers on one PostgreSQL, each posted the
//! same invitation's one-click at once, agree (every answer 200, the entry erased once,
//! one erasure, one count in `lathe_unsubscribes_total` between them, a log line without
//! the address).

use lathe_site_testkit::{
    Postgres, Reply, Smtp, export, owner, post, post_to, post_token, scratch, sign_up, status_of,
};

use crate::server::{Server, confirming, metric};

/// The POST a mail provider sends for its reader's one click.
fn one_click(server: &Server, path: &str) -> Reply {
    post_to(
        server.address,
        path,
        &["Content-Type: application/x-www-form-urlencoded"],
        b"List-Unsubscribe=One-Click",
    )
}

#[test]
fn two_instances_on_one_postgresql_unsubscribe_an_entry_once() {
    let postgres = Postgres::start();
    let database = &postgres.location;
    let smtp = Smtp::start();
    let metrics = ["--metrics-addr", "127.0.0.1:0"];
    let (a, b) = (
        confirming(database, &smtp, &metrics),
        confirming(database, &smtp, &metrics),
    );
    assert_eq!(post(a.address, &sign_up("uma@example.com")).status, 201);
    assert_eq!(post(b.address, &sign_up("vic@example.com")).status, 201);
    for email in smtp.wait_for_messages(2) {
        let token = email.token("confirm").unwrap();
        let confirmed = post_token(a.address, "/api/waitlist/confirm", &token);
        assert_eq!(status_of(&confirmed).0, 200);
    }
    let letter = scratch(&format!("unsubscribe-letter-{}.txt", std::process::id()));
    std::fs::write(&letter, "Welcome, {name}\n\nIn you come.\n").unwrap();
    let (ok, _, said) = owner(
        database,
        &[
            "invite",
            "--count",
            "2",
            "--letter",
            letter.to_str().unwrap(),
            // At once: this test is not about the pace.
            "--mail-per-minute",
            "4294967295",
        ],
    );
    assert!(ok, "{said}");
    let invitations = smtp.wait_for_messages(4);
    let uma = invitations
        .iter()
        .rfind(|e| e.to == "uma@example.com")
        .unwrap();
    let path = uma.unsubscribe_path().expect("the invitation's link");

    // Eight one-clicks at once, four on each instance: each answered 200, one erasure.
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let clicks: Vec<_> = (0..8)
            .map(|n| {
                let (server, path) = (if n % 2 == 0 { &a } else { &b }, &path);
                scope.spawn(move || one_click(server, path).status)
            })
            .collect();
        clicks.into_iter().map(|c| c.join().unwrap()).collect()
    });
    assert_eq!(answers, [200; 8]);
    let left: Vec<_> = export(database)
        .iter()
        .map(|e| e["email"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(left, ["vic@example.com"]);
    let (ok, stats, _) = owner(database, &["stats"]);
    assert!(ok);
    assert!(
        stats.contains("waves 1: 2 invited; 1 unsubscribed\n"),
        "{stats}"
    );
    let counts: Vec<u64> = [&a, &b]
        .iter()
        .map(|server| metric(server.metrics.unwrap(), "lathe_unsubscribes_total "))
        .collect();
    assert_eq!(
        counts.iter().sum::<u64>(),
        1,
        "counted once, by the instance that erased it"
    );
    // Logged by that instance (its log is written from a thread of its own: waited for),
    // without the address.
    let erased_by = if counts[0] == 1 { &a } else { &b };
    let logged = erased_by.log_once_it_says("entry erased by its one-click unsubscribe");
    assert!(!logged.contains("uma@"), "{logged}");
}
