//! What the server's two workers share, the outbox's (emails, [`crate::mail`]) and the
//! webhooks' ([`crate::hooks`]): claiming due rows under a lease, a few at a time, sending
//! several at once, trying a failure again after a backoff that doubles, and saying what
//! became of it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::Notify;

use crate::store::queue::{NotSent, Queued};
use crate::store::{Store, StoreError};

/// How long a claimed row is left to the instance that claimed it: far longer than an
/// SMTP conversation or a webhook's request may take.
pub const LEASE_MS: i64 = 60_000;
/// After this many failed attempts (about a day of backoff), a row is marked failed.
pub const MAX_ATTEMPTS: i64 = 30;
/// How often a worker looks for due rows when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);
/// How many rows one claim takes.
const BATCH: i64 = 16;
/// How many of a batch are sent at once (each email on a connection of the mailer's
/// pool): one at a time, a round trip each, holds delivery to a few dozen a second.
const AT_ONCE: usize = 8;

/// How long to wait before attempt `attempts + 1`, after `attempts` failures: 1 s,
/// doubling, at most an hour.
pub const fn backoff_ms(attempts: i64) -> i64 {
    let exponent = if attempts < 1 { 0 } else { attempts - 1 };
    let ms = if exponent >= 12 {
        i64::MAX
    } else {
        1_000 << exponent
    };
    if ms > 3_600_000 { 3_600_000 } else { ms }
}

/// What becomes of a row that did not go at `now`, for `error`, after `attempt`s: tried
/// again after [`backoff_ms`] while the failure is `transient` and fewer than
/// [`MAX_ATTEMPTS`] were made, failed for good otherwise.
pub fn not_sent(error: &str, transient: bool, attempt: i64, now: i64) -> NotSent<'_> {
    let retry = transient && attempt < MAX_ATTEMPTS;
    NotSent {
        error,
        retry_at: retry.then(|| now + backoff_ms(attempt)),
        now,
    }
}

/// What became of a row not sent, for the metrics: `retried` or `failed`.
pub fn outcome(failure: &NotSent<'_>) -> &'static str {
    if failure.retry_at.is_some() {
        "retried"
    } else {
        "failed"
    }
}

/// Logs that a `what` (an email, a webhook) of `kind` was not sent on its `attempt`.
pub fn said_not_sent(what: &str, kind: &str, attempt: i64, failure: &NotSent<'_>) {
    let e = failure.error;
    if let Some(at) = failure.retry_at {
        let retry_in_ms = at - failure.now;
        tracing::warn!(
            kind,
            attempt,
            retry_in_ms,
            "{what} not sent, will retry: {e}"
        );
    } else {
        tracing::error!(kind, attempt, "{what} failed: {e}");
    }
}

/// Delivers what is due, again and again, until the task is dropped: at once while
/// there was something to deliver, else after [`POLL`] or when `wake` says, and after
/// [`POLL`] when the database failed (`what` names the worker in the log).
pub async fn keep_delivering<F, Fut>(what: &'static str, wake: Option<Arc<Notify>>, deliver_due: F)
where
    F: Fn(i64) -> Fut,
    Fut: Future<Output = Result<usize, StoreError>>,
{
    loop {
        match deliver_due(crate::now_ms()).await {
            Ok(0) => match &wake {
                Some(wake) => {
                    tokio::select! {
                        () = wake.notified() => {}
                        () = tokio::time::sleep(POLL) => {}
                    }
                }
                None => tokio::time::sleep(POLL).await,
            },
            Ok(_) => {}
            Err(e) => {
                tracing::error!("{what} cannot read the database: {e}");
                tokio::time::sleep(POLL).await;
            }
        }
    }
}

/// Claims [`BATCH`] rows of `T`'s queue due at `now` under a lease of [`LEASE_MS`], and
/// runs `deliver` on each, [`AT_ONCE`] at a time: how many it claimed.
///
/// # Errors
/// The database failing.
pub async fn deliver_claimed<T, F, Fut>(
    store: &Store,
    now: i64,
    deliver: F,
) -> Result<usize, StoreError>
where
    T: Queued,
    F: Fn(T) -> Fut,
    Fut: Future<Output = Result<(), StoreError>>,
{
    let claimed = store.claim_due::<T>(now, LEASE_MS, BATCH).await?;
    let n = claimed.len();
    let deliveries: Vec<_> = claimed.into_iter().map(deliver).collect();
    let mut delivered = futures_util::stream::iter(deliveries).buffer_unordered(AT_ONCE);
    while let Some(done) = delivered.next().await {
        done?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_a_second_to_an_hour() {
        let waits: Vec<i64> = (1..=14).map(backoff_ms).collect();
        assert_eq!(
            waits,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000,
                1_024_000, 2_048_000, 3_600_000, 3_600_000
            ]
        );
        assert_eq!(backoff_ms(0), 1_000);
        assert_eq!(backoff_ms(i64::MAX), 3_600_000);
    }
}
