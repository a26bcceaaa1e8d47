//! Where the waitlist's entries are kept: SQLite (a file, embedded, nothing to install)
//! or PostgreSQL (for several server instances), through sqlx's `Any` driver, so that
//! one set of queries and one set of migrations (`server/migrations/`) serve both.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use lathe_core::retention::MAILS_PER_DAY;
use lathe_core::validation::{FormValues, Interest, email_key, normalize_email};
use serde::Serialize;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyConnection, AnyPool, Connection, Row};

use crate::mail::Kind;
use crate::token::random_id;

/// The migrations, embedded at build time.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Which database a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// A database location as the owner writes it: `postgres://…` (or `postgresql://…`),
/// `sqlite://path`, or a plain file path for SQLite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Which database.
    pub backend: Backend,
    /// The URL sqlx is given.
    pub url: String,
}

impl Location {
    /// The location to show in messages: a PostgreSQL password is left out.
    pub fn display(&self) -> String {
        match self.backend {
            Backend::Sqlite => self
                .url
                .trim_start_matches("sqlite://")
                .trim_end_matches("?mode=rwc")
                .to_owned(),
            Backend::Postgres => {
                let (scheme, rest) = self.url.split_once("://").unwrap_or_default();
                match rest.split_once('@') {
                    Some((credentials, host)) => {
                        let user = credentials.split(':').next().unwrap_or_default();
                        format!("{scheme}://{user}@{host}")
                    }
                    None => self.url.clone(),
                }
            }
        }
    }
}

impl FromStr for Location {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Err("the database is empty: give a file path or a postgres:// URL".into());
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Self {
                backend: Backend::Postgres,
                url: text.to_owned(),
            });
        }
        let path = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
            .unwrap_or(text);
        if let Some((scheme, _)) = path.split_once("://") {
            return Err(format!(
                "unsupported database `{scheme}://`: use a file path (SQLite) or a postgres:// URL"
            ));
        }
        // Created if missing; its folder must exist.
        Ok(Self {
            backend: Backend::Sqlite,
            url: format!("sqlite://{path}?mode=rwc"),
        })
    }
}

/// One person on the waitlist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The address as typed, in Unicode's composed form (NFC).
    pub email: String,
    /// Full name.
    pub name: String,
    /// Company (may be empty).
    pub company: String,
    /// Role (may be empty).
    pub role: String,
    /// Area of interest.
    pub interest: Interest,
    /// Their message.
    pub message: String,
    /// The version of the privacy notice they were shown.
    pub privacy_notice: String,
    /// When they signed up, in ms since the Unix epoch.
    pub created_at: i64,
    /// How many later sign-ups gave the same address (each left the entry as it was).
    pub repeats: i64,
    /// When the last of those came, in ms since the Unix epoch.
    pub last_repeat_at: Option<i64>,
    /// Whether its owner confirmed the address.
    pub status: Status,
    /// When they did, in ms since the Unix epoch.
    pub confirmed_at: Option<i64>,
}

/// Whether an entry's address was confirmed by its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Stored by a server that sends no email (no `--smtp`): nobody was asked.
    Unconfirmed,
    /// An email asked its owner to confirm it; deleted if they do not within 7 days.
    Pending,
    /// Its owner confirmed it, from the email's link.
    Confirmed,
}

impl Status {
    /// Its name in the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Unconfirmed => "unconfirmed",
            Status::Pending => "pending",
            Status::Confirmed => "confirmed",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Status::Unconfirmed, Status::Pending, Status::Confirmed]
            .into_iter()
            .find(|status| status.as_str() == text)
    }
}

impl Entry {
    /// An entry from a valid form, signed up at `now` (ms since the Unix epoch).
    pub fn new(values: FormValues, privacy_notice: String, now: i64) -> Self {
        Self {
            email: normalize_email(&values.email),
            name: values.name,
            company: values.company,
            role: values.role,
            interest: values.interest,
            message: values.message,
            privacy_notice,
            created_at: now,
            repeats: 0,
            last_repeat_at: None,
            status: Status::Unconfirmed,
            confirmed_at: None,
        }
    }
}

