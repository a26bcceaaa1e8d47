//! Where the waitlist is kept: SQLite (a file, embedded, nothing to install) or
//! PostgreSQL (for several server instances), through sqlx's `Any` driver, so that one set
//! of queries and one set of migrations (`server/migrations/`) serve both. The only module
//! that names sqlx: the rest of the server asks [`Store`] in the domain's words, one file
//! a table ([`entries`], [`outbox`], [`erasures`], [`waves`], [`events`]).

mod allowances;
mod confirmations;
mod credits;
mod entries;
mod erasures;
mod events;
mod group;
mod line;
mod location;
mod migrations;
mod outbox;
pub mod queue;
mod sign_ups;
mod stats;
mod together;
mod waves;

use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyConnection, AnyPool, Connection};

use crate::domain::token::{random_code, random_id};

pub use allowances::MAX_PER_MINUTE;
pub use confirmations::Confirmed;
pub use credits::{CREDIT_BATCH, Settled};
pub use entries::{Allowance, NotStored, Proof, Resent, SignedUp};
pub use erasures::Purged;
pub use events::{Claimed as ClaimedEvent, Counts as WebhookCounts, Event};
pub use line::{Referrer, Standing};
pub use location::{Backend, Location, LocationError};
pub use outbox::{Claimed, Counts, Recipient};
pub use stats::{Day, Stats};
pub use waves::{Invited, Wave};

/// Log directives that quiet the database driver's chatter: PostgreSQL's notices (such as
/// the migrations' "relation already exists, skipping" on every start), which say
/// nothing the owner must act on.
pub const QUIET: &str = "sqlx::postgres::notice=warn";

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

/// Why a database could not be opened: its own reason, with where it is.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the database {location}: {source}")]
pub struct OpenError {
    location: String,
    source: sqlx::Error,
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
/// A connection idle for longer than this, or since before the database was last found
/// down, is pinged before it is used again; one in use a moment ago is not (a ping is a
/// round trip, and on PostgreSQL it was one of a sign-up's two). So a database restarted
/// while a connection was idle is found out by the ping, and the request gets a new
/// connection.
const PING_IDLE_AFTER: Duration = Duration::from_secs(1);
/// How long a new connection may take, when trying a database that was down.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// SQLite's write-ahead log is folded back into the database (a checkpoint) once it holds
/// this many pages, by the sign-up that takes it there; SQLite's default.
pub const WAL_CHECKPOINT_PAGES: u32 = 1000;
/// After a checkpoint, a write-ahead log larger than this is cut back to it. With
/// [`WAL_CHECKPOINT_PAGES`] of 4 KiB and sign-ups of at most 64 KiB, the log stays under
/// about 4.2 MB one sign-up at a time, and under about 5 MB at 100 at once, where the
/// writes that commit while a checkpoint runs add to it (docs/server.md, "Collecting
/// sign-ups").
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
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The waitlist's tables, in a SQLite file or a PostgreSQL database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    location: Location,
    pragmas: Option<String>,
    /// Since when the database has been unreachable, and why; `None` while it answers.
    outage: Arc<Mutex<Option<(Instant, String)>>>,
    /// When the database was last found down: connections idle since are pinged before
    /// they are used ([`PING_IDLE_AFTER`]).
    seen_down: Arc<Mutex<Option<Instant>>>,
    /// Whether events are kept for a webhook receiver ([`Store::set_webhooks`]).
    webhooks: Arc<AtomicBool>,
    /// The key clients' addresses are hashed with in `allowances`.
    allowance_key: Arc<str>,
    /// The key credited mailboxes are hashed with in `credited_mailboxes`.
    mailbox_key: Arc<str>,
    /// What a credit is worth, in places ([`Store::set_places`]).
    places: Arc<AtomicU32>,
    /// Wakes the worker that gives referral credits ([`Store::credits_waker`]).
    credits_due: Arc<tokio::sync::Notify>,
    /// SQLite's writes waiting to be committed together (group.rs).
    group: Arc<group::Group>,
    /// PostgreSQL's sign-ups waiting to be made together (together.rs).
    sign_ups_together: Arc<together::Together<sign_ups::SignUp>>,
    /// PostgreSQL's confirmations waiting to be made together (together.rs).
    confirmations_together: Arc<together::Together<confirmations::Confirmation>>,
}

