//! The worker in the server that POSTs the events the store holds to the receiver: due
//! events claimed a few at a time under a lease (several instances on one PostgreSQL send
//! each once), a 2xx marks one delivered, a 4xx failed for good, and anything else (a
//! timeout, a connection refused, a 5xx) tries it again after the outbox's backoff, up to
//! its attempts: a receiver down for an hour misses nothing.

use std::time::Duration;

use futures_util::StreamExt;

use super::{Receiver, TIMEOUT};
use crate::mail::worker::{LEASE_MS, MAX_ATTEMPTS, backoff_ms};
use crate::operations::metrics;
use crate::store::{ClaimedEvent, Store, StoreError};

/// How often the worker looks for due events when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);
/// How many events one claim takes.
const BATCH: i64 = 16;
/// How many of a batch are sent at once.
const AT_ONCE: usize = 8;

/// What the worker needs: the database, the receiver and an HTTP client.
#[derive(Clone)]
pub struct Hooks {
    store: Store,
    receiver: Receiver,
    client: reqwest::Client,
}

/// How one attempt ended.
enum Answer {
    /// A 2xx.
    Delivered,
    /// A 4xx: the receiver refuses it, for good.
    Refused(String),
    /// A timeout, no connection, a 5xx, or a redirect: try again later.
    Failed(String),
}

impl Hooks {
    /// The worker for `store`, sending to `receiver`. Must be made inside the server's
    /// runtime.
    ///
    /// # Panics
    /// When the system's TLS set-up cannot be had (it always can: the roots are built in).
    pub fn new(store: Store, receiver: Receiver) -> Self {
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("lathe-site/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("an HTTP client with rustls and built-in roots");
        Self {
            store,
            receiver,
            client,
        }
    }

    /// Sends due events until the task is dropped.
    pub async fn run(self) {
        loop {
            match self.deliver_due(crate::now_ms()).await {
                Ok(0) => {
                    tokio::time::sleep(POLL).await;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!("the webhooks cannot read the database: {e}");
                    tokio::time::sleep(POLL).await;
                }
            }
        }
    }

    /// Claims the events due at `now` and tries each once: how many it claimed.
    ///
    /// # Errors
    /// The database failing.
    pub async fn deliver_due(&self, now: i64) -> Result<usize, StoreError> {
        let claimed = self.store.claim_due_events(now, LEASE_MS, BATCH).await?;
        let deliveries: Vec<_> = claimed.iter().map(|event| self.deliver(event)).collect();
        let mut delivered = futures_util::stream::iter(deliveries).buffer_unordered(AT_ONCE);
        while let Some(done) = delivered.next().await {
            done?;
        }
        Ok(claimed.len())
    }

    async fn post(&self, event: &ClaimedEvent) -> Answer {
        let timestamp = crate::now_ms() / 1000;
        let sent = self
            .client
            .post(self.receiver.url())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("webhook-id", &event.id)
            .header("webhook-timestamp", timestamp.to_string())
            .header(
                "webhook-signature",
                self.receiver
                    .signature(&event.id, timestamp, &event.payload),
            )
            .body(event.payload.clone())
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => Answer::Delivered,
            Ok(response) if response.status().is_client_error() => {
                Answer::Refused(format!("the receiver answered {}", response.status()))
            }
            Ok(response) => Answer::Failed(format!("the receiver answered {}", response.status())),
            // Without the URL: it may hold a token the owner keeps out of logs.
            Err(e) => Answer::Failed(e.without_url().to_string()),
        }
    }

    async fn deliver(&self, event: &ClaimedEvent) -> Result<(), StoreError> {
        let answer = self.post(event).await;
        let now = crate::now_ms();
        let (kind, attempt) = (event.kind.as_str(), event.attempts);
        match answer {
            Answer::Delivered => {
                self.store.delivered(&event.id, now).await?;
                tracing::info!(kind, attempt, "webhook delivered");
                metrics::webhook("delivered");
            }
            Answer::Failed(e) if attempt < MAX_ATTEMPTS => {
                let wait = backoff_ms(attempt);
                self.store
                    .not_delivered(&event.id, &e, Some(now + wait), now)
                    .await?;
                tracing::warn!(
                    kind,
                    attempt,
                    retry_in_ms = wait,
                    "webhook not delivered, will retry: {e}"
                );
                metrics::webhook("retried");
            }
            Answer::Refused(e) | Answer::Failed(e) => {
                self.store.not_delivered(&event.id, &e, None, now).await?;
                tracing::error!(kind, attempt, "webhook failed: {e}");
                metrics::webhook("failed");
            }
        }
        Ok(())
    }
}