/// Why the store could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No connection to the database can be made: the reason its last attempt gave.
    #[error("the database cannot be reached: {0}")]
    Unreachable(String),
    /// The database answered with an error.
    #[error("the database failed: {0}")]
    Failed(#[from] sqlx::Error),
}

/// How long a sign-up may wait for a database connection when the database is up but
/// busy (a queue of writers). A database that is down is known at once, without this
/// wait (see [`Store::sign_up`]).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// While the database is down, how often a sign-up tries it again; the others in
/// between are refused at once, with the last attempt's reason.
const RETRY_AFTER_OUTAGE: Duration = Duration::from_secs(1);
/// How long a sign-up waits for the database before checking, with a connection of its
/// own, that the database is there at all.
const PROBE_AFTER: Duration = Duration::from_millis(500);
/// How long a new connection may take, when trying a database that was down.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// SQLite's write-ahead log is folded back into the database (a checkpoint) once it holds
/// this many pages, by the sign-up that takes it there; SQLite's default.
pub const WAL_CHECKPOINT_PAGES: u32 = 1000;
/// After a checkpoint, a write-ahead log larger than this is cut back to it. With
/// [`WAL_CHECKPOINT_PAGES`] of 4 KiB and sign-ups of at most 64 KiB, the log stays under
/// about 4.2 MB while the server runs (docs/server.md, "Collecting sign-ups").
pub const WAL_SIZE_LIMIT: u64 = 4 * 1024 * 1024;

/// The settings every SQLite connection starts with.
fn sqlite_pragmas(max_pages: Option<u32>) -> String {
    // WAL: readers (an export) never block the writer, nor it them. synchronous=FULL:
    // each commit reaches the disk before the sign-up is answered, so a power cut loses
    // nothing acknowledged (SQLite's default, said here so that no build changes it).
    let mut pragmas = format!(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
         PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}; \
         PRAGMA journal_size_limit = {WAL_SIZE_LIMIT};"
    );
    if let Some(pages) = max_pages {
        pragmas = format!("{pragmas} PRAGMA max_page_count = {pages};");
    }
    pragmas
}

/// Why a backup was not written.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// PostgreSQL is backed up with its own tool.
    #[error(
        "a PostgreSQL database is backed up with PostgreSQL's own tool: pg_dump --format=custom --file=FILE 'postgres://...' (and restored with pg_restore)"
    )]
    Postgres,
    /// The file is there already, or its name is not UTF-8.
    #[error("{} exists already (or is not a UTF-8 path): choose a new file", .0.display())]
    Exists(std::path::PathBuf),
    /// The database failed.
    #[error("the database failed: {0}")]
    Database(#[from] sqlx::Error),
}

/// The waitlist's table, in a SQLite file or a PostgreSQL database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    location: Location,
    pragmas: Option<String>,
    /// Since when the database has been unreachable, and why; `None` while it answers.
    outage: Arc<Mutex<Option<(Instant, String)>>>,
}

impl Store {
    /// Connects to `location` and brings its schema up to date.
    ///
    /// # Errors
    /// The database cannot be reached or opened, or a migration fails: the database's
    /// own reason ("file is not a database", "Connection refused"), at once.
    pub async fn open(location: &Location) -> Result<Self, sqlx::Error> {
        Self::open_with(location, None).await
    }

