//! A sign-up, in one request to the database on either backend: its parts (the client's
//! allowance, the proof of work, the referrer, the row, and what a new entry brings) are
//! written once, as [`Parts`], and said the way each database takes them.
//!
//! - **PostgreSQL**: one statement in autocommit, with data-modifying CTEs (a round trip
//!   is most of what a request costs there). It was eight round trips: the allowance,
//!   BEGIN, the referrer, the INSERT, the SELECT of what was stored, the day's emails,
//!   the email, COMMIT. Now the client's allowance taken (`allowed`), the proof of work
//!   spent (`spent`, only if allowed), the referrer read by its code (`referrer`), the row
//!   inserted or its repeat counted (`stored`, only if allowed and spent), and for a new
//!   entry its email queued (`queued`) or its `entry.created` event kept (`event`). An
//!   address already on the list is rare and has its email queued in a transaction of
//!   its own after the statement, its row locked first: within one statement the day's
//!   emails are counted as they were when it began, and repeats of one address waiting
//!   for its row together each counted the others' emails out.
//!   Sign-ups that arrive together are made in one such statement, a row of values
//!   each ([`Parts::together`]; together.rs says when).
//! - **SQLite**: one transaction, as before, but its statements sent as one script: one
//!   hop to the connection's thread where each statement was one (sqlx-sqlite runs a
//!   connection on a thread of its own, and a profile of sign-ups showed that thread
//!   waking and waiting for the server's more than SQLite working: docs/server.md, "One
//!   round trip"). The script runs every part in order, each statement seeing the
//!   last's rows; if the proof was spent already, the transaction is rolled back, so
//!   nothing of it stays. One writer: the day's emails are counted as they are, for a
//!   repeat too. The allowance stays a statement of its own before it (on SQLite the
//!   server keeps it in memory: only the store's own callers give one).
//!
//! A 2xx still means a committed row: the answer is read after the commit.

use std::sync::Arc;

use lathe_core::retention::MAILS_PER_DAY;
use lathe_core::validation::email_key;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

use super::entries::{Allowance, NotStored, Proof, SignedUp, due_email};
use super::events::{Event, body};
use super::group::Write;
use super::together::{Batched, numbered};
use super::{Backend, Store, StoreError, allowances, outbox};
use crate::domain::referral::{Ignored, is_disposable};
use crate::domain::token::{random_code, random_id};
use crate::domain::{Entry, Kind, Status};

impl Store {
    /// Stores a sign-up: a new entry, or, for an address already there (compared in NFC,
    /// without case), a count of the repeat and its time, leaving the entry as it was.
    /// When `confirming` (the server sends email), a new entry is pending, and the email
    /// the address is due (a link to confirm it, or word that it is on the list already)
    /// is queued with it, unless [`MAILS_PER_DAY`] went to it in the last day: the kind
    /// queued is returned. Concurrent sign-ups with the same address never make two
    /// entries; `Ok` means it is committed (with SQLite, on the disk: see
    /// `sqlite_pragmas`). The client's `allowance`, if given, is taken and a `proof` of
    /// work spent with the row: if either fails, nothing is stored and the answer says
    /// why ([`NotStored`]). A `referral` code names the entry whose share link brought
    /// it (what became of it is in the answer).
    ///
    /// # Errors
    /// The database failing or unreachable; nothing was stored.
    pub async fn sign_up(
        &self,
        entry: &Entry,
        confirming: bool,
        proof: Option<Proof<'_>>,
        referral: Option<&str>,
        allowance: Option<Allowance<'_>>,
    ) -> Result<Result<SignedUp, NotStored>, StoreError> {
        if self.backend() == Backend::Sqlite
            && let Some(allowance) = allowance
            && let Some(wait) = self
                .admit(allowance.client, allowance.per_minute, allowance.now_us)
                .await?
        {
            return Ok(Err(NotStored::TooMany(wait)));
        }
        self.guarded(self.store_sign_up(entry, confirming, proof, referral, allowance))
            .await
    }

