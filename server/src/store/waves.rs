//! The `waves` table: the owner's invitations, each wave a numbered batch of confirmed
//! entries, taken in the line's order (the first places first), each entry invited once, its emails queued in the same
//! transaction, each due in turn at the wave's pace.

use std::collections::HashMap;
use std::num::NonZeroU32;

use lathe_core::line::{Standing, key};
use lathe_core::validation::Interest;
use sqlx::any::AnyRow;
use sqlx::{FromRow, Row};

use super::outbox::queue_invitation;
use super::{Backend, Store, StoreError, line};
use crate::domain::{Kind, Letter, Status, pace};

/// A wave as the owner lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wave {
    /// 1, 2, 3... in the order the waves were made.
    pub number: i64,
    /// When it was made, in ms since the Unix epoch.
    pub created_at: i64,
    /// How many entries it invited.
    pub size: i64,
    /// The interest it was limited to, if any.
    pub interest: Option<String>,
    /// Its letter's subject.
    pub subject: String,
    /// Its emails still to go (or to be tried again).
    pub queued: i64,
    /// Its emails sent.
    pub sent: i64,
    /// Its emails refused for good, or failed too often.
    pub failed: i64,
}

/// Who a wave invited (or, in a dry run, would invite), in the line's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invited {
    /// The wave's number; in a dry run, the number it would have had.
    pub wave: i64,
    /// When its last email is due, in ms since the Unix epoch.
    pub last_due_at: i64,
    /// Each invited entry's address and name.
    pub entries: Vec<(String, String)>,
}

// By hand rather than derived: sqlx's derive would bring its macros crate, which builds
// the whole of sqlx a second time, for the compiler (docs/testing.md, "Where the time goes").
impl FromRow<'_, AnyRow> for Wave {
    fn from_row(row: &AnyRow) -> Result<Self, sqlx::Error> {
        Ok(Wave {
            number: row.try_get("number")?,
            created_at: row.try_get("created_at")?,
            size: row.try_get("size")?,
            interest: row.try_get("interest")?,
            subject: row.try_get("subject")?,
            queued: row.try_get("queued")?,
            sent: row.try_get("sent")?,
            failed: row.try_get("failed")?,
        })
    }
}

/// An entry a wave took out of the line.
struct Taken {
    email_key: String,
    email: String,
    name: String,
    /// Its confirmation number.
    line_number: i64,
    credits: i64,
}

/// An entry's key in the line (`lathe_core::line::key`).
type LineKey = (i64, i64, u64);

