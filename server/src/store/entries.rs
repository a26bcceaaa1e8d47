//! The `waitlist` table: one row an entry, keyed by its address in NFC without case.

use futures_util::{Stream, StreamExt};
use lathe_core::validation::email_key;
use sqlx::Row;

use super::erasures::Whose;
use super::events::Event;
use super::{Backend, Store, StoreError, credits, erasures, line, outbox};
use crate::domain::referral::Ignored;
use crate::domain::token::random_id;
use crate::domain::{Entry, ErasedBy, Kind, Status};

/// A sign-up's allowance (`--sign-ups-per-minute`), taken in the database on PostgreSQL
/// (every instance counts it together): the client (its address, as the server reads
/// it), how many a minute, and when, in µs since the Unix epoch.
#[derive(Clone, Copy, Debug)]
pub struct Allowance<'a> {
    /// The client's address.
    pub client: &'a str,
    /// Its sign-ups a minute (a burst of as many).
    pub per_minute: std::num::NonZeroU32,
    /// Now, µs since the Unix epoch.
    pub now_us: i64,
}

/// A proof of work a sign-up spends: its challenge's signature, and when it expires (ms).
#[derive(Clone, Copy, Debug)]
pub struct Proof<'a> {
    /// The challenge's signature (what makes it one of a kind).
    pub signature: &'a str,
    /// When the challenge expires, ms since the Unix epoch: the record is kept until then.
    pub expires_at: i64,
}

/// What a stored sign-up did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedUp {
    /// The email queued to the address, if any.
    pub queued: Option<Kind>,
    /// For a sign-up that brought a referral code: `Ok` if the friend will earn its
    /// referrer a credit on confirming (unless its mailbox earned one before), or why not.
    pub referral: Option<Result<(), Ignored>>,
}

/// The email a sign-up is due, its entry's status being `stored`: word that it is on
/// the list already once its address is confirmed, else a link to confirm it.
pub(super) fn due_email(stored: &str) -> Kind {
    if Status::parse(stored).is_some_and(Status::is_confirmed) {
        Kind::Already
    } else {
        Kind::Confirm
    }
}

/// Why a sign-up was not stored (nothing was).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotStored {
    /// Its proof of work was spent already.
    ProofUsed,
    /// Its client's allowance is used up: µs until it has one again.
    TooMany(i64),
}

/// What became of a request for a new confirmation link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resent {
    /// Still pending: the email queued, or `None` past the day's emails to the address.
    Pending(Option<Kind>),
    /// Confirmed already: nothing to send.
    Confirmed,
    /// There is no such entry.
    Unknown,
}

impl Store {
    /// Queues a new confirmation email to the entry `id` (its link gets a nonce if it has
    /// none), unless it is confirmed already, gone, or had its day's emails.
    ///
    /// # Errors
    /// The database failing or unreachable; nothing was queued.
    pub async fn resend(&self, id: &str, now: i64) -> Result<Resent, StoreError> {
        self.guarded(async {
            let mut tx = self.pool.begin().await?;
            let row: Option<(String, String)> =
                sqlx::query_as("SELECT email_key, status FROM waitlist WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((key, status)) = row else {
                return Ok(Resent::Unknown);
            };
            if Status::parse(&status).is_some_and(Status::is_confirmed) {
                return Ok(Resent::Confirmed);
            }
            sqlx::query(
                "UPDATE waitlist SET confirm_nonce = COALESCE(confirm_nonce, $1) WHERE id = $2",
            )
            .bind(random_id())
            .bind(id)
            .execute(&mut *tx)
            .await?;
            let queued = outbox::queue(&mut tx, &key, Kind::Confirm, now).await?;
            tx.commit().await?;
            Ok(Resent::Pending(queued))
        })
        .await
    }