    async fn store_sign_up(
        &self,
        entry: &Entry,
        confirming: bool,
        proof: Option<Proof<'_>>,
        referral: Option<&str>,
        allowance: Option<Allowance<'_>>,
    ) -> Result<Result<SignedUp, NotStored>, sqlx::Error> {
        let postgres = self.backend() == Backend::Postgres;
        let key = email_key(&entry.email);
        // What the addresses tell without the database: a code of no use is not looked up.
        let code = match referral {
            None => Err(Ignored::Off),
            Some(_) if self.places() == 0 => Err(Ignored::Off),
            Some(code) if !lathe_core::referral::is_code(code) => Err(Ignored::Malformed),
            Some(code) => Ok(code),
        };
        let parts = Parts {
            // On SQLite, taken above.
            allowance: postgres && allowance.is_some(),
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
        // The allowance this statement takes (on SQLite, taken above).
        let allowance = allowance.filter(|_| parts.allowance);
        let values = Values::new(
            self,
            entry,
            parts.then,
            key.clone(),
            code.ok(),
            proof,
            allowance,
        );
        let answer = if postgres {
            // With the sign-ups that wait beside it, in one statement (together.rs).
            let gcra = allowance.map(|a| allowances::gcra(a.per_minute));
            self.sign_ups_together
                .make(
                    &self.pool,
                    SignUp {
                        parts,
                        values,
                        gcra,
                    },
                )
                .await?
                .ok_or(sqlx::Error::RowNotFound)?
        } else {
            // One script, in the transaction of its group (group.rs), undone if its proof
            // was spent already. Every row it answers is its last statement's (fetch_all
            // steps each statement to its end, so their errors are seen): one.
            let write = script_write(Arc::new((parts.script(), parts, values)));
            let rows = self.group.write(&self.pool, write, proof_new).await?;
            let Some(answer) = rows.into_iter().next() else {
                return Err(sqlx::Error::RowNotFound);
            };
            answer
        };
        if answer.try_get::<i64, _>("allowed")? == 0 {
            let allowance = allowance.expect("refused by an allowance it was given");
            return Ok(Err(NotStored::TooMany(self.wait(allowance).await?)));
        }
        if answer.try_get::<i64, _>("spent")? == 0 {
            return Ok(Err(NotStored::ProofUsed));
        }
        let repeats: i64 = answer.try_get("repeats")?;
        let mut queued = queued(&answer)?;
        if postgres && confirming && repeats > 0 {
            queued = self.queue_for_repeat(&key, entry.created_at).await?;
        }
        let own: Option<i64> = answer.try_get("own")?;
        let referral = referral.map(|_| match (code, own) {
            (Err(ignored), _) => Err(ignored),
            (Ok(_), None) => Err(Ignored::Unknown),
            (Ok(_), Some(1)) => Err(Ignored::Own),
            (Ok(_), Some(_)) if is_disposable(&entry.email) => Err(Ignored::Disposable),
            (Ok(_), Some(_)) if repeats > 0 => Err(Ignored::Repeat),
            (Ok(_), Some(_)) => Ok(()),
        });
        Ok(Ok(SignedUp { queued, referral }))
    }

    /// Queues the email an address already on the list is due, its row locked first so
    /// that repeats of one address at once count each other's emails (PostgreSQL).
    async fn queue_for_repeat(&self, key: &str, now: i64) -> Result<Option<Kind>, sqlx::Error> {
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

/// SQLite's script of a sign-up (its text, parts and values) as a write of its group
/// (group.rs).
fn script_write(owned: Arc<(String, Parts, Values)>) -> Write {
    Box::new(move |connection| {
        let owned = owned.clone();
        Box::pin(async move {
            let (script, parts, values) = &*owned;
            bind(script, parts, values, (0, 0))
                .fetch_all(connection)
                .await
        })
    })
}

/// Whether a sign-up's answer (SQLite's) is kept: its proof, if it had one, was new.
fn proof_new(rows: &[AnyRow]) -> bool {
    rows.first().is_some_and(|answer| {
        answer
            .try_get::<i64, _>("spent")
            .is_ok_and(|spent| spent != 0)
    })
}

/// A sign-up's values, owned, its ids, nonces and codes drawn once: bound as its
/// statement's parameters (see [`Parts`]), or one row of a statement that makes several
/// sign-ups together (together.rs), which reads them by these names.
#[derive(Clone, Debug, Serialize)]
pub(super) struct Values {
    /// The address's key (NFC, without case).
    pub(super) key: String,
    email: String,
    name: String,
    company: String,
    role: String,
    interest: &'static str,
    message: String,
    privacy_notice: String,
    created_at: i64,
    /// The new entry's id.
    id: String,
    /// Pending when the server confirms addresses, else unconfirmed.
    status: &'static str,
    confirm_nonce: Option<String>,
    manage_nonce: String,
    /// The new entry's own referral code.
    referral_code: String,
    /// The code it came with, if one of a code's shape is to be looked up.
    code: Option<String>,
    mailbox_hash: String,
    /// The client's keyed hash, if its allowance is taken (PostgreSQL).
    pub(super) client: Option<String>,
    /// Now, µs since the Unix epoch, for the allowance (0 without one).
    now_us: i64,
    /// The proof's signature and expiry, if one is spent.
    pub(super) signature: Option<String>,
    expires_at: Option<i64>,
    /// Whether the friend's domain may earn its referrer a credit (not disposable).
    may_credit: bool,
    /// The id of the new entry's email, or of its `entry.created` event.
    then_id: Option<String>,
    /// The event's body.
    body: Option<String>,
}

impl Values {
    fn new(
        store: &Store,
        entry: &Entry,
        then: Then,
        key: String,
        code: Option<&str>,
        proof: Option<Proof<'_>>,
        allowance: Option<Allowance<'_>>,
    ) -> Self {
        let id = random_id();
        let (status, confirm_nonce) = if then == Then::Email {
            (Status::Pending, Some(random_id()))
        } else {
            (Status::Unconfirmed, None)
        };
        let (then_id, body) = match then {
            Then::Email => (Some(random_id()), None),
            Then::Event => (
                Some(format!("msg_{}", random_id())),
                Some(body(Event::Created, &id, None, &[], entry.created_at)),
            ),
            Then::Nothing => (None, None),
        };
        Self {
            key,
            email: entry.email.clone(),
            name: entry.name.clone(),
            company: entry.company.clone(),
            role: entry.role.clone(),
            interest: entry.interest.as_str(),
            message: entry.message.clone(),
            privacy_notice: entry.privacy_notice.clone(),
            created_at: entry.created_at,
            id,
            status: status.as_str(),
            confirm_nonce,
            manage_nonce: random_id(),
            referral_code: random_code(),
            code: code.map(str::to_owned),
            mailbox_hash: store.mailbox_hash(&entry.email),
            client: allowance.map(|a| store.client_key(a.client)),
            now_us: allowance.map_or(0, |a| a.now_us),
            signature: proof.map(|p| p.signature.to_owned()),
            expires_at: proof.map(|p| p.expires_at),
            may_credit: !is_disposable(&entry.email),
            then_id,
            body,
        }
    }
}

/// `statement` (of `parts`) with `values` bound (see [`Parts`]), the allowance's interval
/// and tolerance (µs) as `gcra`.
pub(super) fn bind<'q>(
    statement: &'q str,
    parts: &Parts,
    values: &'q Values,
    (interval, tolerance): (i64, i64),
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let v = values;
    let query = sqlx::query(statement)
        .bind(&v.key)
        .bind(&v.email)
        .bind(&v.name)
        .bind(&v.company)
        .bind(&v.role)
        .bind(v.interest)
        .bind(&v.message)
        .bind(&v.privacy_notice)
        .bind(v.created_at)
        .bind(&v.id)
        .bind(v.status)
        .bind(&v.confirm_nonce)
        .bind(&v.manage_nonce)
        .bind(Status::Confirmed.as_str())
        .bind(Status::Invited.as_str())
        .bind(&v.referral_code)
        .bind(&v.code)
        .bind(&v.mailbox_hash)
        .bind(&v.client)
        .bind(v.now_us)
        .bind(interval)
        .bind(tolerance)
        .bind(&v.signature)
        .bind(v.expires_at)
        .bind(v.may_credit);
    match parts.then {
        Then::Email => query
            .bind(&v.then_id)
            .bind(Kind::Already.as_str())
            .bind(Kind::Confirm.as_str())
            .bind(v.created_at - outbox::DAY_MS)
            .bind(i64::from(MAILS_PER_DAY)),
        Then::Event => query
            .bind(&v.then_id)
            .bind(Event::Created.as_str())
            .bind(&v.body),
        Then::Nothing => query,
    }
}

/// The kind of email the answer says was queued, if one was.
fn queued(answer: &AnyRow) -> Result<Option<Kind>, sqlx::Error> {
    Ok(answer
        .try_get::<Option<String>, _>("queued")?
        .and_then(|kind| Kind::parse(&kind)))
}

/// The sign-up's INSERT: the row from `source` (a VALUES, or a SELECT, of `$1` to `$13`,
/// `$16` to `$18` in the columns' order), and what an address already there does instead
/// (`$14`, `$15`: the confirmed statuses).
fn insert(source: &str) -> String {
    insert_with(source, "$14", "$15")
}

/// [`insert`], the confirmed statuses bound as `confirmed` and `invited`.
fn insert_with(source: &str, confirmed: &str, invited: &str) -> String {
    format!(
        "INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
             privacy_notice, created_at, last_interaction_at, id, status, confirm_nonce,
             manage_nonce, referral_code, referred_by, mailbox_hash) {source}
         ON CONFLICT (email_key) DO UPDATE SET
             repeats = waitlist.repeats + 1, last_repeat_at = excluded.created_at,
             id = COALESCE(waitlist.id, excluded.id),
             manage_nonce = COALESCE(waitlist.manage_nonce, excluded.manage_nonce),
             confirm_nonce = CASE WHEN waitlist.status IN ({confirmed}, {invited}) THEN NULL
                 ELSE COALESCE(waitlist.confirm_nonce, excluded.confirm_nonce) END"
    )
}

/// The entry whose code (`$17`) a sign-up came with: PostgreSQL's statement reads it once,
/// as a CTE named `referrer`; SQLite's script reads it as a subquery of that name where it
/// is needed ([`Parts::referrer`]).
const REFERRER: &str = "SELECT id, mailbox_hash FROM waitlist WHERE referral_code = $17";

/// Which parts a sign-up's statement has.
pub(super) struct Parts {
    /// The client's allowance is taken (PostgreSQL).
    allowance: bool,
    /// A proof of work is spent.
    proof: bool,
    /// A referral code of a code's shape is looked up.
    referral: bool,
    /// What a new entry brings.
    pub(super) then: Then,
}

/// What a new entry brings besides its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Then {
    /// Its email (the server confirms addresses).
    Email,
    /// Its `entry.created` event (no confirmation; a webhook receiver).
    Event,
    /// Nothing.
    Nothing,
}

