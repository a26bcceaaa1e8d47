//! PostgreSQL's paths in one statement, in autocommit: a round trip is most of what a
//! request costs there. Data-modifying CTEs, each taking part only when the server asks
//! for it; what the statement answers tells the server which happened. A 2xx still means
//! a committed row: the statement commits before its answer is read.
//!
//! A sign-up ([`Store::sign_up_in_one`]) was eight round trips (the allowance, BEGIN, the
//! referrer, the INSERT, the SELECT of what was stored, the day's emails, the email,
//! COMMIT): now the client's allowance taken (`allowed`), the proof of work spent
//! (`spent`, only if allowed), the referrer read by its code (`referrer`), the row
//! inserted or its repeat counted (`stored`, only if allowed and spent), and for a new
//! entry its email queued (`queued`) or its `entry.created` event kept (`event`). An
//! address already on the list is rare and has its email queued in a transaction of its
//! own after the statement, its row locked first: within one statement the day's emails
//! are counted as they were when it began, and repeats of one address waiting for its row
//! together each counted the others' emails out.
//!
//! A confirmation ([`Store::confirm_in_one`]) was four or more (BEGIN, the row, the
//! event, the line's count, COMMIT): now the row confirmed and numbered (`confirmed`),
//! its referrer's credit made due (`due`), the line's count (`counted`, after the row: the
//! order of `line::Counts`) and its `entry.confirmed` event (`event`).

use sqlx::Row;

use super::entries::{
    Allowance, NotStored, Proof, SignedUp, bind_sign_up, due_email, insert_sign_up,
};
use super::events::{Event, body};
use super::{Store, allowances, line, outbox};
use crate::domain::referral::{Ignored, is_disposable};
use crate::domain::token::random_id;
use crate::domain::{Entry, Status};
use lathe_core::retention::MAILS_PER_DAY;
use lathe_core::validation::email_key;

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

    /// [`Store::sign_up`] on PostgreSQL.
    pub(super) async fn sign_up_in_one(
        &self,
        entry: &Entry,
        confirming: bool,
        proof: Option<Proof<'_>>,
        referral: Option<&str>,
        allowance: Option<Allowance<'_>>,
    ) -> Result<Result<SignedUp, NotStored>, sqlx::Error> {
        let key = email_key(&entry.email);
        // What the addresses tell without the database: a code of no use is not looked up.
        let code = match referral {
            None => Err(Ignored::Off),
            Some(_) if self.places() == 0 => Err(Ignored::Off),
            Some(code) if !lathe_core::referral::is_code(code) => Err(Ignored::Malformed),
            Some(code) => Ok(code),
        };
        let id = random_id();
        let parts = Parts {
            allowance: allowance.is_some(),
            proof: proof.is_some(),
            referral: code.is_ok(),
            then: if confirming {
                Then::Email
            } else if self.webhooks_on() {
                Then::Event
            } else {
                Then::Nothing
            },
        };
        let statement = parts.statement();
        let (interval, tolerance) = allowance.map_or((0, 0), |a| allowances::gcra(a.per_minute));
        let hash = self.mailbox_hash(&entry.email);
        let mut query = bind_sign_up(&statement, entry, &key, &id, confirming, code.ok(), hash)
            .bind(allowance.map(|a| self.client_key(a.client)))
            .bind(allowance.map_or(0, |a| a.now_us))
            .bind(interval)
            .bind(tolerance)
            .bind(proof.map(|p| p.signature))
            .bind(proof.map(|p| p.expires_at))
            .bind(!is_disposable(&entry.email));
        if confirming {
            query = query
                .bind(random_id())
                .bind(crate::domain::Kind::Already.as_str())
                .bind(crate::domain::Kind::Confirm.as_str())
                .bind(entry.created_at - outbox::DAY_MS)
                .bind(i64::from(MAILS_PER_DAY));
        } else if parts.then == Then::Event {
            query = query
                .bind(format!("msg_{}", random_id()))
                .bind(Event::Created.as_str())
                .bind(super::events::body(
                    Event::Created,
                    &id,
                    None,
                    &[],
                    entry.created_at,
                ));
        }
        let answer = query.fetch_one(&self.pool).await?;
        if answer.try_get::<i64, _>("allowed")? == 0 {
            let allowance = allowance.expect("refused by an allowance it was given");
            return Ok(Err(NotStored::TooMany(self.wait(allowance).await?)));
        }
        if answer.try_get::<i64, _>("spent")? == 0 {
            return Ok(Err(NotStored::ProofUsed));
        }
        let repeats: i64 = answer.try_get("repeats")?;
        let mut queued = answer
            .try_get::<Option<String>, _>("queued")?
            .and_then(|kind| crate::domain::Kind::parse(&kind));
        if confirming && repeats > 0 {
            queued = self.queue_for_repeat(&key, entry.created_at).await?;
        }
        let own: Option<bool> = answer.try_get("own")?;
        let referral = referral.map(|_| match (code, own) {
            (Err(ignored), _) => Err(ignored),
            (Ok(_), None) => Err(Ignored::Unknown),
            (Ok(_), Some(true)) => Err(Ignored::Own),
            (Ok(_), Some(false)) if is_disposable(&entry.email) => Err(Ignored::Disposable),
            (Ok(_), Some(false)) if repeats > 0 => Err(Ignored::Repeat),
            (Ok(_), Some(false)) => Ok(()),
        });
        Ok(Ok(SignedUp { queued, referral }))
    }

    /// Queues the email an address already on the list is due, its row locked first so
    /// that repeats of one address at once count each other's emails.
    async fn queue_for_repeat(
        &self,
        key: &str,
        now: i64,
    ) -> Result<Option<crate::domain::Kind>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM waitlist WHERE email_key = $1 FOR UPDATE")
                .bind(key)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(status) = status else {
            // Erased since: nothing to send.
            return Ok(None);
        };
        let queued = outbox::queue(&mut tx, key, due_email(&status), now).await?;
        tx.commit().await?;
        Ok(queued)
    }
}

