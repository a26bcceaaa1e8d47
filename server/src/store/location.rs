//! Where the database is, as the owner writes it.

use std::str::FromStr;

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
#[derive(Clone, PartialEq, Eq)]
pub struct Location {
    /// Which database.
    pub backend: Backend,
    /// The URL sqlx is given.
    pub url: String,
    /// For SQLite, a database full once it holds this many pages (SQLite's
    /// `max_page_count`): a full disk, for tests that cannot mount one.
    pub max_pages: Option<u32>,
}

impl Location {
    /// The same SQLite database, full once it holds `pages` pages of 4 KiB.
    #[must_use]
    pub fn full_at(mut self, pages: u32) -> Self {
        self.max_pages = Some(pages);
        self
    }

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

/// Why a database location was not understood.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    /// Nothing was given.
    #[error("the database is empty: give a file path or a postgres:// URL")]
    Empty,
    /// Another kind of database.
    #[error("unsupported database `{0}://`: use a file path (SQLite) or a postgres:// URL")]
    Unsupported(String),
}

impl FromStr for Location {
    type Err = LocationError;

    fn from_str(text: &str) -> Result<Self, LocationError> {
        if text.is_empty() {
            return Err(LocationError::Empty);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Self {
                backend: Backend::Postgres,
                url: text.to_owned(),
                max_pages: None,
            });
        }
        let path = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
            .unwrap_or(text);
        if let Some((scheme, _)) = path.split_once("://") {
            return Err(LocationError::Unsupported(scheme.to_owned()));
        }
        // Created if missing; its folder must exist.
        Ok(Self {
            backend: Backend::Sqlite,
            url: format!("sqlite://{path}?mode=rwc"),
            max_pages: None,
        })
    }
}

/// Shown as [`Location::display`]: never with a password.
impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Location({})", self.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let sqlite = |url: &str| Location {
            backend: Backend::Sqlite,
            url: url.into(),
            max_pages: None,
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
        assert_eq!(
            format!("{secret:?}"),
            "Location(postgres://lathe@db.internal:5432/lathe)"
        );
    }
}