/// The parameters both ways of saying it take: `$1` to `$18` the row's (`$1` the address's
/// key, `$9` when, `$10` the new id, `$17` the referral code, `$18` the mailbox's hash),
/// then the allowance's (`$19` the client's key, `$20` now in µs, `$21` the interval,
/// `$22` the tolerance), the proof's (`$23`, `$24`), whether the friend's domain may earn
/// a credit (`$25`), and the email's (`$26` its id, `$27` and `$28` the kinds, `$29` a
/// day ago, `$30` the emails a day) or the event's (`$26` its id, `$27` its type, `$28`
/// its body). Each answers one row: `allowed`, `spent` (1 or 0), `own` (whether the code's
/// entry has the friend's own mailbox: 1 or 0, none if no entry has the code), `queued`
/// (the kind of email), and the stored row's `repeats`.
impl Parts {
    /// Where the code's entry is read from: PostgreSQL's CTE, or SQLite's subquery.
    fn referrer(postgres: bool) -> String {
        if postgres {
            "referrer".to_owned()
        } else {
            format!("({REFERRER}) AS referrer")
        }
    }

    /// The referrer's id, from the code (`$17`): none for a code of no entry, the friend's
    /// own mailbox, or a disposable domain.
    fn referred(&self, postgres: bool) -> String {
        if self.referral {
            format!(
                "(SELECT id FROM {} WHERE mailbox_hash IS DISTINCT FROM $18 AND $25)",
                Self::referrer(postgres)
            )
        } else {
            "CAST($17 AS TEXT)".to_owned()
        }
    }