impl Store {
    /// Takes, in `tx`, the `count` confirmed entries (with `interest`, if given) at the
    /// head of the line out of it, marked invited in `wave` at `now`: each one's address's
    /// key, address, name, confirmation number and credits.
    ///
    /// Their rows of `waitlist` are locked before their standings, the order in which a
    /// confirmation and an erasure take them. PostgreSQL skips an entry another owner's
    /// wave has locked, in one statement; SQLite, with one writer, takes them out of the
    /// line and then marks them invited.
    async fn take_head(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        wave: i64,
        interest: Option<Interest>,
        count: u32,
        now: i64,
    ) -> Result<Vec<Taken>, sqlx::Error> {
        let head = |lock: &str| {
            format!(
                "SELECT s.id FROM standings s JOIN waitlist w ON w.id = s.id
                 WHERE s.line_key IS NOT NULL AND w.status = $4 AND ($5 IS NULL OR w.interest = $5)
                 ORDER BY s.line_key, s.neg_credits, s.line_number LIMIT $6 {lock}"
            )
        };
        let bound = |statement| {
            sqlx::query(statement)
                .bind(Status::Invited.as_str())
                .bind(now)
                .bind(wave)
                .bind(Status::Confirmed.as_str())
                .bind(interest.map(Interest::as_str))
                .bind(i64::from(count))
        };
        // fetch_all steps each statement to its end, so its errors are seen.
        if self.backend() == Backend::Postgres {
            let statement = format!(
                "WITH head AS ({head}),
                 out_of_line AS (UPDATE standings SET line_key = NULL
                     WHERE id IN (SELECT id FROM head) RETURNING id, line_number, credits)
                 UPDATE waitlist SET status = $1, invited_at = $2, wave = $3
                 FROM out_of_line WHERE waitlist.id = out_of_line.id
                 RETURNING email_key, email, name, out_of_line.line_number, out_of_line.credits",
                head = head("FOR UPDATE OF w SKIP LOCKED")
            );
            let rows = bound(&statement).fetch_all(&mut **tx).await?;
            return rows
                .iter()
                .map(|row| {
                    Ok(Taken {
                        email_key: row.try_get("email_key")?,
                        email: row.try_get("email")?,
                        name: row.try_get("name")?,
                        line_number: row.try_get("line_number")?,
                        credits: row.try_get("credits")?,
                    })
                })
                .collect();
        }
        let out_of_line = format!(
            "UPDATE standings SET line_key = NULL WHERE id IN ({head})
             RETURNING id, line_number, credits",
            head = head("")
        );
        let standings: HashMap<String, (i64, i64)> = bound(&out_of_line)
            .fetch_all(&mut **tx)
            .await?
            .iter()
            .map(|row| {
                Ok((
                    row.try_get("id")?,
                    (row.try_get("line_number")?, row.try_get("credits")?),
                ))
            })
            .collect::<Result<_, sqlx::Error>>()?;
        let ids = serde_json::to_string(&standings.keys().collect::<Vec<_>>())
            .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let rows = sqlx::query(
            "UPDATE waitlist SET status = $1, invited_at = $2, wave = $3
             WHERE id IN (SELECT value FROM json_each($4))
             RETURNING id, email_key, email, name",
        )
        .bind(Status::Invited.as_str())
        .bind(now)
        .bind(wave)
        .bind(ids)
        .fetch_all(&mut **tx)
        .await?;
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                let (line_number, credits) = standings.get(&id).copied().unwrap_or_default();
                Ok(Taken {
                    email_key: row.try_get("email_key")?,
                    email: row.try_get("email")?,
                    name: row.try_get("name")?,
                    line_number,
                    credits,
                })
            })
            .collect()
    }

    /// Invites the `count` confirmed entries (with `interest`, if given) at the head of
    /// the line (who were never invited: an invited entry leaves it), with `letter`, at `now`: one transaction records
    /// the wave, marks each entry invited in it and queues its email, each due in turn at
    /// `per_minute` ([`pace`]), from now or from the last email of a wave still going.
    /// Nobody is invited twice, even by two owners at once. With `dry_run`, the same
    /// statements run and are rolled back: who would be invited is who would be.
    ///
    /// # Errors
    /// The database failing or unreachable; nothing was invited.
    pub async fn invite(
        &self,
        count: u32,
        interest: Option<Interest>,
        letter: &Letter,
        per_minute: NonZeroU32,
        now: i64,
        dry_run: bool,
    ) -> Result<Invited, StoreError> {
        self.guarded(async {
            let mut tx = self.pool.begin().await?;
            let (wave, previous_last): (i64, Option<i64>) =
                sqlx::query_as("SELECT COALESCE(MAX(number), 0) + 1, MAX(last_due_at) FROM waves")
                    .fetch_one(&mut *tx)
                    .await?;
            let start = pace::start(now, previous_last, per_minute);
            let taken = self.take_head(&mut tx, wave, interest, count, now).await?;
            let places = self.places();
            let mut invited: Vec<(LineKey, String, String, String)> = taken
                .into_iter()
                .map(|taken| {
                    let standing = Standing {
                        confirmed: u64::try_from(taken.line_number).unwrap_or_default(),
                        credits: u32::try_from(taken.credits).unwrap_or(u32::MAX),
                    };
                    (
                        key(standing, places),
                        taken.email_key,
                        taken.email,
                        taken.name,
                    )
                })
                .collect();
            // RETURNING promises no order: the line's.
            invited.sort();
            let mut counts = line::Counts::default();
            for (key, ..) in &invited {
                counts.leave(Some(key.0));
            }
            let last_due_at = pace::due_at(
                start,
                u64::try_from(invited.len().saturating_sub(1)).unwrap_or(u64::MAX),
                per_minute,
            );
            if !invited.is_empty() {
                sqlx::query(
                    "INSERT INTO waves (number, created_at, size, interest, subject, body,
                         mail_per_minute, last_due_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(wave)
                .bind(now)
                .bind(i64::try_from(invited.len()).unwrap_or(i64::MAX))
                .bind(interest.map(Interest::as_str))
                .bind(&letter.subject)
                .bind(&letter.body)
                .bind(i64::from(per_minute.get()))
                .bind(last_due_at)
                .execute(&mut *tx)
                .await?;
                for (index, (_, key, _, _)) in (0_u64..).zip(&invited) {
                    let due = pace::due_at(start, index, per_minute);
                    queue_invitation(&mut tx, key, wave, now, due).await?;
                }
            }
            counts.apply(&mut tx).await?;
            if dry_run {
                tx.rollback().await?;
            } else {
                tx.commit().await?;
            }
            Ok(Invited {
                wave,
                last_due_at,
                entries: invited
                    .into_iter()
                    .map(|(_, _, email, name)| (email, name))
                    .collect(),
            })
        })
        .await
    }

    /// Every wave, first first, with its emails' counts.
    ///
    /// # Errors
    /// The database failing.
    pub async fn waves(&self) -> Result<Vec<Wave>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT number, waves.created_at, size, interest, subject, sent, failed,
                 (SELECT COUNT(*) FROM outbox
                  WHERE outbox.wave = waves.number AND outbox.kind = $1
                      AND sent_at IS NULL AND failed_at IS NULL) AS queued
             FROM waves ORDER BY number",
        )
        .bind(Kind::Invitation.as_str())
        .fetch_all(&self.pool)
        .await?)
    }

    /// The letter of wave `number`, if there is such a wave.
    ///
    /// # Errors
    /// The database failing.
    pub async fn wave_letter(&self, number: i64) -> Result<Option<Letter>, StoreError> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT subject, body FROM waves WHERE number = $1")
                .bind(number)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(subject, body)| Letter { subject, body }))
    }
}