    /// Every entry, oldest first, as the database hands them over: the table is never
    /// held in memory whole.
    pub fn entries(&self) -> impl Stream<Item = Result<Entry, StoreError>> + '_ {
        self.entries_with(None)
    }

    /// The entries with `status` (all of them for `None`), oldest first, streamed.
    pub fn entries_with(
        &self,
        status: Option<Status>,
    ) -> impl Stream<Item = Result<Entry, StoreError>> + '_ {
        let query = match status {
            Some(status) => sqlx::query(ENTRIES_WITH_STATUS.as_str()).bind(status.as_str()),
            None => sqlx::query(ENTRIES.as_str()),
        };
        query.fetch(&self.pool).map(|row| {
            row.and_then(|row| entry(&row, row.try_get("place")?))
                .map_err(StoreError::from)
        })
    }

    /// The entry for `email` (compared in NFC, without case), if there is one.
    ///
    /// # Errors
    /// The database failing.
    pub async fn find(&self, email: &str) -> Result<Option<Entry>, StoreError> {
        let mut connection = self.pool.acquire().await?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM {WITH_STANDING} WHERE email_key = $1"
        ))
        .bind(email_key(email))
        .fetch_optional(&mut *connection)
        .await?;
        Ok(match row {
            Some(row) => Some(entry_with_place(&mut connection, &row).await?),
            None => None,
        })
    }

    /// Erases the entry for `email` (compared in NFC, without case) and the emails
    /// waiting to go to it, and records that `by` erased an entry (nothing about whose);
    /// false if there was none.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erase(&self, email: &str, by: ErasedBy, now: i64) -> Result<bool, StoreError> {
        let key = email_key(email);
        if self.backend() == Backend::Postgres
            && let Some(erased) = self.erase_in_one(Whose::Key(&key), by, now).await?
        {
            return Ok(erased);
        }
        Ok(self.erase_key(&key, by, now).await?)
    }

    async fn erase_key(&self, key: &str, by: ErasedBy, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        // The emails' rows first, then the entry's: the order in which the mail worker
        // takes them when it marks an email sent (`Store::sent`), and the retention purge
        // too. Taken the other way round, an erasure and a send waited for each other and
        // PostgreSQL failed one of them. (An email queued for the entry while this waits
        // for its row finds no entry when its turn comes, and is discarded unsent.)
        sqlx::query("DELETE FROM outbox WHERE email_key = $1")
            .bind(key)
            .execute(&mut *tx)
            .await?;
        // Its credit still due, if it is a friend who confirmed, before its row (the
        // order the worker takes them in).
        let owed = credits::take_due(&mut tx, "email_key = $1", key.to_owned()).await?;
        let gone = self
            .delete_entries(&mut tx, "email_key = $1", key.to_owned())
            .await?;
        let Some((id, line_key, ..)) = gone.first() else {
            return Ok(false);
        };
        let id = id.clone();
        let mut counts = line::Counts::default();
        counts.leave(*line_key);
        // A friend who confirmed earned its referrer's credit: given now if still due.
        let credits = self
            .credit(&mut tx, &mut counts, &credits::owed(&owed, &gone), now)
            .await?;
        counts.apply(&mut tx).await?;
        self.tell_credits(&mut tx, &credits, now).await?;
        let event = if by == ErasedBy::Unsubscribed {
            Event::Unsubscribed
        } else {
            Event::Erased
        };
        self.record(&mut tx, event, &id, None, &[], now).await?;
        erasures::record(&mut tx, by, 1, now).await?;
        tx.commit().await?;
        credits::counted(&credits);
        Ok(true)
    }

    /// The entry whose id is `id`, while it holds `manage_nonce` (the manage link's).
    ///
    /// # Errors
    /// The database failing.
    pub async fn find_managed(
        &self,
        id: &str,
        manage_nonce: &str,
    ) -> Result<Option<Entry>, StoreError> {
        self.guarded(async {
            let mut connection = self.pool.acquire().await?;
            let row = sqlx::query(&format!(
                "SELECT {COLUMNS} FROM {WITH_STANDING} WHERE waitlist.id = $1 AND manage_nonce = $2"
            ))
            .bind(id)
            .bind(manage_nonce)
            .fetch_optional(&mut *connection)
            .await?;
            Ok(match row {
                Some(row) => Some(entry_with_place(&mut connection, &row).await?),
                None => None,
            })
        })
        .await
    }

    /// Erases, for its owner, the entry whose id is `id` while it holds `manage_nonce`,
    /// as [`Store::erase`] does, `by` the manage page's Erase or the one-click
    /// unsubscribe (whose link holds the same nonce); false if there is none (erased
    /// already: of two instances erasing it at once, one finds it).
    ///
    /// # Errors
    /// The database failing.
    pub async fn erase_managed(
        &self,
        id: &str,
        manage_nonce: &str,
        by: ErasedBy,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.guarded(async {
            if self.backend() == Backend::Postgres
                && let Some(erased) = self
                    .erase_in_one(Whose::Managed(id, manage_nonce), by, now)
                    .await?
            {
                return Ok(erased);
            }
            let key: Option<String> = sqlx::query_scalar(
                "SELECT email_key FROM waitlist WHERE id = $1 AND manage_nonce = $2",
            )
            .bind(id)
            .bind(manage_nonce)
            .fetch_optional(&self.pool)
            .await?;
            match key {
                Some(key) => self.erase_key(&key, by, now).await,
                None => Ok(false),
            }
        })
        .await
    }

    /// How many entries there are.
    ///
    /// # Errors
    /// The database failing.
    pub async fn count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM waitlist")
            .fetch_one(&self.pool)
            .await?)
    }

    /// How many entries have each status.
    ///
    /// # Errors
    /// The database failing.
    pub async fn count_by_status(&self) -> Result<Vec<(Status, i64)>, StoreError> {
        let rows = sqlx::query("SELECT status, COUNT(*) AS n FROM waitlist GROUP BY status")
            .fetch_all(&self.pool)
            .await?;
        let mut counts = Vec::with_capacity(rows.len());
        for row in &rows {
            let status: String = row.try_get("status")?;
            let status = Status::parse(&status)
                .ok_or_else(|| sqlx::Error::Decode(format!("unknown status {status}").into()))?;
            counts.push((status, row.try_get("n")?));
        }
        Ok(counts)
    }
}