    /// Whether the code's entry has the friend's own mailbox, as the answer's `own`.
    fn own(&self, postgres: bool) -> String {
        if self.referral {
            format!(
                "(SELECT CASE WHEN mailbox_hash IS NOT DISTINCT FROM $18 THEN 1 ELSE 0 END
                     FROM {})",
                Self::referrer(postgres)
            )
        } else {
            "CAST(NULL AS BIGINT)".to_owned()
        }
    }

    /// PostgreSQL's one statement.
    pub(super) fn statement(&self) -> String {
        let mut with = Vec::new();
        let mut gate = Vec::new();
        if self.referral {
            with.push(format!("referrer AS ({REFERRER})"));
        }
        if self.allowance {
            with.push(
                "allowed AS (INSERT INTO allowances (client, tat_us) VALUES ($19, $20 + $21)
                     ON CONFLICT (client) DO UPDATE
                     SET tat_us = GREATEST(allowances.tat_us, $20) + $21
                     WHERE GREATEST(allowances.tat_us, $20) - $20 <= $22
                     RETURNING 1)"
                    .to_owned(),
            );
            gate.push("EXISTS (SELECT 1 FROM allowed)");
        }
        if self.proof {
            with.push(
                if self.allowance {
                    "spent AS (INSERT INTO proofs (signature, expires_at)
                         SELECT $23, $24 WHERE EXISTS (SELECT 1 FROM allowed)
                         ON CONFLICT (expires_at, signature) DO NOTHING RETURNING 1)"
                } else {
                    "spent AS (INSERT INTO proofs (signature, expires_at) VALUES ($23, $24)
                         ON CONFLICT (expires_at, signature) DO NOTHING RETURNING 1)"
                }
                .to_owned(),
            );
            gate.push("EXISTS (SELECT 1 FROM spent)");
        }
        let gate = if gate.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", gate.join(" AND "))
        };
        let row = format!(
            "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $16, {},
                 $18 {gate}",
            self.referred(true)
        );
        with.push(format!(
            "stored AS ({} RETURNING status, id, repeats)",
            insert(&row)
        ));
        match self.then {
            // A new entry's email only: see the module's doc for a repeat's.
            Then::Email => with.push(
                "queued AS (INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
                     SELECT $26, $1, CASE WHEN s.status IN ($14, $15) THEN $27 ELSE $28 END, $9, $9
                     FROM stored s
                     WHERE s.repeats = 0
                         AND (SELECT COUNT(*) FROM (SELECT 1 FROM outbox
                             WHERE email_key = $1 AND created_at > $29 LIMIT $30) AS day) < $30
                     RETURNING kind)"
                    .to_owned(),
            ),
            Then::Event => with.push(
                "event AS (INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
                     SELECT $26, $27, s.id, $28, $9, $9 FROM stored s WHERE s.repeats = 0)"
                    .to_owned(),
            ),
            Then::Nothing => {}
        }
        let (queued, join) = if self.then == Then::Email {
            ("q.kind", "LEFT JOIN queued AS q ON true")
        } else {
            ("CAST(NULL AS TEXT)", "")
        };
        // A stored row was allowed and its proof spent: the answer counts `allowed` and
        // `spent` only for a row not stored.
        format!(
            "WITH {} SELECT CASE WHEN s.id IS NULL THEN {allowed} ELSE 1 END AS allowed,
                 CASE WHEN s.id IS NULL THEN {spent} ELSE 1 END AS spent, {own} AS own,
                 {queued} AS queued, s.repeats
             FROM (SELECT 1) AS one LEFT JOIN stored AS s ON true {join}",
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
            own = self.own(true),
        )
    }

    /// PostgreSQL's one statement for several sign-ups at once, each with parts as
    /// [`Parts::statement`]'s and a new entry bringing `then`: `$1` their [`Values`] as a
    /// JSON array, each numbered (`n`); `$2` and `$3` the allowance's interval and
    /// tolerance (the same for all: a client's allowance is taken where its `client` is
    /// given); `$4` and `$5` the confirmed statuses; then the email's (`$6` and `$7` its
    /// kinds, `$8` the emails a day, `$9` a day in ms) or the event's type (`$6`). A part
    /// a sign-up has not (no code, no proof, no allowance) is null in its values. One row
    /// for each, its `n` with the columns [`Parts::statement`] answers. The sign-ups are of
    /// distinct addresses, clients and proofs (together.rs): each row is written once.
    pub(super) fn together(then: Then) -> String {
        let mut with = vec![
            "input AS (SELECT * FROM json_to_recordset($1::json) AS i(n BIGINT, key TEXT,
                 email TEXT, name TEXT, company TEXT, role TEXT, interest TEXT, message TEXT,
                 privacy_notice TEXT, created_at BIGINT, id TEXT, status TEXT,
                 confirm_nonce TEXT, manage_nonce TEXT, referral_code TEXT, code TEXT,
                 mailbox_hash TEXT, client TEXT, now_us BIGINT, signature TEXT,
                 expires_at BIGINT, may_credit BOOLEAN, then_id TEXT, body TEXT))"
                .to_owned(),
            "referrer AS (SELECT i.n, w.id, w.mailbox_hash
                 FROM input AS i JOIN waitlist AS w ON w.referral_code = i.code)"
                .to_owned(),
            // now = excluded.tat_us - $2, as the single statement's $20.
            "allowed AS (INSERT INTO allowances (client, tat_us)
                 SELECT client, now_us + $2 FROM input WHERE client IS NOT NULL
                 ON CONFLICT (client) DO UPDATE
                 SET tat_us = GREATEST(allowances.tat_us, excluded.tat_us - $2) + $2
                 WHERE GREATEST(allowances.tat_us, excluded.tat_us - $2)
                     - (excluded.tat_us - $2) <= $3
                 RETURNING client)"
                .to_owned(),
            "spent AS (INSERT INTO proofs (signature, expires_at)
                 SELECT signature, expires_at FROM input
                 WHERE signature IS NOT NULL
                     AND (client IS NULL OR client IN (SELECT client FROM allowed))
                 ON CONFLICT (expires_at, signature) DO NOTHING RETURNING signature)"
                .to_owned(),
            format!(
                "stored AS ({} RETURNING email_key, status, id, repeats)",
                insert_with(
                    "SELECT i.key, i.email, i.name, i.company, i.role, i.interest, i.message,
                         i.privacy_notice, i.created_at, i.created_at, i.id, i.status,
                         i.confirm_nonce, i.manage_nonce, i.referral_code,
                         (SELECT r.id FROM referrer AS r WHERE r.n = i.n
                             AND r.mailbox_hash IS DISTINCT FROM i.mailbox_hash
                             AND i.may_credit),
                         i.mailbox_hash
                     FROM input AS i
                     WHERE (i.client IS NULL OR i.client IN (SELECT client FROM allowed))
                         AND (i.signature IS NULL
                             OR i.signature IN (SELECT signature FROM spent))",
                    "$4",
                    "$5",
                )
            ),
        ];
        match then {
            Then::Email => with.push(
                "queued AS (INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
                     SELECT i.then_id, s.email_key,
                         CASE WHEN s.status IN ($4, $5) THEN $6 ELSE $7 END,
                         i.created_at, i.created_at
                     FROM stored AS s JOIN input AS i ON i.key = s.email_key
                     WHERE s.repeats = 0
                         AND (SELECT COUNT(*) FROM (SELECT 1 FROM outbox
                             WHERE email_key = s.email_key AND created_at > i.created_at - $9
                             LIMIT $8) AS day) < $8
                     RETURNING email_key, kind)"
                    .to_owned(),
            ),
            Then::Event => with.push(
                "event AS (INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
                     SELECT i.then_id, $6, s.id, i.body, i.created_at, i.created_at
                     FROM stored AS s JOIN input AS i ON i.key = s.email_key
                     WHERE s.repeats = 0)"
                    .to_owned(),
            ),
            Then::Nothing => {}
        }
        let (queued, join) = if then == Then::Email {
            ("q.kind", "LEFT JOIN queued AS q ON q.email_key = i.key")
        } else {
            ("CAST(NULL AS TEXT)", "")
        };
        format!(
            "WITH {} SELECT i.n,
                 CAST(CASE WHEN s.email_key IS NOT NULL OR i.client IS NULL
                     OR i.client IN (SELECT client FROM allowed) THEN 1 ELSE 0 END AS BIGINT)
                     AS allowed,
                 CAST(CASE WHEN s.email_key IS NOT NULL OR i.signature IS NULL
                     OR i.signature IN (SELECT signature FROM spent) THEN 1 ELSE 0 END AS BIGINT)
                     AS spent,
                 (SELECT CAST(CASE WHEN r.mailbox_hash IS NOT DISTINCT FROM i.mailbox_hash
                     THEN 1 ELSE 0 END AS BIGINT) FROM referrer AS r WHERE r.n = i.n) AS own,
                 {queued} AS queued, s.repeats
             FROM input AS i LEFT JOIN stored AS s ON s.email_key = i.key {join}",
            with.join(", ")
        )
    }

    /// SQLite's script, run in a transaction: the row, its email or event, the proof last
    /// so that the answer's `changes()` is its INSERT's (the rows it inserted: 0 if the
    /// proof was spent already, and the transaction is rolled back).
    fn script(&self) -> String {
        let mut script = vec![insert(&format!(
            "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $16, {},
                     $18 WHERE true",
            self.referred(false)
        ))];
        match self.then {
            Then::Email => script.push(
                "INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
                 SELECT $26, $1, CASE WHEN status IN ($14, $15) THEN $27 ELSE $28 END, $9, $9
                 FROM waitlist
                 WHERE email_key = $1
                     AND (SELECT COUNT(*) FROM outbox WHERE email_key = $1 AND created_at > $29) < $30"
                    .to_owned(),
            ),
            Then::Event => script.push(
                "INSERT INTO webhooks (id, type, entry_id, payload, created_at, next_attempt_at)
                 SELECT $26, $27, id, $28, $9, $9 FROM waitlist WHERE email_key = $1 AND repeats = 0"
                    .to_owned(),
            ),
            Then::Nothing => {}
        }
        if self.proof {
            script.push(
                "INSERT INTO proofs (signature, expires_at) VALUES ($23, $24)
                 ON CONFLICT (expires_at, signature) DO NOTHING"
                    .to_owned(),
            );
        }
        script.push(format!(
            "SELECT 1 AS allowed, {spent} AS spent, {own} AS own, {queued} AS queued, repeats
             FROM waitlist WHERE email_key = $1",
            spent = if self.proof { "changes()" } else { "1" },
            own = self.own(false),
            queued = if self.then == Then::Email {
                "(SELECT kind FROM outbox WHERE id = $26)"
            } else {
                "CAST(NULL AS TEXT)"
            },
        ));
        script.join(";\n")
    }
}

