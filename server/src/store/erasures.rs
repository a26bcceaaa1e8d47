//! The `erasures` table (when an entry was erased, and by whom: never whose) and the
//! retention rule that deletes what the privacy notice says is kept no longer.

use std::collections::HashMap;

use sqlx::Row;

use super::credits::{owed, take_due};
use super::events::{Event, body};
use super::{Backend, Store, StoreError, line};
use crate::domain::token::random_id;
use crate::domain::{ErasedBy, Status};

/// A stand-in for the erased entry's id in its event's body (made by [`body`]), replaced
/// in SQL by the row's id as JSON. No id holds one.
const ID: &str = "\u{1}id";

/// The entry an erasure takes.
#[derive(Clone, Copy)]
pub(super) enum Whose<'a> {
    /// The entry of the address with this key.
    Key(&'a str),
    /// The entry with this id while it holds this manage nonce.
    Managed(&'a str, &'a str),
}

impl Store {
    /// Deletes what the privacy notice says is kept no longer at `now` (time is an
    /// input, so a test or `waitlist purge --as-of` moves the clock): addresses never
    /// confirmed within [`PENDING_DAYS`](lathe_core::retention::PENDING_DAYS) of signing
    /// up, entries without an interaction for
    /// [`INACTIVE_YEARS`](lathe_core::retention::INACTIVE_YEARS), the emails queued to
    /// them, and sent or failed emails older than a day (kept that long only to count
    /// the day's emails to an address). Each deletion of an entry is recorded as an
    /// erasure. With `dry_run`, the same statements run and are rolled back: what would
    /// go is what goes.
    ///
    /// # Errors
    /// The database failing; nothing was deleted.
    pub async fn purge(&self, now: i64, dry_run: bool) -> Result<Purged, StoreError> {
        Ok(self.purge_at(now, dry_run).await?)
    }

    async fn purge_at(&self, now: i64, dry_run: bool) -> Result<Purged, sqlx::Error> {
        use lathe_core::retention::{inactive_cutoff, pending_cutoff};
        let mut tx = self.pool.begin().await?;
        let mut purged = Purged::default();
        let mut credits = Vec::new();
        for (by, condition, cutoff) in [
            (
                ErasedBy::Unconfirmed,
                format!(
                    "status = '{}' AND created_at <= $1",
                    Status::Pending.as_str()
                ),
                pending_cutoff(now),
            ),
            (
                ErasedBy::Retention,
                "last_interaction_at <= $1".to_owned(),
                inactive_cutoff(now),
            ),
        ] {
            sqlx::query(&format!(
                "DELETE FROM outbox WHERE email_key IN (SELECT email_key FROM waitlist WHERE {condition})"
            ))
            .bind(cutoff)
            .execute(&mut *tx)
            .await?;
            // Their credits still due first (the order an erasure takes them in).
            let due = take_due(
                &mut tx,
                &format!("email_key IN (SELECT email_key FROM waitlist WHERE {condition})"),
                cutoff,
            )
            .await?;
            let gone = self.delete_entries(&mut tx, &condition, cutoff).await?;
            record(&mut tx, by, gone.len() as u64, now).await?;
            let mut counts = super::line::Counts::default();
            for (_, key, ..) in &gone {
                counts.leave(*key);
            }
            // Friends who confirmed earned their referrers' credits: given now if due.
            let given = self
                .credit(&mut tx, &mut counts, &owed(&due, &gone), now)
                .await?;
            counts.apply(&mut tx).await?;
            self.tell_credits(&mut tx, &given, now).await?;
            credits.extend(given);
            let mut emails = Vec::with_capacity(gone.len());
            for (id, _, _, email) in gone {
                self.record(&mut tx, Event::Erased, &id, None, &[], now)
                    .await?;
                emails.push(email);
            }
            purged
                .entries
                .extend(emails.into_iter().map(|email| (email, by)));
        }
        super::allowances::forget(&mut tx, now).await?;
        purged.emails = sqlx::query("DELETE FROM outbox WHERE COALESCE(sent_at, failed_at) <= $1")
            .bind(now - super::outbox::DAY_MS)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if dry_run {
            tx.rollback().await?;
        } else {
            tx.commit().await?;
            super::credits::counted(&credits);
        }
        Ok(purged)
    }

    /// Deletes, in `tx`, the entries `condition` (on `waitlist`, with `$1` as `value`)
    /// picks, and their standings: each one's id, key in the line (if it stood in it),
    /// address's key and address. On PostgreSQL their rows are locked first, so that an
    /// entry confirmed at this moment is deleted with the standing its confirmation gave it
    /// (and counted out of the line).
    pub(super) async fn delete_entries<T>(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        condition: &str,
        value: T,
    ) -> Result<Vec<(String, Option<i64>, String, String)>, sqlx::Error>
    where
        T: for<'q> sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any> + Clone + Send + 'static,
    {
        if self.backend() == Backend::Postgres {
            sqlx::query(&format!(
                "SELECT 1 FROM waitlist WHERE {condition} FOR UPDATE"
            ))
            .bind(value.clone())
            .fetch_all(&mut **tx)
            .await?;
        }
        // fetch_all steps each statement to its end, so its errors are seen.
        let keys: HashMap<String, Option<i64>> = sqlx::query_as(&format!(
            "DELETE FROM standings WHERE id IN (SELECT id FROM waitlist WHERE {condition})
             RETURNING id, line_key"
        ))
        .bind(value.clone())
        .fetch_all(&mut **tx)
        .await?
        .into_iter()
        .collect();
        let gone: Vec<(String, String, String)> = sqlx::query_as(&format!(
            "DELETE FROM waitlist WHERE {condition} RETURNING id, email_key, email"
        ))
        .bind(value)
        .fetch_all(&mut **tx)
        .await?;
        Ok(gone
            .into_iter()
            .map(|(id, key, email)| {
                let line_key = keys.get(&id).copied().flatten();
                (id, line_key, key, email)
            })
            .collect())
    }

