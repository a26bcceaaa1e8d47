//! The server's metrics, in Prometheus' text format, on a listener of their own
//! (`--metrics-addr`, never the site's port): requests by route class and status and
//! their latency, sign-ups stored and refused by reason, link requests refused by reason,
//! the database's errors and latency, open connections, confirmations, and the outbox's
//! emails. Every metric's name is here. Recorded with the `metrics` facade; rendered by
//! `metrics-exporter-prometheus`.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::StatusCode;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Latency buckets, in seconds: from a cached file to a slow database.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// Why the metrics could not be served.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// A recorder was installed already in this process.
    #[error("cannot record metrics: {0}")]
    Recorder(#[from] metrics_exporter_prometheus::BuildError),
    /// The address cannot be listened on.
    #[error("cannot listen for metrics on {0}: {1}")]
    Listen(SocketAddr, #[source] std::io::Error),
}

/// Installs the recorder (once per process); its handle renders the text.
///
/// # Errors
/// A recorder was installed already.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &BUCKETS)?
        .install_recorder()?;
    describe();
    Ok(handle)
}

/// Each metric's help text (Prometheus' `# HELP` lines); every `_seconds` one is a
/// histogram in seconds, [`OPEN_CONNECTIONS`] and [`ENTRIES`] gauges, the others counters.
const HELP: [(&str, &str); 16] = [
    (
        WEBHOOKS,
        "Webhook deliveries by outcome (delivered, retried, failed).",
    ),
    (ENTRIES, "Entries on the list now, by status."),
    (REQUESTS, "Requests answered, by route class and status."),
    (REQUEST_SECONDS, "Time to answer a request, by route class."),
    (SIGN_UPS_STORED, "Sign-ups stored."),
    (SIGN_UPS_REFUSED, "Sign-ups refused, by reason."),
    (
        REFERRALS_IGNORED,
        "Referral codes a sign-up brought that can earn nothing, by reason.",
    ),
    (
        REFERRALS_CREDITED,
        "Referrals credited by this instance (each a friend who confirmed).",
    ),
    (
        CHALLENGES,
        "Proof-of-work challenges issued (forms begun, with --proof-of-work).",
    ),
    (DATABASE_ERRORS, "Sign-ups the database failed to store."),
    (
        DATABASE_SECONDS,
        "Time the database took to store a sign-up.",
    ),
    (OPEN_CONNECTIONS, "Connections open now."),
    (
        CONFIRMATIONS,
        "Addresses confirmed from their emails' links.",
    ),
    (
        UNSUBSCRIBES,
        "Entries erased by their owners' one-click unsubscribe (an invitation's link).",
    ),
    (
        LINKS_REFUSED,
        "Requests from the emails' links refused before their link was read, by reason.",
    ),
    (
        EMAILS,
        "Emails by kind (confirm, already) and outcome (queued, sent, retried, failed).",
    ),
];

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    for (name, help) in HELP {
        if name.ends_with("_seconds") {
            describe_histogram!(name, Unit::Seconds, help);
        } else if name == OPEN_CONNECTIONS || name == ENTRIES {
            describe_gauge!(name, help);
        } else {
            describe_counter!(name, help);
        }
    }
}

/// The owner's listener: `GET /metrics`, bound to `address`.
///
/// # Errors
/// The address cannot be listened on.
pub async fn listen(address: SocketAddr) -> Result<tokio::net::TcpListener, MetricsError> {
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| MetricsError::Listen(address, e))
}

// Each metric: its name, and how it is recorded.

/// Requests answered, by `route` (page, asset, sign-up) and `status`.
pub const REQUESTS: &str = "lathe_requests_total";
/// How long requests took to answer, by `route`, in seconds.
pub const REQUEST_SECONDS: &str = "lathe_request_duration_seconds";

/// A request answered: counted by route class and status, and timed
/// (the site's metering layer calls it for every request it wraps).
pub fn answered(route: &'static str, status: StatusCode, took: Duration) {
    let status = status.as_u16().to_string();
    metrics::counter!(REQUESTS, "route" => route, "status" => status).increment(1);
    metrics::histogram!(REQUEST_SECONDS, "route" => route).record(took);
}