/// [`Parts::together`]'s statement for `sign_ups` (each with a new entry bringing
/// `then`, its allowance's interval and tolerance `gcra`, or none), their values bound.
pub(super) fn bind_together<'q>(
    statement: &'q str,
    then: Then,
    sign_ups: &[&Values],
    (interval, tolerance): (i64, i64),
) -> Result<sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>, serde_json::Error> {
    let query = sqlx::query(statement)
        .bind(numbered(sign_ups)?)
        .bind(interval)
        .bind(tolerance)
        .bind(Status::Confirmed.as_str())
        .bind(Status::Invited.as_str());
    Ok(match then {
        Then::Email => query
            .bind(Kind::Already.as_str())
            .bind(Kind::Confirm.as_str())
            .bind(i64::from(MAILS_PER_DAY))
            .bind(outbox::DAY_MS),
        Then::Event => query.bind(Event::Created.as_str()),
        Then::Nothing => query,
    })
}

/// A sign-up to make on PostgreSQL: its parts (for its statement alone), values, and its
/// allowance's interval and tolerance (µs), if one is taken.
pub(super) struct SignUp {
    parts: Parts,
    values: Values,
    gcra: Option<(i64, i64)>,
}

impl Batched for SignUp {
    fn goes_with(&self, first: &Self) -> bool {
        self.parts.then == first.parts.then && self.gcra == first.gcra
    }

    fn marks(&self) -> Vec<(&'static str, String)> {
        let values = &self.values;
        let mut marks = vec![("address", values.key.clone())];
        marks.extend(values.client.clone().map(|client| ("client", client)));
        marks.extend(values.signature.clone().map(|proof| ("proof", proof)));
        marks
    }

    async fn together(pool: &AnyPool, group: &[&Self]) -> Result<Vec<AnyRow>, sqlx::Error> {
        let first = group[0];
        let statement = Parts::together(first.parts.then);
        let values: Vec<&Values> = group.iter().map(|sign_up| &sign_up.values).collect();
        bind_together(
            &statement,
            first.parts.then,
            &values,
            first.gcra.unwrap_or((0, 0)),
        )
        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?
        .fetch_all(pool)
        .await
    }

    async fn alone(&self, pool: &AnyPool) -> Result<Option<AnyRow>, sqlx::Error> {
        let statement = self.parts.statement();
        bind(
            &statement,
            &self.parts,
            &self.values,
            self.gcra.unwrap_or((0, 0)),
        )
        .fetch_one(pool)
        .await
        .map(Some)
    }
}