/// Which parts a sign-up's statement has.
struct Parts {
    /// The client's allowance is taken.
    allowance: bool,
    /// A proof of work is spent.
    proof: bool,
    /// A referral code of a code's shape is looked up.
    referral: bool,
    /// What a new entry brings.
    then: Then,
}

/// What a new entry brings besides its row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Its email (the server confirms addresses).
    Email,
    /// Its `entry.created` event (no confirmation; a webhook receiver).
    Event,
    /// Nothing.
    Nothing,
}

impl Parts {
    /// The statement: `$1` to `$18` the row's (`insert_sign_up`; `$17` the referral
    /// code here), then the allowance's (`$19` the client's key, `$20` now in µs, `$21`
    /// the interval, `$22` the tolerance), the proof's (`$23`, `$24`), whether the
    /// friend's domain may earn a credit (`$25`), and the email's (`$26` its id, `$27`
    /// and `$28` the kinds, `$29` a day ago, `$30` the emails a day) or the event's
    /// (`$26` its id, `$27` its type, `$28` its body).
    fn statement(&self) -> String {
        let mut with = Vec::new();
        let mut gate = Vec::new();
        if self.allowance {
            with.push(
                "allowed AS (INSERT INTO allowances (client, tat_us) VALUES ($19, $20 + $21)
                     ON CONFLICT (client) DO UPDATE
                     SET tat_us = GREATEST(allowances.tat_us, $20) + $21
                     WHERE GREATEST(allowances.tat_us, $20) - $20 <= $22
                     RETURNING 1)",
            );
            gate.push("EXISTS (SELECT 1 FROM allowed)");
        }
        if self.proof {
            with.push(if self.allowance {
                "spent AS (INSERT INTO proofs (signature, expires_at)
                     SELECT $23, $24 WHERE EXISTS (SELECT 1 FROM allowed)
                     ON CONFLICT (signature) DO NOTHING RETURNING 1)"
            } else {
                "spent AS (INSERT INTO proofs (signature, expires_at) VALUES ($23, $24)
                     ON CONFLICT (signature) DO NOTHING RETURNING 1)"
            });
            gate.push("EXISTS (SELECT 1 FROM spent)");
        }
        let referred = if self.referral {
            with.push(
                "referrer AS (SELECT id, mailbox_hash IS NOT DISTINCT FROM $18 AS own
                     FROM waitlist WHERE referral_code = $17)",
            );
            "(SELECT id FROM referrer WHERE NOT own AND $25)"
        } else {
            "CAST($17 AS TEXT)"
        };
        let gate = if gate.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", gate.join(" AND "))
        };
        let row = format!(
            "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $16, {referred},
                 $18 {gate}"
        );
        let stored = format!(
            "stored AS ({} RETURNING status, id, repeats)",
            insert_sign_up("", &row)
        );
        with.push(&stored);
        if self.then == Then::Email {
            // A new entry's email only: see the module's doc for a repeat's.
            with.push(
                "queued AS (INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
                     SELECT $26, $1, CASE WHEN s.status IN ($14, $15) THEN $27 ELSE $28 END, $9, $9
                     FROM stored s
                     WHERE s.repeats = 0
                         AND (SELECT COUNT(*) FROM outbox WHERE email_key = $1 AND created_at > $29) < $30
                     RETURNING kind)",
            );
        } else if self.then == Then::Event {
            with.push(
                "event AS (INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
                     SELECT $26, $27, s.id, $28, $9, $9 FROM stored s WHERE s.repeats = 0)",
            );
        }
        format!(
            "WITH {} SELECT {allowed} AS allowed, {spent} AS spent, {own} AS own,
                 {queued} AS queued, s.repeats
             FROM (SELECT 1) AS one LEFT JOIN stored AS s ON true",
            with.join(", "),
            allowed = if self.allowance {
                "(SELECT COUNT(*) FROM allowed)"
            } else {
                "1"
            },
            spent = if self.proof {
                "(SELECT COUNT(*) FROM spent)"
            } else {
                "1"
            },
            own = if self.referral {
                "(SELECT own FROM referrer)"
            } else {
                "CAST(NULL AS BOOLEAN)"
            },
            queued = if self.then == Then::Email {
                "(SELECT kind FROM queued)"
            } else {
                "CAST(NULL AS TEXT)"
            },
        )
    }
}