    /// Erases on PostgreSQL, in one statement, the entry `whose`, unless its referrer's
    /// credit is still due: the emails queued to it (their rows first, then the entry's:
    /// the order the mail worker takes them in, `Store::sent`), its row, its place in the
    /// line's count, its events still waiting (for an erasure), its own event, and the
    /// erasure's record. Whether it erased one; `None` when the entry has a credit due,
    /// which the caller's transaction gives first (rare: only between a friend's
    /// confirmation and the credit worker's next batch), or its status changed while the
    /// statement waited for its row (confirmed at that moment: the standing its
    /// confirmation gave it is not among the rows this statement sees, which are those of
    /// when it began, so it could not count it out of the line; the caller's transaction
    /// locks the row first, `delete_entries`).
    pub(super) async fn erase_in_one(
        &self,
        whose: Whose<'_>,
        by: ErasedBy,
        now: i64,
    ) -> Result<Option<bool>, sqlx::Error> {
        let which = match whose {
            Whose::Key(_) => "email_key = $1",
            Whose::Managed(..) => "id = $1 AND manage_nonce = $2",
        };
        let event = if by == ErasedBy::Unsubscribed {
            Event::Unsubscribed
        } else {
            Event::Erased
        };
        let mut told = String::new();
        if self.webhooks_on() {
            if event == Event::Erased {
                told.push_str(
                    ", dropped AS (DELETE FROM webhooks WHERE entry_id IN (SELECT id FROM gone)
                         AND delivered_at IS NULL AND failed_at IS NULL AND type IN ($10, $11))",
                );
            }
            told.push_str(
                ", event AS (INSERT INTO webhooks
                     (id, type, entry_id, payload, created_at, next_attempt_at)
                 SELECT $6, $7, id, REPLACE($8, $9, CAST(TO_JSON(id) AS TEXT)), $3, $3
                 FROM gone)",
            );
        }
        // `gone` reads `mail`'s count: the emails' rows are deleted (and locked) first.
        let statement = format!(
            "WITH entry AS (SELECT email_key, status FROM waitlist WHERE {which}
                 AND NOT EXISTS (SELECT 1 FROM credits_due d WHERE d.email_key = waitlist.email_key)),
             mail AS (DELETE FROM outbox WHERE email_key IN (SELECT email_key FROM entry) RETURNING 1),
             gone AS (DELETE FROM waitlist
                 WHERE email_key IN (SELECT email_key FROM entry)
                     AND status IN (SELECT status FROM entry) AND (SELECT COUNT(*) FROM mail) >= 0
                 RETURNING id),
             stood AS (DELETE FROM standings WHERE id IN (SELECT id FROM gone) RETURNING line_key),
             counted AS (INSERT INTO line_counts (bucket, stripe, n)
                 SELECT {bucket}, $5, -1 FROM stood WHERE line_key IS NOT NULL
                 ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n - 1),
             recorded AS (INSERT INTO erasures (erased_at, erased_by) SELECT $3, $4 FROM gone){told}
             SELECT (SELECT COUNT(*) FROM gone) AS gone,
                 (SELECT COUNT(*) FROM waitlist WHERE {which}) AS there",
            bucket = line::bucket_sql("line_key"),
        );
        let (first, second) = match whose {
            Whose::Key(key) => (key, None),
            Whose::Managed(id, nonce) => (id, Some(nonce)),
        };
        let row = sqlx::query(&statement)
            .bind(first)
            .bind(second)
            .bind(now)
            .bind(by.as_str())
            .bind(line::random_stripe())
            .bind(format!("msg_{}", random_id()))
            .bind(event.as_str())
            .bind(body(event, ID, None, &[], now))
            .bind(serde_json::Value::from(ID).to_string())
            .bind(Event::Confirmed.as_str())
            .bind(Event::InvitationSent.as_str())
            .fetch_one(&self.pool)
            .await?;
        let (gone, there): (i64, i64) = (row.try_get("gone")?, row.try_get("there")?);
        Ok(match (gone, there) {
            (0, 0) => Some(false),
            (0, _) => None,
            _ => Some(true),
        })
    }

    /// The erasures recorded: when, and by whom, oldest first.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erasures(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = sqlx::query("SELECT erased_at, erased_by FROM erasures ORDER BY erased_at")
            .fetch_all(&self.pool)
            .await?;
        let erasures: Result<_, sqlx::Error> = rows
            .iter()
            .map(|row| Ok((row.try_get("erased_at")?, row.try_get("erased_by")?)))
            .collect();
        Ok(erasures?)
    }
}

/// What [`Store::purge`] deleted (or, in a dry run, would delete).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Purged {
    /// The entries' addresses, and why each went.
    pub entries: Vec<(String, ErasedBy)>,
    /// How many finished emails (sent or failed over a day ago) went.
    pub emails: u64,
}

/// Records `count` erasures by `by` at `now`.
pub(super) async fn record(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    by: ErasedBy,
    count: u64,
    now: i64,
) -> Result<(), sqlx::Error> {
    for _ in 0..count {
        sqlx::query("INSERT INTO erasures (erased_at, erased_by) VALUES ($1, $2)")
            .bind(now)
            .bind(by.as_str())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
