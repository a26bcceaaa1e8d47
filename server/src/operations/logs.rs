//! The server's log: one line a request (method, path, never the query, client, status,
//! bytes, duration), a line for each refusal and failure with its reason, and never a
//! value a visitor typed. Text or JSON, to standard error.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::header;
use axum::response::Response;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::trace::TraceLayer;
use tracing_subscriber::filter::Targets;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines (coloured on a terminal).
    Text,
    /// One JSON object a line, for log shippers.
    Json,
}

/// Which lines are written when `RUST_LOG` does not say: info and above, except the
/// database's chatter the store names ([`crate::store::QUIET`]).
fn default_filter() -> String {
    format!("info,{}", crate::store::QUIET)
}

/// The levels `RUST_LOG` asks for: a default level and levels per target
/// (`info,lathe_site=debug,sqlx=warn`), the syntax of `tracing-subscriber`'s `Targets`.
/// (Its `EnvFilter` also filters on spans' fields, which this server has no use for, and
/// built a regular-expression engine into it for that: matchers and regex-automata.)
/// Unset, [`default_filter`]; not understood, the same, and the reason.
fn filter(setting: Option<&str>) -> (Targets, Option<String>) {
    let default = || default_filter().parse().expect("the default filter parses");
    match setting.map(str::parse::<Targets>) {
        None => (default(), None),
        Some(Ok(targets)) => (targets, None),
        Some(Err(e)) => (default(), Some(e.to_string())),
    }
}

/// Logs to standard error at `RUST_LOG`'s levels (info, less the database's chatter,
/// unless it says otherwise).
///
/// Lines are formatted where they happen and written by a thread of their own, in
/// batches: a request's line no longer costs it a write to standard error (and the lock
/// around it), about a tenth of the server's requests per second. No line is dropped: when
/// the writer falls behind, loggers wait. The guard writes what is left when it drops.
pub fn init(format: Format) -> tracing_appender::non_blocking::WorkerGuard {
    use std::io::IsTerminal;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("logs")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let setting = std::env::var("RUST_LOG").ok();
    let (targets, not_understood) = filter(setting.as_deref());
    // The builder's own level (info unless told) would cap what `targets` lets through.
    let logs = tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_writer(writer)
        .with_target(false);
    match format {
        Format::Text => logs
            .with_ansi(std::io::stderr().is_terminal())
            .finish()
            .with(targets)
            .init(),
        Format::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .finish()
            .with(targets)
            .init(),
    }
    if let Some(reason) = not_understood {
        tracing::warn!(
            "RUST_LOG is not understood ({reason}): logging at {}",
            default_filter()
        );
    }
    guard
}

/// The layer that writes each request's line when it is answered.
pub type Logged = TraceLayer<
    SharedClassifier<ServerErrorsAsFailures>,
    fn(&Request) -> tracing::Span,
    (),
    fn(&Response, Duration, &tracing::Span),
    (),
    (),
    (),
>;

/// [`Logged`]: a span a request, and its line when the answer's head goes.
pub fn requests() -> Logged {
    TraceLayer::new_for_http()
        .make_span_with(request_span as fn(&Request) -> tracing::Span)
        .on_request(())
        .on_response(log_answer as fn(&Response, Duration, &tracing::Span))
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

/// The span of a request's log line: method, path (never the query) and client.
fn request_span(request: &Request) -> tracing::Span {
    // Fields are written only if the span is enabled (at `RUST_LOG=info` or finer).
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        client = client.map(tracing::field::display),
    )
}

/// A request's log line, when it is answered: status, bytes and duration, in its span.
fn log_answer(response: &Response, latency: Duration, _: &tracing::Span) {
    // The body's length as sent, where it is known before it is (not for a streamed
    // export).
    let bytes = response
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| axum::body::HttpBody::size_hint(response.body()).exact());
    tracing::info!(
        status = response.status().as_u16(),
        bytes,
        duration_ms = (latency.as_secs_f64() * 1_000_000.0).round() / 1000.0,
        "answered"
    );
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::filter;

    #[test]
    fn unset_is_info_without_the_databases_notices() {
        let (targets, reason) = filter(None);
        assert_eq!(reason, None);
        assert!(targets.would_enable("lathe_site", &Level::INFO));
        assert!(!targets.would_enable("lathe_site", &Level::DEBUG));
        assert!(!targets.would_enable("sqlx::postgres::notice", &Level::INFO));
        assert!(targets.would_enable("sqlx::postgres::notice", &Level::WARN));
    }

    #[test]
    fn a_setting_sets_levels_per_target() {
        let (targets, reason) = filter(Some("warn,lathe_site::mail=debug"));
        assert_eq!(reason, None);
        assert!(targets.would_enable("lathe_site::mail::worker", &Level::DEBUG));
        assert!(!targets.would_enable("lathe_site::serve", &Level::INFO));
        assert!(targets.would_enable("hyper", &Level::WARN));
    }

    #[test]
    fn a_setting_not_understood_keeps_the_default_and_says_why() {
        let (targets, reason) = filter(Some("lathe_site=loud"));
        assert!(reason.is_some_and(|r| !r.is_empty()));
        assert!(targets.would_enable("lathe_site", &Level::INFO));
        assert!(!targets.would_enable("lathe_site", &Level::DEBUG));
    }
}
