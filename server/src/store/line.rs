//! The line (`lathe_core::line`) as the database keeps it, in `standings` (a narrow row
//! an entry, beside `waitlist`: migration 0013): each entry standing in it has `line_key`
//! (its confirmation number less the places its credits are worth) and `neg_credits`, and
//! the line is the order of `(line_key, neg_credits, line_number)`, the core's
//! [`key`](lathe_core::line::key). `line_counts` counts the entries in line by bucket of
//! keys (migration 0009), so that a place is read from the counts, a row a bucket once
//! [`Store::fold_counts`] has folded it (a few hundred rows at a million entries), and at
//! most one bucket of the index.
//!
//! Every change to who stands where goes through [`Counts`], in the transaction that makes
//! it: joining when an address is confirmed, leaving when an entry is invited or erased,
//! moving when a credit moves one.

use serde::Serialize;
use sqlx::{AnyConnection, Row};

use super::{Backend, Store, StoreError};
use crate::domain::token::random_u64;

/// Keys in a bucket of `line_counts` (the same as in migration 0009, which filled it
/// first: a test reads it there).
pub const BUCKET_KEYS: i64 = 4096;
/// Rows a bucket's count is spread over: concurrent confirmations, whose keys fall in the
/// last bucket, each take one of them until they commit (with 8, ten at once on PostgreSQL
/// queued on them: 1,750 a second against 2,650 with 64; measured with pgbench).
const STRIPES: u64 = 64;

/// The bucket of `key`: the key divided by [`BUCKET_KEYS`], rounded down.
pub fn bucket(key: i64) -> i64 {
    key.div_euclid(BUCKET_KEYS)
}

/// The same in SQL, for `column` (integer division rounds towards zero in both
/// databases, so a negative key is taken on the other side of zero).
pub(super) fn bucket_sql(column: &str) -> String {
    format!(
        "CASE WHEN {column} >= 0 THEN {column} / {BUCKET_KEYS} \
         ELSE -(({keys} - {column}) / {BUCKET_KEYS}) END",
        keys = BUCKET_KEYS - 1
    )
}

/// The SQL that gives the next confirmation number. PostgreSQL's sequence, so that
/// concurrent confirmations never wait for each other (numbers taken by a confirmation
/// that is rolled back are gaps, as invited entries leave: a credit then moves its
/// referrer past fewer people). SQLite has one writer: one more than the largest.
pub(super) const fn next_number(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "nextval('line_numbers')",
        Backend::Sqlite => "(SELECT COALESCE(MAX(line_number), 0) + 1 FROM standings)",
    }
}

/// Makes what gives the next confirmation number if it is missing. On PostgreSQL the
/// sequence, moved past the largest number given (the migration's, or an import's; one
/// server at a time). On SQLite an index on the numbers, for their largest: a schema's
/// own, but only SQLite's. On PostgreSQL a credit, which writes a new version of its
/// referrer's standing, would write an entry in it too, at a random place (a batch's
/// UPDATE took 38 to 54 µs a referrer with it and 22 to 25 without, at a million
/// entries); SQLite rewrites only the index entries of the columns that change.
pub(super) async fn prepare(
    connection: &mut AnyConnection,
    backend: Backend,
) -> Result<(), sqlx::Error> {
    if backend == Backend::Sqlite {
        sqlx::query(
            "CREATE UNIQUE INDEX IF NOT EXISTS standings_line_number ON standings (line_number)",
        )
        .execute(&mut *connection)
        .await?;
        return Ok(());
    }
    let mut tx = sqlx::Connection::begin(&mut *connection).await?;
    // Any number of our own: two servers starting at once take turns here.
    sqlx::query("SELECT pg_advisory_xact_lock(7411093)")
        .execute(&mut *tx)
        .await?;
    sqlx::query("CREATE SEQUENCE IF NOT EXISTS line_numbers")
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "SELECT setval('line_numbers', m) FROM (SELECT MAX(line_number) AS m FROM standings) AS given
         WHERE m >= (SELECT last_value FROM line_numbers)",
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await
}

/// The places a credit is worth as the keys in the database were made (the `settings`
/// row `places_per_referral`), if a server has said.
pub(super) async fn stored_places(
    connection: &mut AnyConnection,
) -> Result<Option<u32>, sqlx::Error> {
    let value: Option<String> =
        sqlx::query_scalar("SELECT value FROM settings WHERE name = 'places_per_referral'")
            .fetch_optional(&mut *connection)
            .await?;
    Ok(value.and_then(|v| v.parse().ok()))
}

/// One of a bucket's rows, at random.
pub(super) fn random_stripe() -> i64 {
    i64::try_from(random_u64() % STRIPES).unwrap_or(0)
}

