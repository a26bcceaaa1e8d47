//! The figures the owner watches the list by: entries by status and by interest, sign-ups
//! (and those through a share link) and confirmations a day, the confirmation rate, the
//! referrals, the waves, the unsubscribes and the outbox.

use sqlx::Row;

use super::{Counts, Store, StoreError, Wave};
use crate::domain::{ErasedBy, Status};

/// A day, in ms.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// One day's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Day {
    /// Its midnight, UTC, in ms since the Unix epoch.
    pub starts_at: i64,
    /// Entries that signed up that day (and are still on the list).
    pub sign_ups: i64,
    /// Of those, the ones that came through a share link (a friend of an entry).
    pub referred: i64,
    /// Addresses confirmed that day.
    pub confirmations: i64,
}

/// The list's figures at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Entries by status, every status (0 where none).
    pub by_status: Vec<(Status, i64)>,
    /// Entries by interest, most first.
    pub by_interest: Vec<(String, i64)>,
    /// The last `days` days, oldest first, today last.
    pub days: Vec<Day>,
    /// Of the entries asked to confirm (pending, confirmed, invited), how many did.
    pub confirmed_of_asked: (i64, i64),
    /// The waves of invitations.
    pub waves: Vec<Wave>,
    /// The outbox's emails.
    pub outbox: Counts,
    /// Entries erased by their one-click unsubscribe, ever (the erasures' records).
    pub unsubscribed: i64,
    /// Confirmed entries (confirmed or invited) that came through a share link.
    pub referred_confirmed: i64,
    /// Referrals credited, ever, to entries still on the list.
    pub credits: i64,
}

impl Stats {
    /// How many entries there are.
    pub fn entries(&self) -> i64 {
        self.by_status.iter().map(|(_, n)| n).sum()
    }

    /// Confirmed entries (confirmed or invited).
    pub fn confirmed(&self) -> i64 {
        self.confirmed_of_asked.0
    }

    /// The share of confirmed entries that came through a share link, if any confirmed.
    pub fn referred_share(&self) -> Option<f64> {
        let confirmed = self.confirmed();
        (confirmed > 0).then(|| self.referred_confirmed as f64 / confirmed as f64)
    }

    /// The viral coefficient: referrals credited per confirmed entry, if any confirmed.
    pub fn viral_coefficient(&self) -> Option<f64> {
        let confirmed = self.confirmed();
        (confirmed > 0).then(|| self.credits as f64 / confirmed as f64)
    }

    /// The share of the asked who confirmed, if anyone was asked.
    pub fn confirmation_rate(&self) -> Option<f64> {
        let (confirmed, asked) = self.confirmed_of_asked;
        (asked > 0).then(|| confirmed as f64 / asked as f64)
    }
}

impl Store {
    /// The list's figures as at `now`, with the last `days` days.
    ///
    /// # Errors
    /// The database failing.
    pub async fn stats(&self, now: i64, days: u32) -> Result<Stats, StoreError> {
        let counted = self.count_by_status().await?;
        let by_status: Vec<(Status, i64)> = Status::ALL
            .into_iter()
            .map(|status| {
                let n = counted
                    .iter()
                    .find(|(s, _)| *s == status)
                    .map_or(0, |(_, n)| *n);
                (status, n)
            })
            .collect();
        let asked = by_status
            .iter()
            .filter(|(status, _)| *status != Status::Unconfirmed)
            .map(|(_, n)| n)
            .sum();
        let confirmed = by_status
            .iter()
            .filter(|(status, _)| status.is_confirmed())
            .map(|(_, n)| n)
            .sum();
        let by_interest: Vec<(String, i64)> = sqlx::query_as(
            "SELECT interest, COUNT(*) AS n FROM waitlist GROUP BY interest ORDER BY n DESC, interest",
        )
        .fetch_all(&self.pool)
        .await?;
        let today = now.div_euclid(DAY_MS);
        let first = today - i64::from(days.max(1)) + 1;
        let per_day = |column: &'static str, only: &'static str| async move {
            let rows = sqlx::query(&format!(
                "SELECT {column} / {DAY_MS} AS day, COUNT(*) AS n FROM waitlist
                 WHERE {column} >= $1 {only} GROUP BY {column} / {DAY_MS}"
            ))
            .bind(first * DAY_MS)
            .fetch_all(&self.pool)
            .await?;
            rows.iter()
                .map(|row| Ok((row.try_get::<i64, _>("day")?, row.try_get::<i64, _>("n")?)))
                .collect::<Result<Vec<_>, sqlx::Error>>()
        };
        let sign_ups = per_day("created_at", "").await?;
        let referred = per_day("created_at", "AND referred_by IS NOT NULL").await?;
        let confirmations = per_day("confirmed_at", "").await?;
        let (referred_confirmed, credits): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(referred_by), CAST(COALESCE(SUM(credits), 0) AS BIGINT)
             FROM waitlist LEFT JOIN standings ON standings.id = waitlist.id
             WHERE status IN ($1, $2)",
        )
        .bind(Status::Confirmed.as_str())
        .bind(Status::Invited.as_str())
        .fetch_one(&self.pool)
        .await?;
        let on = |counts: &[(i64, i64)], day: i64| {
            counts
                .iter()
                .find(|(d, _)| *d == day)
                .map_or(0, |(_, n)| *n)
        };
        Ok(Stats {
            by_status,
            by_interest,
            days: (first..=today)
                .map(|day| Day {
                    starts_at: day * DAY_MS,
                    sign_ups: on(&sign_ups, day),
                    referred: on(&referred, day),
                    confirmations: on(&confirmations, day),
                })
                .collect(),
            confirmed_of_asked: (confirmed, asked),
            waves: self.waves().await?,
            outbox: self.outbox_counts().await?,
            unsubscribed: sqlx::query_scalar("SELECT COUNT(*) FROM erasures WHERE erased_by = $1")
                .bind(ErasedBy::Unsubscribed.as_str())
                .fetch_one(&self.pool)
                .await?,
            referred_confirmed,
            credits,
        })
    }
}
