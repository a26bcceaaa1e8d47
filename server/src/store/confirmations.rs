//! A confirmation, in one request to the database on either backend, as a sign-up is
//! (`sign_ups.rs`): the row confirmed, its standing numbered (a row of `standings`,
//! made now or by an earlier credit: `line.rs`), its referrer's credit made due (if it
//! signed up through a link), the line's count (after the row: the order of
//! `line::Counts`), and its `entry.confirmed` event (when there is a receiver). It was
//! BEGIN, the row, the event, the credit, the count, COMMIT.
//!
//! - **PostgreSQL**: one statement in autocommit, with data-modifying CTEs (`confirmed`,
//!   `numbered`, `due`, `counted`, `event`). Confirmations that arrive together are made
//!   in one such statement, a row of values each ([`together`]; together.rs says when).
//! - **SQLite**: one transaction, its statements sent as one script; the UPDATE answers
//!   the row it confirmed, and with none (a used link) the transaction is rolled back.
//!
//! The event's body is made by [`body`] (its one source of shape) with stand-ins for the
//! person's name, address and interest, which the SQL replaces with the row's values as
//! JSON.

use std::sync::Arc;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

use super::events::{Event, body};
use super::group::{Keep, Write};
use super::together::{Batched, numbered};
use super::{Backend, Store, StoreError, line};
use crate::domain::Status;
use crate::domain::token::random_id;

/// Stand-ins for the confirmed person's name, address and interest in an event's body.
/// No value holds one: control characters are refused in every field.
const PERSON: [&str; 3] = ["\u{1}name", "\u{1}email", "\u{1}interest"];

/// What became of a confirmation link's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmed {
    /// Its address is confirmed now (and a referrer's credit due, if it signed up
    /// through a link: [`Store::credit_due`] gives it).
    Now,
    /// It was confirmed already (the link is used).
    Already,
    /// There is no such entry (erased, or deleted unconfirmed).
    Unknown,
}

impl Store {
    /// Confirms the address of the entry `id` while it holds the confirmation link's
    /// `nonce` (which confirming clears: a link works once).
    ///
    /// # Errors
    /// The database failing or unreachable.
    pub async fn confirm(&self, id: &str, nonce: &str, now: i64) -> Result<Confirmed, StoreError> {
        self.guarded(async {
            if let Some(due) = self.confirm_now(id, nonce, now).await? {
                if due {
                    self.credits_due.notify_one();
                }
                return Ok(Confirmed::Now);
            }
            let there: Option<String> =
                sqlx::query_scalar("SELECT status FROM waitlist WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
            Ok(if there.is_some() {
                Confirmed::Already
            } else {
                Confirmed::Unknown
            })
        })
        .await
    }

    /// Whether the entry `id` holding `nonce` was confirmed now (and its referrer's credit
    /// made due, if it signed up through a link).
    async fn confirm_now(
        &self,
        id: &str,
        nonce: &str,
        now: i64,
    ) -> Result<Option<bool>, sqlx::Error> {
        let told = self.webhooks_on();
        // The event, if told: its id and body.
        let event = told.then(|| {
            let [name, email, interest] = PERSON;
            let body = body(
                Event::Confirmed,
                id,
                Some((name, email, interest)),
                &[],
                now,
            );
            (format!("msg_{}", random_id()), body)
        });
        let bound = Bound {
            id: id.to_owned(),
            nonce: nonce.to_owned(),
            now,
            places: i64::from(self.places()),
            stripe: line::random_stripe(),
            event,
        };
        let row = if self.backend() == Backend::Postgres {
            // With the confirmations that wait beside it, in one statement (together.rs).
            self.confirmations_together
                .make(&self.pool, Confirmation(bound))
                .await?
        } else {
            // One script, in the transaction of its group (group.rs), undone if it
            // confirmed no row: the UPDATE's row, if it did (fetch_all steps every
            // statement to its end, so their errors are seen).
            let owned = Arc::new((script(told), bound));
            let write: Write = Box::new(move |connection| {
                let owned = owned.clone();
                Box::pin(async move {
                    let (statement, bound) = &*owned;
                    bound.query(statement).fetch_all(connection).await
                })
            });
            let confirmed: Keep = |rows| !rows.is_empty();
            let rows = self.group.write(&self.pool, write, confirmed).await?;
            rows.into_iter().next()
        };
        let Some(row) = row else {
            return Ok(None);
        };
        let referrer: Option<String> = row.try_get("referred_by")?;
        Ok(Some(referrer.is_some() && self.places() > 0))
    }
}

/// A confirmation's parameters, owned (SQLite's script may be run twice: group.rs).
struct Bound {
    id: String,
    nonce: String,
    now: i64,
    /// What a credit is worth, in places.
    places: i64,
    /// The stripe of `line_counts` counted.
    stripe: i64,
    /// The event's id and body, when there is a receiver.
    event: Option<(String, String)>,
}

impl Bound {
    /// `statement` ([`statement`] or [`script`]) with these bound.
    fn query<'q>(
        &'q self,
        statement: &'q str,
    ) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
        let mut query = sqlx::query(statement)
            .bind(Status::Confirmed.as_str())
            .bind(self.now)
            .bind(self.id.as_str())
            .bind(self.nonce.as_str())
            .bind(self.places)
            .bind(self.stripe);
        if let Some((event_id, body)) = &self.event {
            query = query
                .bind(event_id.as_str())
                .bind(Event::Confirmed.as_str())
                .bind(body.as_str());
            query = bind_marks(query);
        }
        query
    }
}