/// What a transaction changes in the line's counts, applied together at its end
/// ([`Counts::apply`]): after every row it locks, on one row a bucket (the same stripe for
/// all), buckets in ascending order. Taken in that order everywhere, two transactions
/// never wait for each other's count rows while holding a row the other needs (a
/// confirmation crediting a referrer whom a wave is inviting; two confirmations), so
/// PostgreSQL never has to fail one of them.
#[derive(Debug, Default)]
pub(super) struct Counts(std::collections::BTreeMap<i64, i64>);

impl Counts {
    /// An entry with `key` joined the line.
    pub(super) fn join(&mut self, key: i64) {
        *self.0.entry(bucket(key)).or_default() += 1;
    }

    /// An entry with `key` left it (invited, or erased); `None` was not in it.
    pub(super) fn leave(&mut self, key: Option<i64>) {
        if let Some(key) = key {
            *self.0.entry(bucket(key)).or_default() -= 1;
        }
    }

    /// An entry's key went from `from` to `to`.
    pub(super) fn moved(&mut self, from: i64, to: i64) {
        self.leave(Some(from));
        self.join(to);
    }

    /// Writes the changes in `tx`, each bucket's on one of its rows (their sum is the
    /// count).
    pub(super) async fn apply(
        self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    ) -> Result<(), sqlx::Error> {
        let stripe = random_stripe();
        for (bucket, delta) in self.0 {
            if delta == 0 {
                continue;
            }
            sqlx::query(
                "INSERT INTO line_counts (bucket, stripe, n) VALUES ($1, $2, $3)
                 ON CONFLICT (bucket, stripe) DO UPDATE SET n = line_counts.n + excluded.n",
            )
            .bind(bucket)
            .bind(stripe)
            .bind(delta)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }
}

/// Where an entry stands, as its owner sees it (never who its friends are).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    /// Its place, 1 the next to be invited; `None` out of the line (not confirmed yet, or
    /// invited).
    pub place: Option<i64>,
    /// How many stand in the line.
    pub of: i64,
    /// Its referral code, for its share link.
    pub code: String,
    /// Friends who signed up through its link (and are still on the list).
    pub joined: i64,
    /// Of those, how many confirmed their address.
    pub confirmed: i64,
    /// Friends credited to it.
    pub credits: i64,
    /// What a confirmed friend is worth, in places.
    pub places_per_referral: u32,
}

/// An entry whose share link brought friends, as the owner lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Referrer {
    /// Its id (as in its links and webhook events).
    pub id: String,
    /// Its address (printed only when asked for).
    pub email: String,
    /// Friends who signed up through its link and are still on the list.
    pub joined: i64,
    /// Of those, how many confirmed.
    pub confirmed: i64,
    /// Friends credited to it.
    pub credits: i64,
    /// Its place, while it stands in the line.
    pub place: Option<i64>,
}

impl Store {
    /// The `top` entries whose links brought the most friends (then the most confirmed).
    ///
    /// # Errors
    /// The database failing.
    pub async fn referrers(&self, top: u32) -> Result<Vec<Referrer>, StoreError> {
        let mut connection = self.pool.acquire().await?;
        let rows = sqlx::query(
            "SELECT r.id, r.email, COALESCE(s.credits, 0) AS credits, s.line_key,
                 s.neg_credits, s.line_number,
                 COUNT(*) AS joined, COUNT(f.confirmed_at) AS confirmed
             FROM waitlist r JOIN waitlist f ON f.referred_by = r.id
                 LEFT JOIN standings s ON s.id = r.id
             GROUP BY r.id, r.email, s.credits, s.line_key, s.neg_credits, s.line_number
             ORDER BY joined DESC, confirmed DESC, r.id LIMIT $1",
        )
        .bind(i64::from(top))
        .fetch_all(&mut *connection)
        .await?;
        let mut referrers = Vec::with_capacity(rows.len());
        for row in &rows {
            let place = Self::place_in_row(&mut connection, row).await?;
            referrers.push(Referrer {
                id: row.try_get("id")?,
                email: row.try_get("email")?,
                joined: row.try_get("joined")?,
                confirmed: row.try_get("confirmed")?,
                credits: row.try_get("credits")?,
                place,
            });
        }
        Ok(referrers)
    }

    /// The place of the entry with `key` (`line_key`, `neg_credits`, `line_number`), read
    /// in `connection`: one more than the entries in the buckets before its own, and those
    /// before it in its own bucket.
    pub(super) async fn place_of(
        connection: &mut AnyConnection,
        key: (i64, i64, i64),
    ) -> Result<i64, sqlx::Error> {
        Ok(Self::place_and_length(connection, key).await?.0)
    }

