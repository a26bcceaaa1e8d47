//! The `outbox` table: the emails waiting to go, written in the same transaction as what
//! they are about, and claimed, a few at a time, by the mail worker
//! of one instance at a time.

use lathe_core::retention::MAILS_PER_DAY;
use sqlx::Row;

use super::events::Event;
use super::queue::{self, NotSent, OUTBOX, Queue, Queued};
use super::{Store, StoreError};
use crate::domain::token::random_id;
use crate::domain::{Kind, Status};
use sqlx::any::AnyRow;

/// A day, in ms: how long the emails to an address are counted against its day's limit.
pub(super) const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// How many emails are waiting (queued, or waiting to be tried again), sent and failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Not sent yet.
    pub queued: i64,
    /// Sent.
    pub sent: i64,
    /// Refused for good, or failed too often.
    pub failed: i64,
}

/// An email claimed for sending.
#[derive(Debug)]
pub struct Claimed {
    /// Its id.
    pub id: String,
    /// Its entry's key.
    pub email_key: String,
    /// Which email; `None` for a kind this build does not know (from a newer one).
    pub kind: Option<Kind>,
    /// When it was queued, in ms since the Unix epoch.
    pub created_at: i64,
    /// How many times it was claimed, this one included.
    pub attempts: i64,
    /// An invitation's wave.
    pub wave: Option<i64>,
}

impl Queued for Claimed {
    const QUEUE: Queue = OUTBOX;
    const COLUMNS: &'static str = "id, email_key, kind, created_at, attempts, wave";

    fn from_row(row: &AnyRow) -> Result<Self, sqlx::Error> {
        Ok(Claimed {
            id: row.try_get("id")?,
            email_key: row.try_get("email_key")?,
            kind: Kind::parse(row.try_get("kind")?),
            created_at: row.try_get("created_at")?,
            attempts: row.try_get("attempts")?,
            wave: row.try_get("wave")?,
        })
    }
}

/// Who an email goes to, as the entry is now.
#[derive(Debug)]
pub struct Recipient {
    /// The address.
    pub email: String,
    /// Their name.
    pub name: String,
    /// The entry's random id, which its links name.
    pub id: String,
    /// Whether it is confirmed.
    pub status: Status,
    /// The nonce its confirmation link holds, while it has one.
    pub confirm_nonce: Option<String>,
    /// The nonce its manage link holds.
    pub manage_nonce: String,
}

impl Store {
    /// The entry an email to `key` goes to, if it is still there.
    ///
    /// # Errors
    /// The database failing.
    pub async fn recipient(&self, key: &str) -> Result<Option<Recipient>, StoreError> {
        let row = sqlx::query(
            "SELECT email, name, id, status, confirm_nonce, manage_nonce FROM waitlist
             WHERE email_key = $1",
        )
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        let recipient: Result<_, sqlx::Error> = row
            .map(|row| {
                Ok(Recipient {
                    email: row.try_get("email")?,
                    name: row.try_get("name")?,
                    id: row.try_get("id")?,
                    status: super::entries::status(&row)?,
                    confirm_nonce: row.try_get("confirm_nonce")?,
                    manage_nonce: row.try_get("manage_nonce")?,
                })
            })
            .transpose();
        Ok(recipient?)
    }

    /// The email `email` went at `now`: marked sent, its entry's last interaction moved
    /// (the retention rule counts from it) and its wave's count, in one transaction.
    ///
    /// # Errors
    /// The database failing.
    pub async fn sent(&self, email: &Claimed, now: i64) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE outbox SET sent_at = $1, last_error = NULL WHERE id = $2")
            .bind(now)
            .bind(&email.id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE waitlist SET last_interaction_at = $1 WHERE email_key = $2")
            .bind(now)
            .bind(&email.email_key)
            .execute(&mut *tx)
            .await?;
        if let Some(wave) = email.wave {
            sqlx::query("UPDATE waves SET sent = sent + 1 WHERE number = $1")
                .bind(wave)
                .execute(&mut *tx)
                .await?;
            let entry: Option<(String, String, String, String)> = sqlx::query_as(
                "SELECT id, name, email, interest FROM waitlist WHERE email_key = $1",
            )
            .bind(&email.email_key)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some((id, name, address, interest)) = entry {
                let person = Some((name.as_str(), address.as_str(), interest.as_str()));
                let wave = [("wave", serde_json::Value::from(wave))];
                self.record(&mut tx, Event::InvitationSent, &id, person, &wave, now)
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// The email `email` was not sent: to be tried again, or failed for good (and counted
    /// in its wave's failures).
    ///
    /// # Errors
    /// The database failing.
    pub async fn not_sent(&self, email: &Claimed, failure: NotSent<'_>) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        queue::not_sent(&mut tx, OUTBOX, &email.id, failure).await?;
        if let (None, Some(wave)) = (failure.retry_at, email.wave) {
            sqlx::query("UPDATE waves SET failed = failed + 1 WHERE number = $1")
                .bind(wave)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The email `id` has nothing left to say (its entry is gone, or confirmed since a
    /// confirmation was queued): deleted unsent.
    ///
    /// # Errors
    /// The database failing.
    pub async fn discard(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM outbox WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The outbox's counts, for the owner (`lathe-site waitlist outbox`).
    ///
    /// # Errors
    /// The database failing.
    pub async fn outbox_counts(&self) -> Result<Counts, StoreError> {
        let (queued, sent, failed) = self.count_queue(OUTBOX).await?;
        Ok(Counts {
            queued,
            sent,
            failed,
        })
    }
}

/// Queues the invitation of wave `wave` to the entry `key` at `now`, due at `due` (its
/// turn at the wave's pace): the owner's, so never held back by the day's limit of emails
/// to an address.
pub(super) async fn queue_invitation(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    key: &str,
    wave: i64,
    now: i64,
    due: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at, wave)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(random_id())
    .bind(key)
    .bind(Kind::Invitation.as_str())
    .bind(now)
    .bind(due)
    .bind(wave)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Queues a `kind` email to the entry `key` at `now`, unless [`MAILS_PER_DAY`] were
/// queued to it in the day before: the kind queued, if it was.
pub(super) async fn queue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    key: &str,
    kind: Kind,
    now: i64,
) -> Result<Option<Kind>, sqlx::Error> {
    let recent: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE email_key = $1 AND created_at > $2")
            .bind(key)
            .bind(now - DAY_MS)
            .fetch_one(&mut **tx)
            .await?;
    if recent >= i64::from(MAILS_PER_DAY) {
        return Ok(None);
    }
    sqlx::query(
        "INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, $4)",
    )
    .bind(random_id())
    .bind(key)
    .bind(kind.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(Some(kind))
}
