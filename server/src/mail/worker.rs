//! The emails waiting to go, and the worker in the server that sends them.
//!
//! A sign-up writes its email into the `outbox` table in its own transaction
//! ([`crate::store::Store::sign_up`]), so an acknowledged sign-up never lacks its email.
//! The worker claims the emails that are due, a few at a time, by moving their next
//! attempt a lease ahead ([`crate::delivery`], [`crate::store::Store::claim_due`]): with
//! several instances on one PostgreSQL, each email is claimed by one, and one whose
//! instance died while sending is claimed again once the lease is over. A mail server that
//! is down, slow or answers 4xx delays an email (the delivery's backoff); one that refuses
//! it for good (5xx), or too many failures, mark it failed. A restart resumes where the
//! table says.
//!
//! The links are made when the email is sent, from the entry as it is then: an entry
//! erased meanwhile gets no email, and a confirmation link works for 48 hours from when
//! its email was queued.

use std::sync::Arc;

use lathe_core::retention::confirm_link_expires;
use tokio::sync::Notify;

use super::Mailer;
use super::letters::{Links, Says, letter};
use crate::delivery::{deliver_claimed, keep_delivering, not_sent, outcome, said_not_sent};
use crate::domain::Kind;
use crate::domain::token::{Claims, Key, Purpose};
use crate::operations::metrics;
use crate::store::{Claimed, Recipient, Store, StoreError};
use crate::waitlist::UNSUBSCRIBE_PATH;

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
        // In the query, not the fragment: a mail provider posts to this URL as it stands.
        let unsubscribe = kind.is_subscription().then(|| {
            let token = self.key.sign(&Claims {
                purpose: Purpose::Unsubscribe,
                entry: to.id.clone(),
                nonce: to.manage_nonce.clone(),
                expires_ms: 0,
            });
            format!("{}{UNSUBSCRIBE_PATH}?token={token}", self.site_url)
        });
        Links {
            confirm: confirm.map(|token| format!("{}/confirm#{token}", self.site_url)),
            manage: format!("{}/manage#{manage}", self.site_url),
            unsubscribe,
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
        let links = self.links(to, kind, email.created_at);
        let letter = letter(says, self.mailer.product(), &links);
        // A mail server's refusal often quotes the address ("<ada@…>: Recipient address
        // rejected"): it is kept and logged without it.
        let sent = self
            .mailer
            .send(&to.email, &letter, links.unsubscribe.as_deref())
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
}
