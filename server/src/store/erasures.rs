//! The `erasures` table (when an entry was erased, and by whom: never whose) and the
//! retention rule that deletes what the privacy notice says is kept no longer.

use sqlx::Row;

use super::credits::{owed, take_due};
use super::events::Event;
use super::{Store, StoreError};
use crate::domain::{ErasedBy, Status};

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
            // fetch_all steps the statement to its end, so its errors are seen.
            let gone: Vec<(String, Option<i64>, String, String)> = sqlx::query_as(&format!(
                "DELETE FROM waitlist WHERE {condition} RETURNING id, line_key, email_key, email"
            ))
            .bind(cutoff)
            .fetch_all(&mut *tx)
            .await?;
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