    /// The place of the entry with `key` (as [`Self::place_of`]) and how many stand in
    /// the line, read in `connection` in one statement, the counts' rows scanned once.
    ///
    /// The count in the entry's bucket is bounded above by its key as well as by the row
    /// comparison: PostgreSQL cannot estimate the rows a row comparison leaves, so without
    /// the bound it planned for a tenth of the table, and at a million entries it read the
    /// few thousand index entries of one bucket with two parallel workers, 8 to 11 ms
    /// where the bounded scan takes 0.3 (`EXPLAIN ANALYZE`, docs/server.md).
    async fn place_and_length(
        connection: &mut AnyConnection,
        (key, neg_credits, number): (i64, i64, i64),
    ) -> Result<(i64, i64), sqlx::Error> {
        let bucket = bucket(key);
        sqlx::query_as(
            "SELECT 1 + CAST(COALESCE(SUM(CASE WHEN bucket < $1 THEN n END), 0) AS BIGINT)
                     + (SELECT COUNT(*) FROM standings
                        WHERE line_key IS NOT NULL AND line_key >= $2 AND line_key <= $3
                          AND (line_key, neg_credits, line_number) < ($3, $4, $5)),
                 CAST(COALESCE(SUM(n), 0) AS BIGINT)
             FROM line_counts",
        )
        .bind(bucket)
        .bind(bucket * BUCKET_KEYS)
        .bind(key)
        .bind(neg_credits)
        .bind(number)
        .fetch_one(&mut *connection)
        .await
    }

    /// The place of the entry in `row` (which has its `line_key`, `neg_credits` and
    /// `line_number`), read in `connection`; `None` out of the line.
    pub(super) async fn place_in_row(
        connection: &mut AnyConnection,
        row: &sqlx::any::AnyRow,
    ) -> Result<Option<i64>, sqlx::Error> {
        let key: Option<i64> = row.try_get("line_key")?;
        Ok(match key {
            Some(key) => Some(
                Self::place_of(
                    connection,
                    (
                        key,
                        row.try_get("neg_credits")?,
                        row.try_get("line_number")?,
                    ),
                )
                .await?,
            ),
            None => None,
        })
    }

