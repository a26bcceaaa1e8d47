//! What the two queues of things to send share, the `outbox`'s emails and the
//! `webhooks`' events: claiming the rows that are due under a lease, and marking one not
//! sent, to be tried again or failed for good.

use sqlx::any::AnyRow;

use super::{Backend, Store, StoreError};

/// A row of a queue, as it is claimed.
pub trait Queued: Sized {
    /// Its queue.
    #[doc(hidden)]
    const QUEUE: Queue;
    /// The columns it is read from.
    #[doc(hidden)]
    const COLUMNS: &'static str;
    /// It, from those columns.
    #[doc(hidden)]
    fn from_row(row: &AnyRow) -> Result<Self, sqlx::Error>;
}

/// A queue's table, the column that says a row went, and the order due rows go in.
#[derive(Clone, Copy)]
pub struct Queue {
    table: &'static str,
    done: &'static str,
    /// Due rows are claimed by this first (an SQL expression of a row, lowest first),
    /// then oldest due first.
    order: &'static str,
}

/// The emails: a visitor's own (a confirmation link, "already on the list") before any
/// invitation that is due, so that a wave never holds back someone waiting for a link.
pub(super) const OUTBOX: Queue = Queue {
    table: "outbox",
    done: "sent_at",
    order: "CASE WHEN kind = 'invitation' THEN 1 ELSE 0 END, next_attempt_at, created_at",
};

/// The webhooks' events, in the order they happened.
pub(super) const WEBHOOKS: Queue = Queue {
    table: "webhooks",
    done: "delivered_at",
    order: "next_attempt_at, created_at",
};

impl Store {
    /// Claims at most `batch` emails ([`super::Claimed`]) or events
    /// ([`super::ClaimedEvent`]) due at `now`, in the queue's order ([`Queue`]: oldest
    /// due first, a visitor's emails before invitations), by moving their next
    /// attempt `lease_ms` ahead: with several instances on one PostgreSQL, each is claimed
    /// by one (`FOR UPDATE SKIP LOCKED`), and one whose instance died while sending is
    /// claimed again once the lease is over.
    ///
    /// # Errors
    /// The database failing.
    pub async fn claim_due<T: Queued>(
        &self,
        now: i64,
        lease_ms: i64,
        batch: i64,
    ) -> Result<Vec<T>, StoreError> {
        let rows = self
            .claim(T::QUEUE, now, lease_ms, batch, T::COLUMNS)
            .await?;
        let claimed: Result<_, sqlx::Error> = rows.iter().map(T::from_row).collect();
        Ok(claimed?)
    }

    async fn claim(
        &self,
        queue: Queue,
        now: i64,
        lease_ms: i64,
        batch: i64,
        columns: &str,
    ) -> Result<Vec<AnyRow>, sqlx::Error> {
        let lock = match self.backend() {
            Backend::Postgres => "FOR UPDATE SKIP LOCKED",
            // One connection writes a SQLite file: there is nobody to skip.
            Backend::Sqlite => "",
        };
        let Queue { table, done, order } = queue;
        sqlx::query(&format!(
            "UPDATE {table} SET next_attempt_at = $1, attempts = attempts + 1
             WHERE id IN (
                 SELECT id FROM {table}
                 WHERE {done} IS NULL AND failed_at IS NULL AND next_attempt_at <= $2
                 ORDER BY {order} LIMIT $3 {lock})
             RETURNING {columns}"
        ))
        .bind(now + lease_ms)
        .bind(now)
        .bind(batch)
        .fetch_all(&self.pool)
        .await
    }
}

impl Store {
    /// How many rows of `queue` are waiting (queued, or waiting to be tried again), went,
    /// and failed.
    pub(super) async fn count_queue(&self, queue: Queue) -> Result<(i64, i64, i64), sqlx::Error> {
        let Queue { table, done, .. } = queue;
        sqlx::query_as(&format!(
            "SELECT COUNT(*) - COUNT({done}) - COUNT(failed_at), COUNT({done}), COUNT(failed_at)
             FROM {table}"
        ))
        .fetch_one(&self.pool)
        .await
    }
}

/// Why a row did not go, and what becomes of it.
#[derive(Clone, Copy, Debug)]
pub struct NotSent<'a> {
    /// What went wrong, as the row keeps it.
    pub error: &'a str,
    /// When to try again; `None` when it failed for good.
    pub retry_at: Option<i64>,
    /// Now, in ms since the Unix epoch.
    pub now: i64,
}

/// Marks the row `id` of `queue` not sent: to be tried again, or failed for good.
pub(super) async fn not_sent(
    connection: &mut sqlx::AnyConnection,
    queue: Queue,
    id: &str,
    failure: NotSent<'_>,
) -> Result<(), sqlx::Error> {
    let NotSent {
        error,
        retry_at,
        now,
    } = failure;
    let (column, at) = match retry_at {
        Some(at) => ("next_attempt_at", at),
        None => ("failed_at", now),
    };
    sqlx::query(&format!(
        "UPDATE {} SET {column} = $1, last_error = $2 WHERE id = $3",
        queue.table
    ))
    .bind(at)
    .bind(error)
    .bind(id)
    .execute(connection)
    .await?;
    Ok(())
}
