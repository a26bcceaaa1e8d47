//! The emails waiting to go, and the worker in the server that sends them.
//!
//! A sign-up writes its email into the `outbox` table in its own transaction
//! ([`crate::store::Store::sign_up`]), so an acknowledged sign-up never lacks its email.
//! The worker claims the emails that are due, a few at a time, by moving their next
//! attempt a lease ahead ([`LEASE_MS`], [`crate::store::Store::claim_due`]): with several
//! instances on one PostgreSQL, each email is claimed by one, and one whose instance died
//! while sending is claimed again once the lease is over. A mail server that is down, slow or
//! answers 4xx delays an email ([`backoff_ms`]); one that refuses it for good (5xx), or
//! [`MAX_ATTEMPTS`] failures, mark it failed. A restart resumes where the table says.
//!
//! The links are made when the email is sent, from the entry as it is then: an entry
//! erased meanwhile gets no email, and a confirmation link works for 48 hours from when
//! its email was queued.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use lathe_core::retention::confirm_link_expires;
use tokio::sync::Notify;

use super::Mailer;
use super::letters::{Links, Says, letter};
use crate::domain::Kind;
use crate::domain::token::{Claims, Key, Purpose};
use crate::operations::metrics;
use crate::store::queue::{NotSent, Queued};
use crate::store::{Claimed, Recipient, Store, StoreError};

/// How long a claimed email is left to the instance that claimed it: far longer than an
/// SMTP conversation may take ([`super::mailer::SMTP_TIMEOUT`]).
pub const LEASE_MS: i64 = 60_000;
/// After this many failed attempts (about a day of backoff), an email is marked failed.
pub const MAX_ATTEMPTS: i64 = 30;
/// How often the worker looks for due emails when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);
/// How many emails one claim takes.
const BATCH: i64 = 16;
/// How many of a batch's emails are sent at once (each on a connection of the mailer's
/// pool): one at a time, an SMTP round trip each, holds delivery to a few dozen a second.
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

/// What the worker needs: the database, the mail server, the key the links are signed
/// with and the site's address they lead to.
#[derive(Clone)]
pub struct Outbox {
    store: Store,
    mailer: Mailer,
    key: Key,
    site_url: String,
    wake: Arc<Notify>,
}

impl Outbox {
    /// The worker for `store`, sending with `mailer`, links under `site_url`.
    pub fn new(store: Store, mailer: Mailer, key: Key, site_url: &str) -> Self {
        Self {
            store,
            mailer,
            key,
            site_url: site_url.trim_end_matches('/').to_owned(),
            wake: Arc::new(Notify::new()),
        }
    }

    /// Wakes the worker (a sign-up queued an email).
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Sends due emails until the task is dropped.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        let wake = self.wake.clone();
        tokio::spawn(keep_delivering("the outbox", Some(wake), move |now| {
            let outbox = self.clone();
            async move { outbox.deliver_due(now).await }
        }))
    }

    /// Claims the emails due at `now` and tries each once: how many it claimed.
    ///
    /// # Errors
    /// The database failing.
    pub async fn deliver_due(&self, now: i64) -> Result<usize, StoreError> {
        deliver_claimed(&self.store, now, |email: Claimed| self.deliver(email)).await
    }

    /// The links of an email of `kind` to `to`, queued at `queued_at`.
    fn links(&self, to: &Recipient, kind: Kind, queued_at: i64) -> Links {
        let manage = self.key.sign(&Claims {
            purpose: Purpose::Manage,
            entry: to.id.clone(),
            nonce: to.manage_nonce.clone(),
            expires_ms: 0,
        });
        let confirm = match (kind, &to.confirm_nonce) {
            (Kind::Confirm, Some(nonce)) => Some(self.key.sign(&Claims {
                purpose: Purpose::Confirm,
                entry: to.id.clone(),
                nonce: nonce.clone(),
                expires_ms: confirm_link_expires(queued_at),
            })),
            _ => None,
        };
        Links {
            confirm: confirm.map(|token| format!("{}/confirm#{token}", self.site_url)),
            manage: format!("{}/manage#{manage}", self.site_url),
        }
    }

    async fn deliver(&self, email: Claimed) -> Result<(), StoreError> {
        let email = &email;
        let recipient = self.store.recipient(&email.email_key).await?;
        // Erased since, or confirmed since a confirmation was queued: nothing to say.
        let due = match (email.kind, &recipient) {
            (Some(Kind::Confirm), Some(to)) if to.status.is_confirmed() => None,
            (Some(kind), Some(to)) => Some((kind, to)),
            _ => None,
        };
        let Some((kind, to)) = due else {
            return self.store.discard(&email.id).await;
        };
        let wave = match email.wave {
            Some(number) if kind == Kind::Invitation => self.store.wave_letter(number).await?,
            _ => None,
        };
        let says = match (kind, &wave) {
            (Kind::Confirm, _) => Says::Confirm,
            (Kind::Already, _) => Says::Already,
            (Kind::Invitation, Some(letter)) => Says::Invitation {
                letter,
                name: &to.name,
            },
            // An invitation whose wave is gone: nothing to say.
            (Kind::Invitation, None) => return self.store.discard(&email.id).await,
        };
        let letter = letter(
            says,
            self.mailer.product(),
            &self.links(to, kind, email.created_at),
        );
        // A mail server's refusal often quotes the address ("<ada@…>: Recipient address
        // rejected"): it is kept and logged without it.
        let sent = self
            .mailer
            .send(&to.email, &letter)
            .await
            .map_err(|e| (e.is_transient(), without_addresses(&e.to_string())));
        let now = crate::now_ms();
        let (kind, attempt) = (kind.as_str(), email.attempts);
        match sent {
            Ok(()) => {
                self.store.sent(email, now).await?;
                tracing::info!(kind, attempt, "email sent");
                metrics::email(kind, "sent");
            }
            Err((transient, e)) => {
                let failure = not_sent(&e, transient, attempt, now);
                self.store.not_sent(email, failure).await?;
                said_not_sent("email", kind, attempt, &failure);
                metrics::email(kind, outcome(&failure));
            }
        }
        Ok(())
    }
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

/// `text` with every word holding an `@` (an address, bracketed or not) as `<address>`.
fn without_addresses(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.contains('@') {
                "<address>"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_kept_without_the_address_it_quotes() {
        assert_eq!(
            without_addresses(
                "permanent error (550): 5.1.1 <ada@example.com>: Recipient address rejected"
            ),
            "permanent error (550): 5.1.1 <address> Recipient address rejected"
        );
    }

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
