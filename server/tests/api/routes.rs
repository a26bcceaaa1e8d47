//! The routes called without a socket (`oneshot`), where a test must see what one request
//! did to the metrics and the log: each route family counts and logs its own refusals.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use lathe_site::config::Config;
use lathe_site::domain::token::Key;
use lathe_site::startup::Application;
use lathe_site::waitlist::proof::Proofs;
use lathe_site_testkit::sqlite;
use metrics_exporter_prometheus::PrometheusBuilder;
use tower::ServiceExt;

use crate::helpers::{KEY, collecting, confirming_without_mail, unlimited};

/// What one request got, and what it did to the metrics and the log.
struct Seen {
    status: StatusCode,
    body: String,
    metrics: String,
    log: String,
}

/// A log writer into a buffer the test reads.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Sends `request` to the application built from `config`, on this thread, with a
/// recorder and a log of its own.
fn answer(config: Config, request: Request<Body>) -> Seen {
    let recorder = PrometheusBuilder::new().build_recorder();
    let metrics = recorder.handle();
    let log = Buffer::default();
    let writer = log.clone();
    let logs = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, body) = tracing::subscriber::with_default(logs, || {
        metrics::with_local_recorder(&recorder, || {
            runtime.block_on(async {
                let app = Application::build(config).await.unwrap();
                let response = app.service().oneshot(request).await.unwrap();
                let status = response.status();
                let body = response.into_body().collect().await.unwrap().to_bytes();
                (status, String::from_utf8_lossy(&body).into_owned())
            })
        })
    });
    let log = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    Seen {
        status,
        body,
        metrics: metrics.render(),
        log,
    }
}

fn post(path: &str, content_type: &str, body: &str) -> Request<Body> {
    Request::post(path)
        .header("content-type", content_type)
        .body(Body::from(body.to_owned()))
        .unwrap()
}

#[test]
fn a_link_request_that_is_not_json_is_a_links_refusal_not_a_sign_ups() {
    let database = sqlite();
    let seen = answer(
        confirming_without_mail(&database),
        post("/api/waitlist/confirm", "text/plain", "x"),
    );
    assert_eq!(seen.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        seen.body,
        r#"{"error":"send the link's token as JSON (Content-Type: application/json)"}"#
    );
    assert!(
        seen.metrics
            .contains("lathe_link_requests_refused_total{reason=\"not-json\"} 1"),
        "{}",
        seen.metrics
    );
    assert!(
        !seen.metrics.contains("lathe_sign_ups_refused_total"),
        "{}",
        seen.metrics
    );
    assert!(seen.log.contains("link request refused"), "{}", seen.log);
    assert!(!seen.log.contains("sign-up refused"), "{}", seen.log);
}

#[test]
fn a_sign_up_that_is_not_json_is_a_sign_ups_refusal() {
    let database = sqlite();
    let seen = answer(
        collecting(&database, unlimited()),
        post("/api/waitlist", "text/plain", "x"),
    );
    assert_eq!(seen.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        seen.metrics
            .contains("lathe_sign_ups_refused_total{reason=\"not-json\"} 1"),
        "{}",
        seen.metrics
    );
    assert!(!seen.metrics.contains("lathe_link_requests_refused_total"));
    assert!(seen.log.contains("sign-up refused"), "{}", seen.log);
}