    /// [`Store::open`], with a SQLite database that is full once it holds `max_pages`
    /// pages (SQLite's `max_page_count`): a full disk, for tests that cannot mount one.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub async fn open_full_at(location: &Location, max_pages: u32) -> Result<Self, sqlx::Error> {
        Self::open_with(location, Some(max_pages)).await
    }

    async fn open_with(location: &Location, max_pages: Option<u32>) -> Result<Self, sqlx::Error> {
        install_default_drivers();
        let pragmas = (location.backend == Backend::Sqlite).then(|| sqlite_pragmas(max_pages));
        // One connection first, outside the pool, so that a failure says why at once.
        let mut first = connect_direct(location, pragmas.as_deref()).await?;
        MIGRATOR.run_direct(&mut first).await?;
        fill_ids(&mut first).await?;
        first.close().await?;

        let options = AnyPoolOptions::new()
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // A failed COMMIT may leave SQLite in its transaction, or end it (SQLITE_FULL
            // rolls it back) while sqlx still counts it open; the rollback sqlx then tries
            // fails too. The connection's next "transaction" would be a savepoint inside
            // it that never reaches the disk: a sign-up acknowledged and lost. So a
            // connection still in a transaction once its rollback is done is closed.
            .after_release(|connection, _| {
                Box::pin(async move {
                    sqlx::Connection::ping(connection).await?;
                    Ok(!sqlx::Connection::is_in_transaction(connection))
                })
            });
        let pool = match &pragmas {
            // One connection: SQLite takes one writer at a time anyway, and a queue in
            // the pool is fairer and faster than writers retrying a busy file.
            Some(pragmas) => {
                let pragmas = pragmas.clone();
                options
                    .max_connections(1)
                    .after_connect(move |connection, _| {
                        let pragmas = pragmas.clone();
                        Box::pin(async move {
                            sqlx::Executor::execute(connection, pragmas.as_str()).await?;
                            Ok(())
                        })
                    })
            }
            None => options.max_connections(16),
        }
        .connect(&location.url)
        .await?;
        Ok(Self {
            pool,
            location: location.clone(),
            pragmas,
            outage: Arc::default(),
        })
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.location.backend
    }

    /// Stores a sign-up: a new entry, or, for an address already there (compared in NFC,
    /// without case), a count of the repeat and its time, leaving the entry as it was.
    /// When `confirming` (the server sends email), a new entry is pending, and the email
    /// the address is due (a link to confirm it, or word that it is on the list already)
    /// is queued in the same transaction, unless [`MAILS_PER_DAY`] went to it in the last
    /// day: the kind queued is returned. One transaction, so concurrent sign-ups with the
    /// same address never make two entries; `Ok` means it is committed (with SQLite, on
    /// the disk: see [`sqlite_pragmas`]).
    ///
    /// While the database is unreachable, a sign-up is refused at once with the reason,
    /// and one a second tries it again.
    ///
    /// # Errors
    /// The database failing or unreachable; nothing was stored.
    pub async fn sign_up(
        &self,
        entry: &Entry,
        confirming: bool,
    ) -> Result<Option<Kind>, StoreError> {
        self.reachable().await?;
        let done = self.write_sign_up(entry, confirming);
        // A database that went down since the last sign-up: the pool would try to
        // reconnect until its timeout. A connection of our own says at once.
        let mut done = std::pin::pin!(done);
        let done = tokio::select! {
            done = &mut done => done,
            () = tokio::time::sleep(PROBE_AFTER) => match self.probe().await {
                Ok(()) => done.await,
                Err(reason) => {
                    self.down(&reason);
                    return Err(StoreError::Unreachable(reason));
                }
            },
        };
        match done {
            Ok(queued) => {
                *self.outage() = None;
                Ok(queued)
            }
            Err(e) if unreachable(&e) => {
                let reason = self.probe().await.err().unwrap_or_else(|| e.to_string());
                self.down(&reason);
                Err(StoreError::Unreachable(reason))
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn write_sign_up(
        &self,
        entry: &Entry,
        confirming: bool,
    ) -> Result<Option<Kind>, sqlx::Error> {
        let key = email_key(&entry.email);
        let (status, confirm_nonce) = if confirming {
            (Status::Pending, Some(random_id()))
        } else {
            (Status::Unconfirmed, None)
        };
        let mut tx = self.pool.begin().await?;
        // `execute`, which steps the statement to its end, and no RETURNING: sqlx-sqlite's
        // fetch of a RETURNING row leaves the statement to be finished later, where its
        // error is dropped, and a full disk then loses an acknowledged sign-up.
        let done = sqlx::query(
            "INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at, last_interaction_at, id, status, confirm_nonce,
                 manage_nonce)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13)
             ON CONFLICT (email_key) DO UPDATE SET
                 repeats = waitlist.repeats + 1, last_repeat_at = excluded.created_at,
                 id = COALESCE(waitlist.id, excluded.id),
                 manage_nonce = COALESCE(waitlist.manage_nonce, excluded.manage_nonce),
                 confirm_nonce = CASE WHEN waitlist.status = 'confirmed' THEN NULL
                     ELSE COALESCE(waitlist.confirm_nonce, excluded.confirm_nonce) END",
        )
        .bind(&key)
        .bind(&entry.email)
        .bind(&entry.name)
        .bind(&entry.company)
        .bind(&entry.role)
        .bind(entry.interest.as_str())
        .bind(&entry.message)
        .bind(&entry.privacy_notice)
        .bind(entry.created_at)
        .bind(random_id())
        .bind(status.as_str())
        .bind(confirm_nonce)
        .bind(random_id())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Err(sqlx::Error::Protocol(format!(
                "a sign-up changed {} rows",
                done.rows_affected()
            )));
        }
        let stored: String = sqlx::query_scalar("SELECT status FROM waitlist WHERE email_key = $1")
            .bind(&key)
            .fetch_one(&mut *tx)
            .await?;
        let due = match (confirming, stored.as_str()) {
            (false, _) => None,
            (true, "confirmed") => Some(Kind::Already),
            (true, _) => Some(Kind::Confirm),
        };
        let queued = match due {
            Some(kind) => queue(&mut tx, &key, kind, entry.created_at).await?,
            None => None,
        };
        tx.commit().await?;
        Ok(queued)
    }

    /// `Err` at once while the database is known to be down, unless it is time to try
    /// it again and it answers.
    async fn reachable(&self) -> Result<(), StoreError> {
        let known = self.outage().clone();
        let Some((since, reason)) = known else {
            return Ok(());
        };
        if since.elapsed() < RETRY_AFTER_OUTAGE {
            return Err(StoreError::Unreachable(reason));
        }
        match self.probe().await {
            Ok(()) => {
                *self.outage() = None;
                Ok(())
            }
            Err(reason) => {
                self.down(&reason);
                Err(StoreError::Unreachable(reason))
            }
        }
    }

    /// The outage record (a panic elsewhere while it was held leaves it usable: it is a
    /// time and a reason, never half written).
    fn outage(&self) -> std::sync::MutexGuard<'_, Option<(Instant, String)>> {
        self.outage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn down(&self, reason: &str) {
        *self.outage() = Some((Instant::now(), reason.to_owned()));
    }

    /// Writes a consistent copy of a SQLite database to `file` (SQLite's `VACUUM INTO`: one
    /// read transaction, so sign-ups stored while it runs are either wholly in it or not
    /// at all, and the server goes on writing meanwhile). `file` must not exist.
    ///
    /// # Errors
    /// [`BackupError::Postgres`] for PostgreSQL, whose own tool (`pg_dump`) does this;
    /// `file` already there; the database failing.
    pub async fn backup(&self, file: &std::path::Path) -> Result<(), BackupError> {
        if self.backend() == Backend::Postgres {
            return Err(BackupError::Postgres);
        }
        if file.exists() {
            return Err(BackupError::Exists(file.to_owned()));
        }
        let path = file
            .to_str()
            .ok_or_else(|| BackupError::Exists(file.to_owned()))?;
        sqlx::query("VACUUM INTO ?")
            .bind(path)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether the database answers now, on a connection of its own (never queued behind
    /// sign-ups): its reason if not.
    ///
    /// # Errors
    /// The database's reason, or that it did not answer in time.
    pub async fn ready(&self) -> Result<(), String> {
        self.probe().await
    }

    /// A connection of its own, for the reason a database cannot be reached (the pool
    /// would say only that it timed out).
    async fn probe(&self) -> Result<(), String> {
        let attempt = async {
            connect_direct(&self.location, self.pragmas.as_deref())
                .await?
                .close()
                .await
        };
        match tokio::time::timeout(PROBE_TIMEOUT, attempt).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no connection within {} s",
                PROBE_TIMEOUT.as_secs()
            )),
        }
    }

    /// Every entry, oldest first, as the database hands them over: the table is never
    /// held in memory whole.
    pub fn entries(&self) -> impl Stream<Item = Result<Entry, sqlx::Error>> + '_ {
        self.entries_with(None)
    }

    /// The entries with `status` (all of them for `None`), oldest first, streamed.
    pub fn entries_with(
        &self,
        status: Option<Status>,
    ) -> impl Stream<Item = Result<Entry, sqlx::Error>> + '_ {
        let query = match status {
            Some(status) => sqlx::query(ENTRIES_WITH_STATUS.as_str()).bind(status.as_str()),
            None => sqlx::query(ENTRIES.as_str()),
        };
        query
            .fetch(&self.pool)
            .map(|row| row.and_then(|row| entry(&row)))
    }

    /// The entry for `email` (compared in NFC, without case), if there is one.
    ///
    /// # Errors
    /// The database failing.
    pub async fn find(&self, email: &str) -> Result<Option<Entry>, sqlx::Error> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM waitlist WHERE email_key = $1"
        ))
        .bind(email_key(email))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry).transpose()
    }

    /// Erases the entry for `email` (compared in NFC, without case) and the emails
    /// waiting to go to it, and records that `by` erased an entry (nothing about whose);
    /// false if there was none.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erase(&self, email: &str, by: ErasedBy, now: i64) -> Result<bool, sqlx::Error> {
        self.erase_key(&email_key(email), by, now).await
    }

    async fn erase_key(&self, key: &str, by: ErasedBy, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("DELETE FROM waitlist WHERE email_key = $1")
            .bind(key)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM outbox WHERE email_key = $1")
            .bind(key)
            .execute(&mut *tx)
            .await?;
        record_erasures(&mut tx, by, 1, now).await?;
        tx.commit().await?;
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
    ) -> Result<Option<Entry>, sqlx::Error> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM waitlist WHERE id = $1 AND manage_nonce = $2"
        ))
        .bind(id)
        .bind(manage_nonce)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry).transpose()
    }

    /// Erases, for its owner, the entry whose id is `id` while it holds `manage_nonce`,
    /// as [`Store::erase`] does; false if there is none.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erase_managed(
        &self,
        id: &str,
        manage_nonce: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let key: Option<String> = sqlx::query_scalar(
            "SELECT email_key FROM waitlist WHERE id = $1 AND manage_nonce = $2",
        )
        .bind(id)
        .bind(manage_nonce)
        .fetch_optional(&self.pool)
        .await?;
        match key {
            Some(key) => self.erase_key(&key, ErasedBy::Visitor, now).await,
            None => Ok(false),
        }
    }

    /// Deletes what the privacy notice says is kept no longer at `now` (time is an
    /// input, so a test or `waitlist purge --as-of` moves the clock): addresses never
    /// confirmed within [`PENDING_DAYS`](lathe_core::retention::PENDING_DAYS) of signing
    /// up, entries without an interaction for
    /// [`INACTIVE_YEARS`](lathe_core::retention::INACTIVE_YEARS), the emails queued to
    /// them, and sent or failed emails older than a day (kept that long only to count
    /// the day's emails to an address). Each deletion of an entry is recorded as an
    /// erasure. With `dry_run`, the same statements run and are rolled back: what would
    /// go is what goes.
    ///
    /// # Errors
    /// The database failing; nothing was deleted.
    pub async fn purge(&self, now: i64, dry_run: bool) -> Result<Purged, sqlx::Error> {
        use lathe_core::retention::{inactive_cutoff, pending_cutoff};
        let mut tx = self.pool.begin().await?;
        let mut purged = Purged::default();
        for (by, condition, cutoff) in [
            (
                ErasedBy::Unconfirmed,
                "status = 'pending' AND created_at <= $1",
                pending_cutoff(now),
            ),
            (
                ErasedBy::Retention,
                "last_interaction_at <= $1",
                inactive_cutoff(now),
            ),
        ] {
            sqlx::query(&format!(
                "DELETE FROM outbox WHERE email_key IN (SELECT email_key FROM waitlist WHERE {condition})"
            ))
            .bind(cutoff)
            .execute(&mut *tx)
            .await?;
            // fetch_all steps the statement to its end, so its errors are seen.
            let emails: Vec<String> = sqlx::query_scalar(&format!(
                "DELETE FROM waitlist WHERE {condition} RETURNING email"
            ))
            .bind(cutoff)
            .fetch_all(&mut *tx)
            .await?;
            record_erasures(&mut tx, by, emails.len() as u64, now).await?;
            purged
                .entries
                .extend(emails.into_iter().map(|email| (email, by)));
        }
        purged.emails = sqlx::query("DELETE FROM outbox WHERE COALESCE(sent_at, failed_at) <= $1")
            .bind(now - DAY_MS)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if dry_run {
            tx.rollback().await?;
        } else {
            tx.commit().await?;
        }
        Ok(purged)
    }

    /// The erasures recorded: when, and by whom, oldest first.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erasures(&self) -> Result<Vec<(i64, String)>, sqlx::Error> {
        let rows = sqlx::query("SELECT erased_at, erased_by FROM erasures ORDER BY erased_at")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("erased_at")?, row.try_get("erased_by")?)))
            .collect()
    }

    /// The pool, for the queries of [`crate::outbox`] and [`crate::confirmation`].
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// How many entries there are.
    ///
    /// # Errors
    /// The database failing.
    pub async fn count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT COUNT(*) FROM waitlist")
            .fetch_one(&self.pool)
            .await
    }

    /// How many entries have each status.
    ///
    /// # Errors
    /// The database failing.
    pub async fn count_by_status(&self) -> Result<Vec<(Status, i64)>, sqlx::Error> {
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

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Queues a `kind` email to the entry `key` at `now`, unless [`MAILS_PER_DAY`] were
/// queued to it in the day before: the kind queued, if it was.
pub(crate) async fn queue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    key: &str,
    kind: Kind,
    now: i64,
) -> Result<Option<Kind>, sqlx::Error> {
    let recent: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE email_key = $1 AND created_at > $2")
            .bind(key)
            .bind(now - DAY_MS)
            .fetch_one(&mut **tx)
            .await?;
    if recent >= i64::from(MAILS_PER_DAY) {
        return Ok(None);
    }
    sqlx::query(
        "INSERT INTO outbox (id, email_key, kind, created_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, $4)",
    )
    .bind(random_id())
    .bind(key)
    .bind(kind.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(Some(kind))
}

/// What [`Store::purge`] deleted (or, in a dry run, would delete).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Purged {
    /// The entries' addresses, and why each went.
    pub entries: Vec<(String, ErasedBy)>,
    /// How many finished emails (sent or failed over a day ago) went.
    pub emails: u64,
}

