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
/// Transactions that give credits at once on PostgreSQL, each the credits of a share of
/// the friends: a batch's time is mostly its referrers' rows, found and rewritten one
/// after the other by one connection, while the database's other cores wait. (Two, on
/// this machine's two cores: make bench's last credit of a round of 400, at a million
/// entries, came 26 to 29 ms after its last confirmation with one, 19 to 23 with two.)
/// Their referrers are locked in one order (see `credit`).
const CREDIT_PARTS: i64 = 2;

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
    /// settled. On PostgreSQL, [`CREDIT_PARTS`] transactions at once, each the credits of
    /// its share of the friends; friends taken by another instance's run at the same time
    /// are left to it. (SQLite has one writer: one transaction.)
    ///
    /// # Errors
    /// The database failing; what a failed transaction took was not settled.
    pub async fn credit_due(&self, now: i64) -> Result<Settled, StoreError> {
        self.guarded(async {
            let parts = match self.backend() {
                Backend::Postgres => (0..CREDIT_PARTS).map(Some).collect(),
                Backend::Sqlite => vec![None],
            };
            let settled = futures_util::future::try_join_all(
                parts.into_iter().map(|part| self.credit_part(part, now)),
            )
            .await?;
            Ok(settled
                .into_iter()
                .fold(Settled::default(), |all, one| Settled {
                    friends: all.friends + one.friends,
                    credited: all.credited + one.credited,
                }))
        })
        .await
    }

    /// Gives, in one transaction, the credits due of the friends whose confirmation's
    /// time (`due_at`) modulo [`CREDIT_PARTS`] is `part` (all, without one), the oldest
    /// first, up to a batch: what it settled.
    async fn credit_part(&self, part: Option<i64>, now: i64) -> Result<Settled, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let (share, lock) = match part {
            Some(part) => (
                format!("WHERE due_at % {CREDIT_PARTS} = {part}"),
                "FOR UPDATE SKIP LOCKED",
            ),
            None => (String::new(), ""),
        };
        let taken = take_due(
            &mut tx,
            &format!(
                "email_key IN (SELECT email_key FROM credits_due {share}
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
        let emails = format!("SELECT email_key, email FROM waitlist WHERE email_key IN ({keys})");
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
        // The mailboxes' credits taken, in one statement.
        let take = format!(
            "INSERT INTO credited_mailboxes (mailbox_hash, credited_at)
             SELECT v.column1, $1 FROM (VALUES {}) AS v WHERE true
             ON CONFLICT (mailbox_hash) DO NOTHING
             RETURNING mailbox_hash",
            values(referrer_of.len(), 1)
        );
        let mut take = sqlx::query_scalar(&take).persistent(false).bind(now);
        for hash in referrer_of.keys() {
            take = take.bind(hash.as_str());
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
        // Each referrer moved ahead once by all its friends here, in one statement, in
        // its narrow row of `standings`. The VALUES are in the order of the referrers' ids
        // (`friends` is ordered), and PostgreSQL's plan for them, a nested loop over the
        // VALUES, locks their rows in that order: two instances' batches with referrers
        // in common wait for each other at worst, never deadlock. Were a plan ever to take
        // them otherwise, PostgreSQL would end one of the two, rolled back whole and given
        // by the worker's next run. (A SELECT ... ORDER BY id FOR UPDATE first made the
        // order certain, at a fifth of a batch's time: make bench, a million entries, its
        // batches of 400 settled in 39 ms with it and 32 ms without.)
        let mut moved = Vec::with_capacity(friends.len());
        moved.extend(
            move_ahead(
                tx,
                "UPDATE standings SET credits = credits + v.column2,
                     neg_credits = neg_credits - v.column2, line_key = line_key - v.column2 * $1
                 FROM (VALUES {values}) AS v WHERE standings.id = v.column1
                 RETURNING id, credits, line_key, neg_credits, line_number",
                places,
                &friends,
            )
            .await?,
        );
        // A referrer without a standing yet (its own address not confirmed: its friends
        // were quicker) is given one, if it is still there. (Checked only here: reading
        // each referrer's row of `waitlist` cost a batch a fifth of its time.)
        let mut left = friends.clone();
        for credit in &moved {
            left.remove(credit.referrer.as_str());
        }
        if !left.is_empty() {
            moved.extend(
                move_ahead(
                    tx,
                    "INSERT INTO standings (id, credits, neg_credits)
                     SELECT v.column1, v.column2, -v.column2 FROM (VALUES {values}) AS v
                     WHERE EXISTS (SELECT 1 FROM waitlist WHERE id = v.column1)
                     ON CONFLICT (id) DO UPDATE SET
                         credits = standings.credits + excluded.credits,
                         neg_credits = standings.neg_credits + excluded.neg_credits,
                         line_key = standings.line_key - excluded.credits * $1
                     RETURNING id, credits, line_key, neg_credits, line_number",
                    places,
                    &left,
                )
                .await?,
            );
            for credit in &moved {
                left.remove(credit.referrer.as_str());
            }
        }
        // A referrer still missing was erased (on another instance) since its friends
        // confirmed: they earned nothing, and their mailboxes' credits are given back.
        let unearned: Vec<&str> = taken
            .iter()
            .filter(|hash| {
                referrer_of
                    .get(*hash)
                    .is_some_and(|referrer| left.contains_key(referrer))
            })
            .map(String::as_str)
            .collect();
        if !unearned.is_empty() {
            let back = format!(
                "DELETE FROM credited_mailboxes WHERE mailbox_hash IN ({})",
                placeholders(unearned.len())
            );
            let mut back = sqlx::query(&back).persistent(false);
            for hash in unearned {
                back = back.bind(hash);
            }
            back.execute(&mut **tx).await?;
        }
        for credit in &moved {
            if let Some((key, ..)) = credit.standing {
                counts.moved(key + credit.given * places, key);
            }
        }
        Ok(moved)
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

/// `n` rows of `width` placeholders for a VALUES, from `$2` on (`$1` is the statement's
/// own): `($2, $3), ($4, $5), ...` for two. Their columns are column1, column2... in
/// both databases.
fn values(n: usize, width: usize) -> String {
    (0..n)
        .map(|i| {
            let row: Vec<String> = (0..width)
                .map(|j| format!("${}", width * i + j + 2))
                .collect();
            format!("({})", row.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `statement` (its `{values}` the rows of `friends`: each referrer's id and how many
/// friends moved it, `$1` the places a credit is worth) in `tx`: each referrer it moved,
/// with its credits and standing now.
async fn move_ahead(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    statement: &str,
    places: i64,
    friends: &BTreeMap<&str, i64>,
) -> Result<Vec<Credit>, sqlx::Error> {
    let statement = statement.replace("{values}", &values(friends.len(), 2));
    // Its text changes with the batch's size: not kept among the connection's prepared
    // statements (see `Store::credit_due`).
    let mut query = sqlx::query(&statement).persistent(false).bind(places);
    for (referrer, n) in friends {
        query = query.bind(*referrer).bind(*n);
    }
    query
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .map(|row| {
            let referrer: String = row.try_get("id")?;
            let key: Option<i64> = row.try_get("line_key")?;
            Ok(Credit {
                given: friends.get(referrer.as_str()).copied().unwrap_or_default(),
                referrer,
                credits: row.try_get("credits")?,
                standing: match key {
                    Some(key) => Some((
                        key,
                        row.try_get("neg_credits")?,
                        row.try_get("line_number")?,
                    )),
                    None => None,
                },
            })
        })
        .collect()
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