impl Store {
    /// Connects to `location` and brings its schema up to date.
    ///
    /// # Errors
    /// The database cannot be reached or opened, or a migration fails: the database's
    /// own reason ("file is not a database", "Connection refused"), at once.
    pub async fn open(location: &Location) -> Result<Self, OpenError> {
        Self::connect(location).await.map_err(|source| OpenError {
            location: location.display(),
            source,
        })
    }

    async fn connect(location: &Location) -> Result<Self, sqlx::Error> {
        install_default_drivers();
        let pragmas =
            (location.backend == Backend::Sqlite).then(|| sqlite_pragmas(location.max_pages));
        // One connection first, outside the pool, so that a failure says why at once.
        let mut first = connect_direct(location, pragmas.as_deref()).await?;
        migrations::migrator().await?.run_direct(&mut first).await?;
        let webhooks = events::webhooks_on(&mut first).await?;
        let allowance_key = database_key(&mut first, "allowance_key").await?;
        let mailbox_key = database_key(&mut first, "mailbox_key").await?;
        fill_ids(&mut first, &mailbox_key).await?;
        line::prepare(&mut first, location.backend).await?;
        let places = line::stored_places(&mut first)
            .await?
            .unwrap_or(lathe_core::line::PLACES_PER_REFERRAL);
        first.close().await?;

        let sqlite = location.backend == Backend::Sqlite;
        let seen_down: Arc<Mutex<Option<Instant>>> = Arc::default();
        let down_at = seen_down.clone();
        let options = AnyPoolOptions::new()
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // sqlx pings every connection it takes from the idle ones; only those idle a
            // while are, here (see PING_IDLE_AFTER).
            .test_before_acquire(false)
            .before_acquire(move |connection, meta| {
                let down = *down_at
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let stale = meta.idle_for > PING_IDLE_AFTER
                    || down.is_some_and(|at| meta.idle_for > at.elapsed());
                Box::pin(async move {
                    if stale {
                        sqlx::Connection::ping(connection).await?;
                    }
                    Ok(true)
                })
            })
            // A failed COMMIT may leave SQLite in its transaction, or end it (SQLITE_FULL
            // rolls it back) while sqlx still counts it open; the rollback sqlx then tries
            // fails too. The connection's next "transaction" would be a savepoint inside
            // it that never reaches the disk: a sign-up acknowledged and lost. So a
            // connection still in a transaction once its rollback is done is closed.
            .after_release(move |connection, _| {
                Box::pin(async move {
                    // sqlx-sqlite learns how its COMMIT or ROLLBACK went from its worker
                    // thread: a ping waits for it. (On PostgreSQL the count is sqlx's own,
                    // and a ping would be one more round trip each request.)
                    if sqlite {
                        sqlx::Connection::ping(connection).await?;
                    }
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
            seen_down,
            webhooks: Arc::new(AtomicBool::new(webhooks)),
            allowance_key: Arc::from(allowance_key),
            mailbox_key: Arc::from(mailbox_key),
            places: Arc::new(AtomicU32::new(places)),
            credits_due: Arc::new(tokio::sync::Notify::new()),
            group: Arc::default(),
            sign_ups_together: Arc::default(),
            confirmations_together: Arc::default(),
        })
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.location.backend
    }

    /// Runs `work` unless the database is known to be down, in which case it is refused at
    /// once with the last attempt's reason, and tried again once a second. A database
    /// that went down since the last call is found out by a connection of our own after
    /// [`PROBE_AFTER`], rather than after the pool's whole timeout. Every call a visitor
    /// waits on goes through here, so each says "unreachable" the same way.
    async fn guarded<T>(
        &self,
        work: impl Future<Output = Result<T, sqlx::Error>>,
    ) -> Result<T, StoreError> {
        self.reachable().await?;
        let mut work = std::pin::pin!(work);
        let done = tokio::select! {
            done = &mut work => done,
            () = tokio::time::sleep(PROBE_AFTER) => match self.probe().await {
                Ok(()) => work.await,
                Err(reason) => {
                    self.down(&reason);
                    return Err(StoreError::Unreachable(reason));
                }
            },
        };
        match done {
            Ok(value) => {
                *self.outage() = None;
                Ok(value)
            }
            Err(e) if unreachable(&e) => {
                let reason = self.probe().await.err().unwrap_or_else(|| e.to_string());
                self.down(&reason);
                Err(StoreError::Unreachable(reason))
            }
            Err(e) => Err(e.into()),
        }
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
        let now = Instant::now();
        *self.outage() = Some((now, reason.to_owned()));
        self.found_down(now);
    }

    /// Says that the database was found down `at`: connections idle since are pinged
    /// before they are used again.
    fn found_down(&self, at: Instant) {
        *self
            .seen_down
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(at);
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
            .await
            .map_err(StoreError::from)?;
        Ok(())
    }

    /// Whether the database answers now, on a connection of its own (never queued behind
    /// sign-ups): its reason if not.
    ///
    /// # Errors
    /// [`StoreError::Unreachable`], with the database's reason or that it did not answer
    /// in time.
    pub async fn ready(&self) -> Result<(), StoreError> {
        self.probe().await.map_err(|reason| {
            self.found_down(Instant::now());
            StoreError::Unreachable(reason)
        })
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
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
}

/// Gives entries from before migrations 0003, 0009 and 0012 the random id, manage nonce,
/// referral code and mailbox's hash they need (SQL has no portable random text, nor the
/// core's mailbox).
async fn fill_ids(connection: &mut AnyConnection, mailbox_key: &str) -> Result<(), sqlx::Error> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT email_key, email FROM waitlist
         WHERE id IS NULL OR manage_nonce IS NULL OR referral_code IS NULL
             OR mailbox_hash IS NULL",
    )
    .fetch_all(&mut *connection)
    .await?;
    if rows.is_empty() {
        return Ok(());
    }
    tracing::info!(
        entries = rows.len(),
        "giving older entries their ids, referral codes and mailboxes' hashes"
    );
    // One transaction: a commit each would be a write to the disk each, and the first
    // start after migration 0009 gives every entry on the list a code (0012, a hash).
    let mut tx = sqlx::Connection::begin(&mut *connection).await?;
    for (key, email) in rows {
        sqlx::query(
            "UPDATE waitlist SET id = COALESCE(id, $1), manage_nonce = COALESCE(manage_nonce, $2),
                 referral_code = COALESCE(referral_code, $3),
                 mailbox_hash = COALESCE(mailbox_hash, $4)
             WHERE email_key = $5",
        )
        .bind(random_id())
        .bind(random_id())
        .bind(random_code())
        .bind(keyed_hash(
            mailbox_key,
            &lathe_core::referral::mailbox(&email),
        ))
        .bind(key)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}

/// A key of the database's own, made once and kept in `settings` under `name`, shared by
/// every server on it.
async fn database_key(connection: &mut AnyConnection, name: &str) -> Result<String, sqlx::Error> {
    sqlx::query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING")
        .bind(name)
        .bind(random_id())
        .execute(&mut *connection)
        .await?;
    sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
        .bind(name)
        .fetch_one(&mut *connection)
        .await
}

/// `text` hashed with `key` (HMAC-SHA-256, base64url): the same text gives the same hash
/// on every server of one database, and nothing else can make or undo it.
impl Store {
    /// The keyed hash of `email`'s mailbox (`lathe_core::referral::mailbox`): what
    /// `credited_mailboxes` keeps, and each entry's `mailbox_hash`, by which a friend's
    /// mailbox is told from its referrer's without their addresses.
    fn mailbox_hash(&self, email: &str) -> String {
        keyed_hash(&self.mailbox_key, &lathe_core::referral::mailbox(email))
    }
}

fn keyed_hash(key: &str, text: &str) -> String {
    use base64::Engine as _;
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes())
        .expect("HMAC accepts any key length");
    mac.update(text.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
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
