//! Referral credits. A confirmation only makes its friend's credit due (a row of
//! `credits_due`, migration 0010, in the confirmation's own statement or script:
//! `confirmations.rs`); the credit itself is given after it commits, by
//! [`Store::credit_due`], in batches: the mailbox's one credit taken (its keyed hash
//! inserted into `credited_mailboxes`), then each referrer moved ahead once by all its
//! friends in the batch. A confirmation then costs what it costs without a referrer, and
//! a referrer whose friends confirm at once is rewritten once a batch rather than once a
//! friend, its row never a queue the confirmations wait in (docs/server.md, "What a
//! credit costs"). The server's worker runs it as soon as a
//! confirmation says so ([`Store::credits_waker`]), and on a timer for the other
//! instances'; an erasure of a friend whose credit is still due gives it first.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::json;
use sqlx::Row;
use tokio::sync::Notify;

use super::events::Event;
use super::{Backend, Store, StoreError, line};
use crate::operations::metrics;

/// Friends whose credits one transaction gives, at most.
pub const CREDIT_BATCH: usize = 500;

/// A friend whose credit is due: its address, and its referrer's id.
pub(super) type Due = (String, String);

/// Takes, in `tx`, the credits due of the friends `condition` (on `email_key`, with `$1`
/// as `value`) picks: each friend's address's key and referrer.
pub(super) async fn take_due<T>(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    condition: &str,
    value: T,
) -> Result<Vec<(String, String)>, sqlx::Error>
where
    T: for<'q> sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any> + Send + 'static,
{
    sqlx::query_as(&format!(
        "DELETE FROM credits_due WHERE {condition} RETURNING email_key, referrer"
    ))
    .bind(value)
    .fetch_all(&mut **tx)
    .await
}

/// The credits `due` (as [`take_due`] took them) of the erased entries `gone` (id, key in
/// the line, address's key, address, each): a friend who confirmed earned its
/// referrer's credit, so its erasure gives it if the worker has not yet.
pub(super) fn owed(
    due: &[(String, String)],
    gone: &[(String, Option<i64>, String, String)],
) -> Vec<Due> {
    due.iter()
        .filter_map(|(key, referrer)| {
            let (.., email) = gone.iter().find(|(_, _, k, _)| k == key)?;
            Some((email.clone(), referrer.clone()))
        })
        .collect()
}

/// A referral credited: to whom, their credits now, and their key in the line (if they
/// stand in it).
pub(super) struct Credit {
    referrer: String,
    /// Friends credited to it now.
    given: i64,
    credits: i64,
    standing: Option<(i64, i64, i64)>,
}

/// What one run of [`Store::credit_due`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Friends whose due credit it settled (given, or found owed nothing: their mailbox
    /// was credited before, or their referrer is gone).
    pub friends: usize,
    /// Credits given.
    pub credited: usize,
}

impl Store {
    /// What wakes the worker that runs [`Store::credit_due`]: a confirmation that made a
    /// credit due notifies it once it has committed.
    pub fn credits_waker(&self) -> Arc<Notify> {
        self.credits_due.clone()
    }

