//! The routes called without a socket (`oneshot`), where a test must see what one request
//! did to the metrics and the log: each route family counts and logs its own refusals.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use lathe_site::config::Config;
use lathe_site::startup::Application;
use lathe_site_testkit::sqlite;
use metrics_exporter_prometheus::PrometheusBuilder;
use tower::ServiceExt;

use crate::helpers::{collecting, confirming_without_mail, unlimited};

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