/// Sign-ups stored.
pub const SIGN_UPS_STORED: &str = "lathe_sign_ups_stored_total";

/// A sign-up was stored.
pub fn sign_up_stored() {
    metrics::counter!(SIGN_UPS_STORED).increment(1);
}

/// Proof-of-work challenges issued: a form's first change, with `--proof-of-work`.
pub const CHALLENGES: &str = "lathe_challenges_total";

/// Counts a challenge issued.
pub fn challenge_issued() {
    metrics::counter!(CHALLENGES).increment(1);
}

/// Sign-ups refused, by `reason` (as in the logs).
pub const SIGN_UPS_REFUSED: &str = "lathe_sign_ups_refused_total";

/// A sign-up was refused (or dropped, as the honeypot's) for `reason`.
pub fn sign_up_refused(reason: &'static str) {
    metrics::counter!(SIGN_UPS_REFUSED, "reason" => reason).increment(1);
}

/// Referral codes that can earn nothing, by `reason`.
pub const REFERRALS_IGNORED: &str = "lathe_referrals_ignored_total";

/// A sign-up's referral code earns nothing, for `reason`.
pub fn referral_ignored(reason: &'static str) {
    metrics::counter!(REFERRALS_IGNORED, "reason" => reason).increment(1);
}

/// Referrals credited.
pub const REFERRALS_CREDITED: &str = "lathe_referrals_credited_total";

/// `n` referrals were credited.
pub fn referrals_credited(n: usize) {
    metrics::counter!(REFERRALS_CREDITED).increment(u64::try_from(n).unwrap_or(u64::MAX));
}

/// Sign-ups the database failed to store.
pub const DATABASE_ERRORS: &str = "lathe_database_errors_total";
/// How long the database took to store a sign-up (or fail), in seconds.
pub const DATABASE_SECONDS: &str = "lathe_database_duration_seconds";

/// A database call's outcome and time.
pub fn database(took: Duration, failed: bool) {
    metrics::histogram!(DATABASE_SECONDS).record(took);
    if failed {
        metrics::counter!(DATABASE_ERRORS).increment(1);
    }
}

/// Connections open now.
pub const OPEN_CONNECTIONS: &str = "lathe_open_connections";

/// Requests from the emails' links refused before their link was read, by `reason`.
pub const LINKS_REFUSED: &str = "lathe_link_requests_refused_total";

/// A link's request was refused for `reason` before its link was read.
pub fn link_refused(reason: &'static str) {
    metrics::counter!(LINKS_REFUSED, "reason" => reason).increment(1);
}

/// Addresses confirmed from their emails' links.
pub const CONFIRMATIONS: &str = "lathe_confirmations_total";

/// An address was confirmed.
pub fn confirmed() {
    metrics::counter!(CONFIRMATIONS).increment(1);
}

/// Entries erased by their owners' one-click unsubscribe.
pub const UNSUBSCRIBES: &str = "lathe_unsubscribes_total";

/// An entry was erased by its owner's one-click unsubscribe.
pub fn unsubscribed() {
    metrics::counter!(UNSUBSCRIBES).increment(1);
}

/// Entries on the list now, by `status` (counted when the metrics are scraped).
pub const ENTRIES: &str = "lathe_entries";

/// The entries on the list now, by status.
pub fn entries(counts: &[(crate::domain::Status, i64)]) {
    for status in crate::domain::Status::ALL {
        let n = counts
            .iter()
            .find(|(s, _)| *s == status)
            .map_or(0, |(_, n)| *n);
        metrics::gauge!(ENTRIES, "status" => status.as_str()).set(n as f64);
    }
}

/// Webhook deliveries by `outcome` (delivered, retried, failed).
pub const WEBHOOKS: &str = "lathe_webhooks_total";

/// A webhook delivery had `outcome`.
pub fn webhook(outcome: &'static str) {
    metrics::counter!(WEBHOOKS, "outcome" => outcome).increment(1);
}

/// Emails by `kind` and `outcome` (queued, sent, retried, failed).
pub const EMAILS: &str = "lathe_emails_total";

/// An email of `kind` had `outcome`.
pub fn email(kind: &'static str, outcome: &'static str) {
    metrics::counter!(EMAILS, "kind" => kind, "outcome" => outcome).increment(1);
}
