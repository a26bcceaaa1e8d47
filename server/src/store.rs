//! Where the waitlist's entries are kept: SQLite (a file, embedded, nothing to install)
//! or PostgreSQL (for several server instances), through sqlx's `Any` driver, so that
//! one set of queries and one set of migrations (`server/migrations/`) serve both.

use std::str::FromStr;
use std::time::Duration;

use lathe_core::validation::{FormValues, Interest};
use serde::Serialize;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Row};

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
    /// The address as typed.
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
    /// When they first signed up, in ms since the Unix epoch.
    pub created_at: i64,
    /// When they last signed up, in ms since the Unix epoch.
    pub updated_at: i64,
}

impl Entry {
    /// An entry from a valid form, signed up at `now` (ms since the Unix epoch).
    pub fn new(values: FormValues, privacy_notice: String, now: i64) -> Self {
        Self {
            email: values.email,
            name: values.name,
            company: values.company,
            role: values.role,
            interest: values.interest,
            message: values.message,
            privacy_notice,
            created_at: now,
            updated_at: now,
        }
    }
}

/// What storing a sign-up did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// A new entry.
    Added,
    /// The address was already there: its entry now holds the new sign-up.
    Updated,
}

/// The key entries are found by: the address without case, as people type theirs
/// differently from one time to the next.
fn key(email: &str) -> String {
    email.to_lowercase()
}

/// The waitlist's table, in a SQLite file or a PostgreSQL database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

impl Store {
    /// Connects to `location` and brings its schema up to date.
    ///
    /// # Errors
    /// The database cannot be reached or opened, or a migration fails.
    pub async fn open(location: &Location) -> Result<Self, sqlx::Error> {
        install_default_drivers();
        let options = AnyPoolOptions::new().acquire_timeout(Duration::from_secs(10));
        let pool = match location.backend {
            // One connection: SQLite takes one writer at a time anyway, and a queue in
            // the pool is fairer and faster than writers retrying a busy file.
            Backend::Sqlite => {
                options
                    .max_connections(1)
                    .after_connect(|connection, _| {
                        Box::pin(async move {
                            // Readers (an export) never block the writer, nor it them.
                            sqlx::query("PRAGMA journal_mode = WAL")
                                .execute(&mut *connection)
                                .await?;
                            Ok(())
                        })
                    })
                    .connect(&location.url)
                    .await?
            }
            Backend::Postgres => options.max_connections(16).connect(&location.url).await?,
        };
        MIGRATOR.run(&pool).await?;
        Ok(Self {
            pool,
            backend: location.backend,
        })
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Stores a sign-up: a new entry, or, for an address already there, its new values
    /// (its first sign-up time kept). One statement, so concurrent sign-ups with the same
    /// address never make two entries.
    ///
    /// # Errors
    /// The database failing.
    pub async fn sign_up(&self, entry: &Entry) -> Result<Stored, sqlx::Error> {
        let updates: i64 = sqlx::query_scalar(
            "INSERT INTO waitlist (email_key, email, name, company, role, interest, message,
                 privacy_notice, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (email_key) DO UPDATE SET
                 email = excluded.email, name = excluded.name, company = excluded.company,
                 role = excluded.role, interest = excluded.interest,
                 message = excluded.message, privacy_notice = excluded.privacy_notice,
                 updated_at = excluded.updated_at, updates = waitlist.updates + 1
             RETURNING updates",
        )
        .bind(key(&entry.email))
        .bind(&entry.email)
        .bind(&entry.name)
        .bind(&entry.company)
        .bind(&entry.role)
        .bind(entry.interest.as_str())
        .bind(&entry.message)
        .bind(&entry.privacy_notice)
        .bind(entry.created_at)
        .bind(entry.updated_at)
        .fetch_one(&self.pool)
        .await?;
        Ok(if updates == 0 {
            Stored::Added
        } else {
            Stored::Updated
        })
    }

    /// Every entry, oldest first.
    ///
    /// # Errors
    /// The database failing, or a row it holds that is not an entry.
    pub async fn entries(&self) -> Result<Vec<Entry>, sqlx::Error> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM waitlist ORDER BY created_at, email_key"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry).collect()
    }

    /// The entry for `email` (compared without case), if there is one.
    ///
    /// # Errors
    /// The database failing.
    pub async fn find(&self, email: &str) -> Result<Option<Entry>, sqlx::Error> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM waitlist WHERE email_key = $1"
        ))
        .bind(key(email))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry).transpose()
    }

    /// Erases the entry for `email` (compared without case); false if there was none.
    ///
    /// # Errors
    /// The database failing.
    pub async fn erase(&self, email: &str) -> Result<bool, sqlx::Error> {
        let done = sqlx::query("DELETE FROM waitlist WHERE email_key = $1")
            .bind(key(email))
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
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

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

const COLUMNS: &str =
    "email, name, company, role, interest, message, privacy_notice, created_at, updated_at";

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
        updated_at: row.try_get("updated_at")?,
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