/// Who erased an entry, as the erasures table records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErasedBy {
    /// Its owner, from the manage link.
    Visitor,
    /// The site's owner, with `lathe-site waitlist erase`.
    Owner,
    /// Never confirmed within the days allowed.
    Unconfirmed,
    /// No interaction for the years the privacy notice states.
    Retention,
}

impl ErasedBy {
    /// Its name in the table.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErasedBy::Visitor => "visitor",
            ErasedBy::Owner => "owner",
            ErasedBy::Unconfirmed => "unconfirmed",
            ErasedBy::Retention => "retention",
        }
    }
}

/// Records `count` erasures by `by` at `now`.
pub(crate) async fn record_erasures(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    by: ErasedBy,
    count: u64,
    now: i64,
) -> Result<(), sqlx::Error> {
    for _ in 0..count {
        sqlx::query("INSERT INTO erasures (erased_at, erased_by) VALUES ($1, $2)")
            .bind(now)
            .bind(by.as_str())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Gives entries from before migration 0003 the random id and manage nonce their links
/// need (SQL has no portable random text).
async fn fill_ids(connection: &mut AnyConnection) -> Result<(), sqlx::Error> {
    let keys: Vec<String> = sqlx::query_scalar(
        "SELECT email_key FROM waitlist WHERE id IS NULL OR manage_nonce IS NULL",
    )
    .fetch_all(&mut *connection)
    .await?;
    for key in keys {
        sqlx::query(
            "UPDATE waitlist SET id = COALESCE(id, $1), manage_nonce = COALESCE(manage_nonce, $2)
             WHERE email_key = $3",
        )
        .bind(random_id())
        .bind(random_id())
        .bind(key)
        .execute(&mut *connection)
        .await?;
    }
    Ok(())
}

/// A connection outside the pool, set up as the pool's are: its error is the database's
/// own (a pool retries a failing connection until its timeout, then says only that).
async fn connect_direct(
    location: &Location,
    pragmas: Option<&str>,
) -> Result<AnyConnection, sqlx::Error> {
    let mut connection = AnyConnection::connect(&location.url).await?;
    if let Some(pragmas) = pragmas {
        sqlx::Executor::execute(&mut connection, pragmas).await?;
    }
    Ok(connection)
}

/// Whether `e` says that no connection could be had, rather than that a statement failed.
fn unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // PostgreSQL's classes 08 (connection exception) and 57 (operator intervention:
        // a server shutting down or restarting).
        sqlx::Error::Database(e) => e
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57")),
        _ => false,
    }
}

