//! The worker in the server that POSTs the events the store holds to the receiver: due
//! events claimed a few at a time under a lease (several instances on one PostgreSQL send
//! each once), a 2xx marks one delivered, a 4xx failed for good, and anything else (a
//! timeout, a connection refused, a 5xx) tries it again after the outbox's backoff, up to
//! its attempts: a receiver down for an hour misses nothing.

use super::{Receiver, TIMEOUT};
use crate::delivery::{deliver_claimed, keep_delivering, not_sent, outcome, said_not_sent};
use crate::operations::metrics;
use crate::store::{ClaimedEvent, Store, StoreError};

/// What the worker needs: the database, the receiver and an HTTP client.
#[derive(Clone)]
pub struct Hooks {
    store: Store,
    receiver: Receiver,
    client: reqwest::Client,
}

/// How one attempt went: `Ok` for a 2xx; otherwise whether trying again may help (not
/// after a 4xx, the receiver's refusal) and why.
type Answer = Result<(), (bool, String)>;

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
        keep_delivering("the webhooks", None, |now| {
            let hooks = self.clone();
            async move { hooks.deliver_due(now).await }
        })
        .await;
    }

    /// Claims the events due at `now` and tries each once: how many it claimed.
    ///
    /// # Errors
    /// The database failing.
    pub async fn deliver_due(&self, now: i64) -> Result<usize, StoreError> {
        deliver_claimed(&self.store, now, |event: ClaimedEvent| self.deliver(event)).await
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
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => {
                let status = response.status();
                let said = format!("the receiver answered {status}");
                Err((!status.is_client_error(), said))
            }
            // Without the URL: it may hold a token the owner keeps out of logs.
            Err(e) => Err((true, e.without_url().to_string())),
        }
    }

    async fn deliver(&self, event: ClaimedEvent) -> Result<(), StoreError> {
        let answer = self.post(&event).await;
        let now = crate::now_ms();
        let (kind, attempt) = (event.kind.as_str(), event.attempts);
        match answer {
            Ok(()) => {
                self.store.delivered(&event.id, now).await?;
                tracing::info!(kind, attempt, "webhook delivered");
                metrics::webhook("delivered");
            }
            Err((transient, e)) => {
                let failure = not_sent(&e, transient, attempt, now);
                self.store.not_delivered(&event.id, failure).await?;
                said_not_sent("webhook", kind, attempt, &failure);
                metrics::webhook(outcome(&failure));
            }
        }
        Ok(())
    }
}
