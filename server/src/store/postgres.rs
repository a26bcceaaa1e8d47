//! PostgreSQL's paths in one statement, in autocommit: a round trip is most of what a
//! request costs there. Data-modifying CTEs, each taking part only when the server asks
//! for it; what the statement answers tells the server which happened. A 2xx still means
//! a committed row: the statement commits before its answer is read.
//!
//! A sign-up is in `sign_ups.rs`, with SQLite's.
//!
//! A confirmation ([`Store::confirm_in_one`]) was four or more (BEGIN, the row, the
//! event, the line's count, COMMIT): now the row confirmed and numbered (`confirmed`),
//! its referrer's credit made due (`due`), the line's count (`counted`, after the row: the
//! order of `line::Counts`) and its `entry.confirmed` event (`event`).

use sqlx::Row;

use super::events::{Event, body};
use super::{Store, line};
use crate::domain::Status;
use crate::domain::token::random_id;

/// Stand-ins for the confirmed person's name, address and interest in an event's body
/// made by [`body`] (its one source of shape), each replaced in SQL by the row's value as
/// JSON. No value holds one: control characters are refused in every field.
const PERSON: [&str; 3] = ["\u{1}name", "\u{1}email", "\u{1}interest"];

impl Store {
    /// [`Store::confirm`] on PostgreSQL: whether the entry `id` holding `nonce` was
    /// confirmed now (and its referrer's credit made due, if it signed up through a link).
    pub(super) async fn confirm_in_one(
        &self,
        id: &str,
        nonce: &str,
        now: i64,
    ) -> Result<Option<bool>, sqlx::Error> {
        let event = if self.webhooks_on() {
            ", event AS (INSERT INTO webhooks
                     (id, type, entry_id, payload, created_at, next_attempt_at)
                 SELECT $7, $8, $3, REPLACE(REPLACE(REPLACE($9,
                     $10, CAST(TO_JSON(name) AS TEXT)), $11, CAST(TO_JSON(email) AS TEXT)),
                     $12, CAST(TO_JSON(interest) AS TEXT)), $2, $2
                 FROM confirmed)"
        } else {
            ""
        };
        // The count after the row (it reads the row's key): the order of line::Counts.
        let statement = format!(
            "WITH confirmed AS (
                 UPDATE waitlist SET status = $1, confirmed_at = $2, last_interaction_at = $2,
                     confirm_nonce = NULL, line_number = next.n, line_key = next.n - $5 * credits
                 FROM (SELECT nextval('line_numbers') AS n) AS next
                 WHERE id = $3 AND confirm_nonce = $4 AND status <> $1
                 RETURNING name, email, interest, line_key, email_key, referred_by),
             due AS (INSERT INTO credits_due (email_key, referrer, due_at)
                 SELECT email_key, referred_by, $2 FROM confirmed
                 WHERE referred_by IS NOT NULL AND $5 > 0
                 ON CONFLICT (email_key) DO NOTHING),
             counted AS (INSERT INTO line_counts (bucket, stripe, n)
                 SELECT {bucket}, $6, 1 FROM confirmed
                 ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n + 1){event}
             SELECT referred_by FROM confirmed",
            bucket = line::bucket_sql("line_key"),
        );
        let mut query = sqlx::query(&statement)
            .bind(Status::Confirmed.as_str())
            .bind(now)
            .bind(id)
            .bind(nonce)
            .bind(i64::from(self.places()))
            .bind(line::random_stripe());
        if !event.is_empty() {
            let [name, email, interest] = PERSON;
            query = query
                .bind(format!("msg_{}", random_id()))
                .bind(Event::Confirmed.as_str())
                .bind(body(
                    Event::Confirmed,
                    id,
                    Some((name, email, interest)),
                    &[],
                    now,
                ));
            for mark in PERSON {
                query = query.bind(serde_json::Value::from(mark).to_string());
            }
        }
        let rows = query.fetch_all(&self.pool).await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let referrer: Option<String> = row.try_get("referred_by")?;
        Ok(Some(referrer.is_some() && self.places() > 0))
    }
}