/// `query` with the stand-ins for the person bound next, as JSON text.
fn bind_marks<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for mark in PERSON {
        query = query.bind(serde_json::Value::from(mark).to_string());
    }
    query
}

/// A confirmation to make on PostgreSQL, alone or with others ([`together`]).
pub(super) struct Confirmation(Bound);

impl Batched for Confirmation {
    fn goes_with(&self, first: &Self) -> bool {
        self.0.event.is_some() == first.0.event.is_some() && self.0.places == first.0.places
    }

    fn marks(&self) -> Vec<(&'static str, String)> {
        vec![("entry", self.0.id.clone())]
    }

    async fn together(pool: &AnyPool, group: &[&Self]) -> Result<Vec<AnyRow>, sqlx::Error> {
        /// A confirmation's values in the statement's input.
        #[derive(Serialize)]
        struct Values<'a> {
            id: &'a str,
            nonce: &'a str,
            now: i64,
            event_id: Option<&'a str>,
            body: Option<&'a str>,
        }
        let rows = numbered(group.iter().map(|Confirmation(bound)| Values {
            id: &bound.id,
            nonce: &bound.nonce,
            now: bound.now,
            event_id: bound.event.as_ref().map(|(id, _)| id.as_str()),
            body: bound.event.as_ref().map(|(_, body)| body.as_str()),
        }))
        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let first = &group[0].0;
        let told = first.event.is_some();
        let statement = together(told);
        let mut query = sqlx::query(&statement)
            .bind(rows)
            .bind(Status::Confirmed.as_str())
            .bind(first.places)
            .bind(first.stripe);
        if told {
            query = bind_marks(query.bind(Event::Confirmed.as_str()));
        }
        query.fetch_all(pool).await
    }

    async fn alone(&self, pool: &AnyPool) -> Result<Option<AnyRow>, sqlx::Error> {
        let statement = statement(self.0.event.is_some());
        self.0.query(&statement).fetch_optional(pool).await
    }
}

/// The row confirmed (`$1` the status, `$2` now, `$3` the id, `$4` the nonce), answering
/// the columns `returning`.
fn confirm_row(returning: &str) -> String {
    format!(
        "UPDATE waitlist SET status = $1, confirmed_at = $2, last_interaction_at = $2,
             confirm_nonce = NULL
         WHERE id = $3 AND confirm_nonce = $4 AND status <> $1
         RETURNING {returning}"
    )
}

/// Its standing numbered, from the rows of `from` (their `id` and the next number, `n`),
/// keyed with the credits it earned before (`places`, the parameter of the places a
/// credit is worth): it stands in the line.
fn number_row(from: &str, places: &str) -> String {
    format!(
        "INSERT INTO standings (id, line_number, line_key)
         SELECT id, n, n FROM {from} WHERE true
         ON CONFLICT (id) DO UPDATE SET line_number = excluded.line_number,
             line_key = excluded.line_number - {places} * standings.credits"
    )
}

/// The event's payload: its `body` with the stand-ins (parameters `marks` to `marks + 2`)
/// replaced by the row's values; `as_json` says a value as JSON text in this database,
/// `{}` standing for the column.
fn payload(as_json: &str, body: &str, marks: usize) -> String {
    let json = |column: &str| as_json.replace("{}", column);
    format!(
        "REPLACE(REPLACE(REPLACE({body}, ${}, {}), ${}, {}), ${}, {})",
        marks,
        json("name"),
        marks + 1,
        json("email"),
        marks + 2,
        json("interest")
    )
}

/// A value as JSON text in PostgreSQL, `{}` standing for the column.
const TO_JSON: &str = "CAST(TO_JSON({}) AS TEXT)";

/// The `event` CTE of PostgreSQL's statements: an `entry.confirmed` event for each row of
/// `confirmed`, its id, type, entry, body (with the stand-ins, parameters `marks` to
/// `marks + 2`) and time the expressions `values`.
fn event(values: [&str; 5], marks: usize) -> String {
    let [id, kind, entry, body, now] = values;
    format!(
        ", event AS (INSERT INTO webhooks
             (id, type, entry_id, payload, created_at, next_attempt_at)
         SELECT {id}, {kind}, {entry}, {}, {now}, {now} FROM confirmed)",
        payload(TO_JSON, body, marks)
    )
}

