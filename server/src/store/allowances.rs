//! What keeps scripts out, kept where every instance sees it. The `allowances` table:
//! each client's allowance of sign-ups a minute, so that every server on one PostgreSQL
//! counts it together (the generic cell rate algorithm: one row a client, its theoretical
//! arrival time). A client is a keyed hash of its address: the table never holds an
//! address, and a row goes once its allowance is whole again. The `proofs` table: the
//! proofs of work spent, each once.

use std::num::NonZeroU32;

use super::entries::Allowance;
use super::{Store, StoreError};

/// A minute, in µs: the allowances' unit (migration 0011).
const MINUTE_US: i64 = 60_000_000;

/// The most sign-ups a minute an allowance can keep exactly: one a microsecond.
/// (`--sign-ups-per-minute` refuses more.)
pub const MAX_PER_MINUTE: u32 = 60_000_000;

/// The generic cell rate algorithm's interval and tolerance, in µs, for `per_minute` a
/// minute with a burst of as many (at most [`MAX_PER_MINUTE`]: more is taken as that).
pub(super) fn gcra(per_minute: NonZeroU32) -> (i64, i64) {
    let per_minute = i64::from(per_minute.get().min(MAX_PER_MINUTE));
    let interval = MINUTE_US / per_minute;
    (interval, interval * (per_minute - 1))
}

impl Store {
    /// Takes one sign-up at `now_us` (µs since the Unix epoch) from the allowance of
    /// `client` (its address, as the server reads it), `per_minute` a minute (at most
    /// [`MAX_PER_MINUTE`]) with a burst of as many: `None` if it had one, else how many
    /// µs until it has. Sign-ups that reach the database a little out of their order
    /// share the burst, as they do in order.
    ///
    /// # Errors
    /// The database failing or unreachable.
    pub async fn admit(
        &self,
        client: &str,
        per_minute: NonZeroU32,
        now_us: i64,
    ) -> Result<Option<i64>, StoreError> {
        let key = self.client_key(client);
        let (interval, tolerance) = gcra(per_minute);
        self.guarded(async {
            // One statement: two servers at once take from one allowance.
            let taken: Option<i64> = sqlx::query_scalar(
                "INSERT INTO allowances (client, tat_us) VALUES ($1, $2 + $3)
                 ON CONFLICT (client) DO UPDATE
                     SET tat_us = CASE WHEN allowances.tat_us > $2 THEN allowances.tat_us ELSE $2 END + $3
                     WHERE CASE WHEN allowances.tat_us > $2 THEN allowances.tat_us ELSE $2 END - $2 <= $4
                 RETURNING tat_us",
            )
            .bind(&key)
            .bind(now_us)
            .bind(interval)
            .bind(tolerance)
            .fetch_optional(&self.pool)
            .await?;
            if taken.is_some() {
                return Ok(None);
            }
            Ok(Some(
                self.wait(Allowance {
                    client,
                    per_minute,
                    now_us,
                })
                .await?,
            ))
        })
        .await
    }

    /// How many µs until `allowance`'s client, just refused, has a sign-up again.
    pub(super) async fn wait(&self, allowance: Allowance<'_>) -> Result<i64, sqlx::Error> {
        let (_, tolerance) = gcra(allowance.per_minute);
        let tat: Option<i64> =
            sqlx::query_scalar("SELECT tat_us FROM allowances WHERE client = $1")
                .bind(self.client_key(allowance.client))
                .fetch_optional(&self.pool)
                .await?;
        // Gone already (the retention job): the allowance is whole again.
        Ok(tat.map_or(1, |tat| (tat - tolerance - allowance.now_us).max(1)))
    }

    /// The keyed hash a client is kept under.
    pub(super) fn client_key(&self, client: &str) -> String {
        super::keyed_hash(&self.allowance_key, client)
    }
}

/// Forgets, in `tx`, what no longer counts at `now` (ms): the clients whose allowance is
/// whole again, and the proofs whose challenges expired.
pub(super) async fn forget(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM allowances WHERE tat_us <= $1")
        .bind(now.saturating_mul(1000))
        .execute(&mut **tx)
        .await?;
    sqlx::query("DELETE FROM proofs WHERE expires_at < $1")
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