    /// Gives the credits due, the oldest first, up to a batch in one transaction: what it
    /// settled. Friends taken by another instance's run at the same time are left to it
    /// (on PostgreSQL; SQLite has one writer).
    ///
    /// # Errors
    /// The database failing; nothing was settled.
    pub async fn credit_due(&self, now: i64) -> Result<Settled, StoreError> {
        self.guarded(async {
            let mut tx = self.pool.begin().await?;
            let lock = match self.backend() {
                Backend::Postgres => "FOR UPDATE SKIP LOCKED",
                Backend::Sqlite => "",
            };
            let taken = take_due(
                &mut tx,
                &format!(
                    "email_key IN (SELECT email_key FROM credits_due
                         ORDER BY due_at LIMIT $1 {lock})"
                ),
                i64::try_from(CREDIT_BATCH).unwrap_or(i64::MAX),
            )
            .await?;
            if taken.is_empty() {
                tx.rollback().await?;
                return Ok(Settled::default());
            }
            // The friends' addresses (a friend erased since has no row, and took its
            // credit due with it: see `owed`).
            let keys = placeholders(taken.len());
            let emails =
                format!("SELECT email_key, email FROM waitlist WHERE email_key IN ({keys})");
            // Its text changes with the batch's size (so do the three below): not kept
            // among the connection's prepared statements (sqlx keeps 100), where each size
            // would push out one that every sign-up and confirmation runs.
            let mut emails = sqlx::query_as(&emails).persistent(false);
            for (key, _) in &taken {
                emails = emails.bind(key.as_str());
            }
            let emails: HashMap<String, String> =
                emails.fetch_all(&mut *tx).await?.into_iter().collect();
            let due: Vec<Due> = taken
                .iter()
                .filter_map(|(key, referrer)| Some((emails.get(key)?.clone(), referrer.clone())))
                .collect();
            let mut counts = line::Counts::default();
            let credits = self.credit(&mut tx, &mut counts, &due, now).await?;
            counts.apply(&mut tx).await?;
            self.tell_credits(&mut tx, &credits, now).await?;
            tx.commit().await?;
            counted(&credits);
            Ok(Settled {
                friends: taken.len(),
                credited: given(&credits),
            })
        })
        .await
    }

    /// Credits, in `tx`, each friend of `due` to its referrer, unless the friend's mailbox
    /// earned a credit before (here, earlier in `due`, or on another instance, even for an
    /// entry since erased) or the referrer is gone (or referrals are off): the credits
    /// given, a referrer each. The referrers move ahead in `counts`.
    pub(super) async fn credit(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        counts: &mut line::Counts,
        due: &[Due],
        now: i64,
    ) -> Result<Vec<Credit>, sqlx::Error> {
        let places = i64::from(self.places());
        if places == 0 || due.is_empty() {
            return Ok(Vec::new());
        }
        // Each mailbox once, its hash to its referrer; in the hashes' order, so that two
        // instances taking the same mailboxes' credits take them in one order.
        let mut referrer_of: BTreeMap<String, &str> = BTreeMap::new();
        for (email, referrer) in due {
            referrer_of
                .entry(self.mailbox_hash(email))
                .or_insert(referrer);
        }
        // The mailboxes' credits taken (while their referrers are there), in one
        // statement.
        let pairs = values(referrer_of.len());
        let take = format!(
            "INSERT INTO credited_mailboxes (mailbox_hash, credited_at)
             SELECT v.column1, $1 FROM (VALUES {pairs}) AS v
             WHERE EXISTS (SELECT 1 FROM waitlist WHERE id = v.column2)
             ON CONFLICT (mailbox_hash) DO NOTHING
             RETURNING mailbox_hash"
        );
        let mut take = sqlx::query_scalar(&take).persistent(false).bind(now);
        for (hash, referrer) in &referrer_of {
            take = take.bind(hash.as_str()).bind(*referrer);
        }
        let taken: Vec<String> = take.fetch_all(&mut **tx).await?;
        let mut friends: BTreeMap<&str, i64> = BTreeMap::new();
        for hash in &taken {
            if let Some(referrer) = referrer_of.get(hash) {
                *friends.entry(referrer).or_default() += 1;
            }
        }
        if friends.is_empty() {
            return Ok(Vec::new());
        }
        // Each referrer moved ahead once by all its friends here, in one statement. The
        // VALUES are in the order of the referrers' ids (`friends` is ordered), and
        // PostgreSQL's plan for them, a nested loop over the VALUES, locks their rows in
        // that order: two instances' batches with referrers in common wait for each other
        // at worst, never deadlock. Were a plan ever to take them otherwise, PostgreSQL
        // would end one of the two, rolled back whole and given by the worker's next run.
        // (A SELECT ... ORDER BY id FOR UPDATE first made the order certain, at a fifth
        // of a batch's time: make bench, a million entries, its batches of 400 settled in
        // 39 ms with it and 32 ms without.)
        let pairs = values(friends.len());
        let update = format!(
            "UPDATE waitlist SET credits = credits + v.column2,
                 neg_credits = neg_credits - v.column2, line_key = line_key - v.column2 * $1
             FROM (VALUES {pairs}) AS v WHERE waitlist.id = v.column1
             RETURNING id, credits, line_key, neg_credits, line_number"
        );
        let mut update = sqlx::query(&update).persistent(false).bind(places);
        for (referrer, n) in &friends {
            update = update.bind(*referrer).bind(*n);
        }
        // A referrer missing: erased since its mailboxes' credits were taken (on another
        // instance).
        let rows = update.fetch_all(&mut **tx).await?;
        let mut credits = Vec::with_capacity(rows.len());
        for row in &rows {
            let referrer: String = row.try_get("id")?;
            let n = friends.get(referrer.as_str()).copied().unwrap_or_default();
            let key: Option<i64> = row.try_get("line_key")?;
            if let Some(key) = key {
                counts.moved(key + n * places, key);
            }
            credits.push(Credit {
                referrer,
                given: n,
                credits: row.try_get("credits")?,
                standing: match key {
                    Some(key) => Some((
                        key,
                        row.try_get("neg_credits")?,
                        row.try_get("line_number")?,
                    )),
                    None => None,
                },
            });
        }
        Ok(credits)
    }

    /// Records, in `tx` after its counts are written, the `referral.credited` event of
    /// each of `credits`: the referrer's id, credits and new place (nothing of the
    /// friends), when there is a receiver.
    pub(super) async fn tell_credits(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        credits: &[Credit],
        now: i64,
    ) -> Result<(), sqlx::Error> {
        if !self.webhooks_on() {
            return Ok(());
        }
        for credit in credits {
            let place = match credit.standing {
                Some(standing) => Some(Self::place_of(tx, standing).await?),
                None => None,
            };
            let extra = [("credits", json!(credit.credits)), ("place", json!(place))];
            self.record(
                tx,
                Event::ReferralCredited,
                &credit.referrer,
                None,
                &extra,
                now,
            )
            .await?;
        }
        Ok(())
    }
}

/// `n` placeholders for an IN list: `$1, $2, ...`.
fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` rows of two placeholders for a VALUES, from `$2` on (`$1` is the statement's
/// own): `($2, $3), ($4, $5), ...`. Their columns are column1 and column2 in both
/// databases.
fn values(n: usize) -> String {
    (0..n)
        .map(|i| format!("(${}, ${})", 2 * i + 2, 2 * i + 3))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many friends `credits` credited.
fn given(credits: &[Credit]) -> usize {
    credits
        .iter()
        .map(|c| usize::try_from(c.given).unwrap_or_default())
        .sum()
}

/// Counts `credits`, given and committed, in the server's metrics.
pub(super) fn counted(credits: &[Credit]) {
    metrics::referrals_credited(given(credits));
}