/// PostgreSQL's one statement; `told` with the event (`$7` its id, `$8` its type).
fn statement(told: bool) -> String {
    let event = if told {
        event(["$7", "$8", "$3", "$9", "$2"], 10)
    } else {
        String::new()
    };
    format!(
        "WITH confirmed AS ({row}),
         numbered AS ({numbered}),
         due AS (INSERT INTO credits_due (email_key, referrer, due_at)
             SELECT email_key, referred_by, $2 FROM confirmed
             WHERE referred_by IS NOT NULL AND $5 > 0
             ON CONFLICT (email_key) DO NOTHING),
         counted AS (INSERT INTO line_counts (bucket, stripe, n)
             SELECT {bucket}, $6, 1 FROM numbered
             ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n + 1){event}
         SELECT referred_by FROM confirmed",
        row = confirm_row("id, name, email, interest, email_key, referred_by"),
        numbered = number_row(
            &format!(
                "(SELECT id, {} AS n FROM confirmed) AS next",
                line::next_number(Backend::Postgres)
            ),
            "$5"
        ) + " RETURNING line_key",
        bucket = line::bucket_sql("line_key"),
    )
}

/// PostgreSQL's one statement for several confirmations at once, as [`statement`]'s for
/// each: `$1` their values as a JSON array, each numbered (`n`: the answer's rows say
/// whose they are); `$2` the confirmed status, `$3` the places a credit is worth, `$4`
/// the stripe counted; `told`, with the events (`$5` their type, `$6` to `$8` the
/// stand-ins). The entries are distinct (together.rs). Their numbers are given in the
/// order they arrived; their standings are written in the order of their ids, as the
/// credit worker moves referrers (credits.rs), and each bucket's count once, in ascending
/// order, after them (`line::Counts`).
fn together(told: bool) -> String {
    let event = if told {
        event(["event_id", "$5", "id", "body", "now"], 6)
    } else {
        String::new()
    };
    format!(
        "WITH input AS (SELECT * FROM json_to_recordset($1::json)
             AS i(n BIGINT, id TEXT, nonce TEXT, now BIGINT, event_id TEXT, body TEXT)),
         confirmed AS (UPDATE waitlist AS w SET status = $2, confirmed_at = i.now,
                 last_interaction_at = i.now, confirm_nonce = NULL
             FROM input AS i
             WHERE w.id = i.id AND w.confirm_nonce = i.nonce AND w.status <> $2
             RETURNING i.n, i.now, i.event_id, i.body, w.id, w.name, w.email, w.interest,
                 w.email_key, w.referred_by),
         numbered AS ({numbered}),
         due AS (INSERT INTO credits_due (email_key, referrer, due_at)
             SELECT email_key, referred_by, now FROM confirmed
             WHERE referred_by IS NOT NULL AND $3 > 0
             ON CONFLICT (email_key) DO NOTHING),
         counted AS (INSERT INTO line_counts (bucket, stripe, n)
             SELECT bucket, $4, COUNT(*) FROM (SELECT {bucket} AS bucket FROM numbered) AS b
             GROUP BY bucket ORDER BY bucket
             ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n + excluded.n){event}
         SELECT n, referred_by FROM confirmed",
        numbered = number_row(
            &format!(
                "(SELECT id, {} AS n FROM (SELECT id FROM confirmed ORDER BY n) AS arrived)
                 AS next",
                line::next_number(Backend::Postgres)
            ),
            "$3"
        )
        .replace(" WHERE true", " ORDER BY id")
            + " RETURNING line_key",
        bucket = line::bucket_sql("line_key"),
    )
}

/// SQLite's script, run in a transaction that is rolled back if the UPDATE confirmed no
/// row (the statements after it then read a row it did not confirm).
fn script(told: bool) -> String {
    let mut script = vec![
        confirm_row("referred_by"),
        number_row(
            &format!(
                "(SELECT id, {} AS n FROM waitlist WHERE id = $3) AS next",
                line::next_number(Backend::Sqlite)
            ),
            "$5",
        ),
        "INSERT INTO credits_due (email_key, referrer, due_at)
         SELECT email_key, referred_by, $2 FROM waitlist
         WHERE id = $3 AND referred_by IS NOT NULL AND $5 > 0
         ON CONFLICT (email_key) DO NOTHING"
            .to_owned(),
    ];
    if told {
        script.push(format!(
            "INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
             SELECT $7, $8, $3, {}, $2, $2 FROM waitlist WHERE id = $3",
            payload("json_quote({})", "$9", 10)
        ));
    }
    // The count last (see line::Counts).
    script.push(format!(
        "INSERT INTO line_counts (bucket, stripe, n)
         SELECT {}, $6, 1 FROM standings WHERE id = $3
         ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n + 1",
        line::bucket_sql("line_key")
    ));
    script.join(";\n")
}