const COLUMNS: &str = "email, name, company, role, interest, message, privacy_notice, created_at, \
     repeats, last_repeat_at, status, confirmed_at";

static ENTRIES: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT {COLUMNS} FROM waitlist ORDER BY created_at, email_key")
});
static ENTRIES_WITH_STATUS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT {COLUMNS} FROM waitlist WHERE status = $1 ORDER BY created_at, email_key")
});

fn entry(row: &sqlx::any::AnyRow) -> Result<Entry, sqlx::Error> {
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
    })
}

fn status(row: &sqlx::any::AnyRow) -> Result<Status, sqlx::Error> {
    let text: String = row.try_get("status")?;
    Status::parse(&text).ok_or_else(|| sqlx::Error::ColumnDecode {
        index: "status".into(),
        source: format!("unknown status {text:?}").into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let sqlite = |url: &str| Location {
            backend: Backend::Sqlite,
            url: url.into(),
        };
        assert_eq!(
            "waitlist.db".parse(),
            Ok(sqlite("sqlite://waitlist.db?mode=rwc"))
        );
        assert_eq!(
            "sqlite:///var/lib/lathe/w.db".parse(),
            Ok(sqlite("sqlite:///var/lib/lathe/w.db?mode=rwc"))
        );
        assert_eq!(
            "postgresql://u@h/db".parse::<Location>().map(|l| l.backend),
            Ok(Backend::Postgres)
        );
        assert!("mysql://h/db".parse::<Location>().is_err());
        let secret: Location = "postgres://lathe:s3cret@db.internal:5432/lathe"
            .parse()
            .unwrap();
        assert_eq!(secret.display(), "postgres://lathe@db.internal:5432/lathe");
        assert_eq!(
            "sqlite://data/w.db".parse::<Location>().unwrap().display(),
            "data/w.db"
        );
        assert!("".parse::<Location>().is_err());
    }
}
