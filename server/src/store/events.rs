//! The `webhooks` table: the events the owner's receiver is told of, each written in the
//! same transaction as what it reports, and claimed, a few at a time, by the webhook
//! worker of one instance at a time. Events are written only while the servers have a
//! receiver (the `settings` row `webhooks`, which a server sets when it starts): nothing
//! about anyone is kept for a receiver that does not exist.

use std::sync::atomic::Ordering;

use serde_json::json;
use sqlx::Row;

use super::queue::{self, NotSent, Queue, Queued, WEBHOOKS};
use super::{Store, StoreError};
use crate::domain::token::random_id;
use sqlx::any::AnyRow;

/// What an event says: its type, and the entry it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A new entry, on a server that does not confirm addresses.
    Created,
    /// An address confirmed.
    Confirmed,
    /// An invitation sent.
    InvitationSent,
    /// An entry erased (by its owner, the site's owner, or the retention rule).
    Erased,
    /// A friend who signed up through the entry's share link confirmed their address: the
    /// entry's credits and its new place (nothing about the friend).
    ReferralCredited,
    /// An entry erased by its owner's one-click unsubscribe (instead of [`Event::Erased`]:
    /// the entry is gone all the same).
    Unsubscribed,
}

impl Event {
    /// Its type, as the receiver reads it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Event::Created => "entry.created",
            Event::Confirmed => "entry.confirmed",
            Event::InvitationSent => "invitation.sent",
            Event::Erased => "entry.erased",
            Event::Unsubscribed => "entry.unsubscribed",
            Event::ReferralCredited => "referral.credited",
        }
    }
}

/// An event claimed for delivery.
#[derive(Debug)]
pub struct Claimed {
    /// Its id: the `webhook-id` header.
    pub id: String,
    /// Its type.
    pub kind: String,
    /// The JSON body.
    pub payload: String,
    /// How many times it was claimed, this one included.
    pub attempts: i64,
}

impl Queued for Claimed {
    const QUEUE: Queue = WEBHOOKS;
    const COLUMNS: &'static str = "id, type, payload, attempts";

    fn from_row(row: &AnyRow) -> Result<Self, sqlx::Error> {
        Ok(Claimed {
            id: row.try_get("id")?,
            kind: row.try_get("type")?,
            payload: row.try_get("payload")?,
            attempts: row.try_get("attempts")?,
        })
    }
}

/// How many events are waiting, delivered and failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Not delivered yet.
    pub queued: i64,
    /// Delivered (a 2xx).
    pub delivered: i64,
    /// Refused (a 4xx), or failed too often.
    pub failed: i64,
}

/// The JSON body of `event` about the entry `id` at `now`; for an address its owner
/// confirmed, `person` is its name, address and interest, and `extra` anything more.
pub(super) fn body(
    event: Event,
    id: &str,
    person: Option<(&str, &str, &str)>,
    extra: &[(&str, serde_json::Value)],
    now: i64,
) -> String {
    let mut data = json!({ "id": id });
    if let Some((name, email, interest)) = person {
        data["name"] = name.into();
        data["email"] = email.into();
        data["interest"] = interest.into();
    }
    for (key, value) in extra {
        data[*key] = value.clone();
    }
    json!({
        "type": event.as_str(),
        "timestamp": crate::domain::time(now),
        "data": data,
    })
    .to_string()
}

impl Store {
    /// Whether events are kept (the servers have a receiver).
    pub(super) fn webhooks_on(&self) -> bool {
        self.webhooks.load(Ordering::Relaxed)
    }

    /// Records, in `tx`, that `event` happened to the entry `id` at `now` (its body says
    /// `person` and `extra`, see [`body`]), when the servers have a receiver: without one,
    /// nothing is built or kept. An erasure first drops the events of that entry not yet
    /// delivered that carry what its owner asked to be forgotten.
    pub(super) async fn record(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        event: Event,
        id: &str,
        person: Option<(&str, &str, &str)>,
        extra: &[(&str, serde_json::Value)],
        now: i64,
    ) -> Result<(), sqlx::Error> {
        if !self.webhooks_on() {
            return Ok(());
        }
        let body = body(event, id, person, extra, now);
        if event == Event::Erased {
            sqlx::query(
                "DELETE FROM webhooks WHERE entry_id = $1 AND delivered_at IS NULL
                     AND failed_at IS NULL AND type IN ($2, $3)",
            )
            .bind(id)
            .bind(Event::Confirmed.as_str())
            .bind(Event::InvitationSent.as_str())
            .execute(&mut **tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(format!("msg_{}", random_id()))
        .bind(event.as_str())
        .bind(id)
        .bind(body)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    /// Says, for every server and command on this database, whether there is a receiver:
    /// while there is none, no event is kept, and those waiting are dropped.
    ///
    /// # Errors
    /// The database failing.
    pub async fn set_webhooks(&self, on: bool) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM settings WHERE name = 'webhooks'")
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO settings (name, value) VALUES ('webhooks', $1)")
            .bind(if on { "on" } else { "off" })
            .execute(&mut *tx)
            .await?;
        if !on {
            sqlx::query("DELETE FROM webhooks WHERE delivered_at IS NULL AND failed_at IS NULL")
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.webhooks.store(on, Ordering::Relaxed);
        Ok(())
    }

    /// The event `id` was delivered at `now`.
    ///
    /// # Errors
    /// The database failing.
    pub async fn delivered(&self, id: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE webhooks SET delivered_at = $1, last_error = NULL WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The event `id` was not delivered: to be tried again, or failed for good.
    ///
    /// # Errors
    /// The database failing.
    pub async fn not_delivered(&self, id: &str, failure: NotSent<'_>) -> Result<(), StoreError> {
        let mut connection = self.pool.acquire().await?;
        queue::not_sent(&mut connection, WEBHOOKS, id, failure).await?;
        Ok(())
    }

    /// How many events are waiting, delivered and failed.
    ///
    /// # Errors
    /// The database failing.
    pub async fn webhook_counts(&self) -> Result<Counts, StoreError> {
        let (queued, delivered, failed) = self.count_queue(WEBHOOKS).await?;
        Ok(Counts {
            queued,
            delivered,
            failed,
        })
    }
}

/// Whether the servers on this database have a receiver, as they last said.
pub(super) async fn webhooks_on(connection: &mut sqlx::AnyConnection) -> Result<bool, sqlx::Error> {
    let value: Option<String> =
        sqlx::query_scalar("SELECT value FROM settings WHERE name = 'webhooks'")
            .fetch_optional(&mut *connection)
            .await?;
    Ok(value.as_deref() == Some("on"))
}