    /// How many stand in the line. (PostgreSQL sums BIGINTs as NUMERIC: cast back.)
    pub(super) async fn line_length(connection: &mut AnyConnection) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM line_counts")
            .fetch_one(&mut *connection)
            .await
    }

    /// Where the entry `id` stands, if there is one.
    ///
    /// # Errors
    /// The database failing or unreachable.
    pub async fn standing(&self, id: &str) -> Result<Option<Standing>, StoreError> {
        self.guarded(async {
            let mut connection = self.pool.acquire().await?;
            let row = sqlx::query(
                "SELECT referral_code, COALESCE(s.credits, 0) AS credits, s.line_key,
                     s.neg_credits, s.line_number,
                     (SELECT COUNT(*) FROM waitlist f WHERE f.referred_by = $1) AS joined,
                     (SELECT COUNT(*) FROM waitlist f
                      WHERE f.referred_by = $1 AND f.confirmed_at IS NOT NULL) AS confirmed
                 FROM waitlist w LEFT JOIN standings s ON s.id = w.id WHERE w.id = $1",
            )
            .bind(id)
            .fetch_optional(&mut *connection)
            .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let key: Option<i64> = row.try_get("line_key")?;
            let (place, of) = match key {
                Some(key) => {
                    let key = (
                        key,
                        row.try_get("neg_credits")?,
                        row.try_get("line_number")?,
                    );
                    let (place, of) = Self::place_and_length(&mut connection, key).await?;
                    (Some(place), of)
                }
                None => (None, Self::line_length(&mut connection).await?),
            };
            Ok(Some(Standing {
                place,
                of,
                code: row.try_get("referral_code")?,
                joined: row.try_get("joined")?,
                confirmed: row.try_get("confirmed")?,
                credits: row.try_get("credits")?,
                places_per_referral: self.places(),
            }))
        })
        .await
    }

    /// Folds each bucket's rows of `line_counts` into one, for every bucket but the last
    /// two (where the confirmations land, spread over `STRIPES` rows so that they do
    /// not queue on one): the rows removed. A place sums the counts of the buckets before
    /// its own, and without folding every bucket keeps the rows it had while it was the
    /// last, 64 each: 15,861 rows at a million entries, read in 2 ms of a place's 3
    /// (docs/server.md). The server's worker runs it every
    /// [`FOLD_EVERY`](crate::waitlist::counts::FOLD_EVERY).
    ///
    /// On PostgreSQL each bucket is folded by one statement that takes only rows no
    /// other transaction holds (`SKIP LOCKED`), into the first of them: it never waits,
    /// so it never joins a deadlock, whatever order others lock the counts in; a row it
    /// skipped is folded by a later run. SQLite has one writer: one transaction.
    ///
    /// # Errors
    /// The database failing; each bucket's fold is whole or not at all.
    pub async fn fold_counts(&self) -> Result<u64, StoreError> {
        self.guarded(async {
            let buckets: Vec<i64> = sqlx::query_scalar(
                "SELECT bucket FROM line_counts GROUP BY bucket
                 HAVING COUNT(*) > 1 AND bucket < (SELECT MAX(bucket) FROM line_counts) - 1
                 ORDER BY bucket",
            )
            .fetch_all(&self.pool)
            .await?;
            if buckets.is_empty() {
                return Ok(0);
            }
            if self.backend() == Backend::Sqlite {
                return fold_in_one(&self.pool, buckets[buckets.len() - 1]).await;
            }
            let mut removed = 0;
            for bucket in buckets {
                let gone: Option<i64> = sqlx::query_scalar(
                    "WITH kept AS (SELECT stripe FROM line_counts WHERE bucket = $1
                         ORDER BY stripe LIMIT 1 FOR UPDATE SKIP LOCKED),
                     gone AS (DELETE FROM line_counts WHERE bucket = $1 AND stripe IN (
                             SELECT stripe FROM line_counts
                             WHERE bucket = $1 AND stripe NOT IN (SELECT stripe FROM kept)
                             FOR UPDATE SKIP LOCKED)
                         AND EXISTS (SELECT 1 FROM kept)
                         RETURNING n)
                     UPDATE line_counts
                     SET n = n + (SELECT CAST(SUM(n) AS BIGINT) FROM gone)
                     WHERE bucket = $1 AND stripe IN (SELECT stripe FROM kept)
                         AND EXISTS (SELECT 1 FROM gone)
                     RETURNING (SELECT COUNT(*) FROM gone)",
                )
                .bind(bucket)
                .fetch_optional(&self.pool)
                .await?;
                removed += gone.unwrap_or(0);
            }
            Ok(u64::try_from(removed).unwrap_or(0))
        })
        .await
    }

    /// What a credit is worth here, in places.
    pub fn places(&self) -> u32 {
        self.places.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sets what a credit is worth (`--places-per-referral`) for every server and command
    /// on this database: if the keys were made with another value, they are made again,
    /// and the line's counts with them, in one transaction. Give every server on one
    /// database the same value: the one started last sets it for all.
    ///
    /// # Errors
    /// The database failing; nothing changed.
    pub async fn set_places(&self, places: u32) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let was = stored_places(&mut tx).await?;
        if was != Some(places) {
            sqlx::query(
                "UPDATE standings SET line_key = line_number - $1 * credits
                 WHERE line_key IS NOT NULL",
            )
            .bind(i64::from(places))
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM line_counts")
                .execute(&mut *tx)
                .await?;
            let bucket = bucket_sql("line_key");
            sqlx::query(&format!(
                "INSERT INTO line_counts (bucket, stripe, n)
                 SELECT {bucket}, 0, COUNT(*) FROM standings WHERE line_key IS NOT NULL
                 GROUP BY {bucket}"
            ))
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM settings WHERE name = 'places_per_referral'")
                .execute(&mut *tx)
                .await?;
            sqlx::query("INSERT INTO settings (name, value) VALUES ('places_per_referral', $1)")
                .bind(places.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.places
            .store(places, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// SQLite's fold of every bucket up to `last` with more than one row, in one transaction:
/// each bucket's first row takes the bucket's count, and the others go. The rows removed.
async fn fold_in_one(pool: &sqlx::AnyPool, last: i64) -> Result<u64, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let first = "(SELECT MIN(stripe) FROM line_counts AS o WHERE o.bucket = line_counts.bucket)";
    sqlx::query(&format!(
        "UPDATE line_counts
         SET n = (SELECT SUM(n) FROM line_counts AS o WHERE o.bucket = line_counts.bucket)
         WHERE bucket <= $1 AND stripe = {first}"
    ))
    .bind(last)
    .execute(&mut *tx)
    .await?;
    let removed = sqlx::query(&format!(
        "DELETE FROM line_counts WHERE bucket <= $1 AND stripe > {first}"
    ))
    .bind(last)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_down_on_both_sides_of_zero() {
        for (key, expected) in [
            (0, 0),
            (4095, 0),
            (4096, 1),
            (-1, -1),
            (-4096, -1),
            (-4097, -2),
        ] {
            assert_eq!(bucket(key), expected, "{key}");
        }
    }

    #[test]
    fn the_migration_made_its_buckets_as_these_are_made() {
        let migration = include_str!("../../migrations/0009_line.sql");
        let expected = bucket_sql("line_key").replace(' ', "");
        assert_eq!(
            migration
                .replace([' ', '\n'], "")
                .matches(&expected)
                .count(),
            2,
            "{expected}"
        );
    }
}