#[test]
fn without_smtp_the_link_routes_say_so_once_whatever_is_posted() {
    let database = sqlite();
    for (content_type, body) in [
        ("application/json", r#"{"token":"x"}"#),
        ("text/plain", "x"),
    ] {
        let seen = answer(
            collecting(&database, unlimited()),
            post("/api/waitlist/erase", content_type, body),
        );
        assert_eq!(seen.status, StatusCode::NOT_FOUND);
        assert_eq!(
            seen.body,
            r#"{"error":"this server does not confirm addresses: start it with --smtp"}"#
        );
        assert!(
            seen.metrics
                .contains("lathe_link_requests_refused_total{reason=\"not-confirming\"} 1"),
            "{}",
            seen.metrics
        );
    }
}

/// `GET path` on the owner's listener over `database` (or none), with a recorder of its
/// own: the status, the content security policy and the body.
fn owners(
    database: Option<&lathe_site::store::Location>,
    path: &str,
) -> (StatusCode, String, String) {
    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    metrics::with_local_recorder(&recorder, || {
        runtime.block_on(async {
            let store = match database {
                Some(location) => Some(lathe_site::store::Store::open(location).await.unwrap()),
                None => None,
            };
            let owner = lathe_site::operations::dashboard::router(handle, store);
            let response = owner
                .oneshot(Request::get(path).body(Body::empty()).unwrap())
                .await
                .unwrap();
            let status = response.status();
            let policy = response
                .headers()
                .get("content-security-policy")
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            (status, policy, String::from_utf8_lossy(&body).into_owned())
        })
    })
}

#[test]
fn the_owners_page_draws_the_figures_and_the_metrics_count_the_entries() {
    let database = sqlite();
    let app = crate::helpers::TestApp::collecting(&database, unlimited());
    for email in ["a@example.com", "b@example.com", "c@example.com"] {
        let body = lathe_site_testkit::sign_up(email);
        assert_eq!(lathe_site_testkit::post(app.address, &body).status, 201);
    }
    crate::helpers::sql(
        &database,
        "UPDATE waitlist SET status = 'confirmed', confirmed_at = created_at
         WHERE email_key = 'a@example.com'",
    );
    crate::helpers::sql(
        &database,
        "INSERT INTO standings (id, line_number, line_key)
         SELECT id, 1, 1 FROM waitlist WHERE email_key = 'a@example.com'",
    );
    crate::helpers::sql(
        &database,
        "INSERT INTO line_counts (bucket, stripe, n) VALUES (0, 0, 1)",
    );
    let letter = "<script>alert(1)</script> for {name}

Hello
";
    let (ok, _, said) = crate::helpers::invite(&database, letter, &["--count", "1"]);
    assert!(ok, "{said}");

    let (status, policy, page) = owners(Some(&database), "/");
    assert_eq!(status, StatusCode::OK);
    assert!(
        policy.starts_with("default-src 'none'; style-src 'sha256-"),
        "{policy}"
    );
    assert!(
        page.contains("<h2 id=\"entries\">Entries: 3</h2>"),
        "{page}"
    );
    assert!(page.contains("<li><span>unconfirmed</span>"), "{page}");
    assert!(page.contains("<span>2</span></li>"), "two unconfirmed");
    assert!(
        page.contains("<p class=\"figure\">100 %</p>"),
        "the one asked confirmed"
    );
    assert_eq!(
        page.matches("<g><title>").count(),
        30,
        "a column pair a day"
    );
    assert!(
        page.contains(": 3 sign-ups (0 through a share link), 1 confirmations</title>"),
        "today"
    );
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt; for {name}"),
        "the subject is text"
    );
    assert!(!page.contains("<script>"), "no script at all");
    assert!(page.contains("<a href=\"/metrics\">/metrics</a>"));

    let (status, _, metrics) = owners(Some(&database), "/metrics");
    assert_eq!(status, StatusCode::OK);
    for line in [
        "lathe_entries{status=\"unconfirmed\"} 2",
        "lathe_entries{status=\"invited\"} 1",
        "lathe_entries{status=\"confirmed\"} 0",
    ] {
        assert!(metrics.contains(line), "{line} in {metrics}");
    }

    let (status, _, page) = owners(None, "/");
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("This server collects no sign-ups: start it with --database."));
}

#[test]
fn each_challenge_issued_is_counted_and_a_server_without_proofs_issues_none() {
    let database = sqlite();
    let get = || {
        Request::get("/api/waitlist/challenge")
            .body(Body::empty())
            .unwrap()
    };
    let mut config = collecting(&database, unlimited());
    config.waitlist.as_mut().unwrap().proofs = Some(Proofs::new(&Key::new(KEY).unwrap()));
    let seen = answer(config, get());
    assert_eq!(seen.status, StatusCode::OK);
    assert!(
        seen.metrics.contains("lathe_challenges_total 1"),
        "{}",
        seen.metrics
    );
    let seen = answer(collecting(&database, unlimited()), get());
    assert_eq!(seen.status, StatusCode::NO_CONTENT);
    assert!(
        !seen.metrics.contains("lathe_challenges_total"),
        "{}",
        seen.metrics
    );
}