/// An entry's row with its standing (which it has once confirmed or credited).
const WITH_STANDING: &str = "waitlist LEFT JOIN standings ON standings.id = waitlist.id";

/// An entry's columns (of [`WITH_STANDING`]), with its key in the line (for its place) and
/// its credits.
const COLUMNS: &str = "email, name, company, role, interest, message, privacy_notice, created_at, \
     repeats, last_repeat_at, status, confirmed_at, invited_at, wave, \
     COALESCE(credits, 0) AS credits, line_key, neg_credits, line_number";

/// Every entry's place, in one pass over the rows selected (which hold the whole line
/// whenever they hold any of it: all, or every confirmed entry): its number in the line's
/// order. Reading each place on its own would cost a query an entry.
const PLACES: &str = "CASE WHEN line_key IS NULL THEN NULL ELSE ROW_NUMBER() OVER \
     (PARTITION BY line_key IS NULL ORDER BY line_key, neg_credits, line_number) END AS place";

static ENTRIES: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT {COLUMNS}, {PLACES} FROM {WITH_STANDING} ORDER BY created_at, email_key")
});
static ENTRIES_WITH_STATUS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT {COLUMNS}, {PLACES} FROM {WITH_STANDING} WHERE status = $1 \
         ORDER BY created_at, email_key"
    )
});

/// The entry in `row` (selected with [`COLUMNS`]), at `place`.
fn entry(row: &sqlx::any::AnyRow, place: Option<i64>) -> Result<Entry, sqlx::Error> {
    let interest: String = row.try_get("interest")?;
    Ok(Entry {
        email: row.try_get("email")?,
        name: row.try_get("name")?,
        company: row.try_get("company")?,
        role: row.try_get("role")?,
        interest: interest.parse().map_err(|e| sqlx::Error::ColumnDecode {
            index: "interest".into(),
            source: Box::new(e),
        })?,
        message: row.try_get("message")?,
        privacy_notice: row.try_get("privacy_notice")?,
        created_at: row.try_get("created_at")?,
        repeats: row.try_get("repeats")?,
        last_repeat_at: row.try_get("last_repeat_at")?,
        status: status(row)?,
        confirmed_at: row.try_get("confirmed_at")?,
        invited_at: row.try_get("invited_at")?,
        wave: row.try_get("wave")?,
        place,
        referrals: row.try_get("credits")?,
    })
}

/// The entry in `row` (selected with [`COLUMNS`] alone), its place read in `connection`.
async fn entry_with_place(
    connection: &mut sqlx::AnyConnection,
    row: &sqlx::any::AnyRow,
) -> Result<Entry, sqlx::Error> {
    let place = Store::place_in_row(connection, row).await?;
    entry(row, place)
}

pub(super) fn status(row: &sqlx::any::AnyRow) -> Result<Status, sqlx::Error> {
    let text: String = row.try_get("status")?;
    Status::parse(&text).ok_or_else(|| sqlx::Error::ColumnDecode {
        index: "status".into(),
        source: format!("unknown status {text:?}").into(),
    })
}
