//! The schema's migrations, `server/migrations/`, embedded in the binary, in the form
//! sqlx's migrator runs: each file's version (before its first `_`), its description (the
//! rest of its name, `_` as spaces), its SQL and that SQL's checksum, as sqlx reads a
//! folder of migrations. Listed here rather than found by sqlx's `migrate!` macro: that
//! macro's crate builds the whole of sqlx a second time, for the compiler (docs/testing.md,
//! "Where the time goes"). A test checks the list against the folder, read by sqlx itself.

use std::borrow::Cow;

use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{MigrateError, Migration, MigrationSource, MigrationType, Migrator};

/// Each file of `server/migrations/` by its name without `.sql`, with its text.
macro_rules! embedded {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../migrations/", $name, ".sql")))),*]
    };
}

/// The migrations, in the order they run.
const FILES: &[(&str, &str)] = embedded![
    "0001_waitlist",
    "0002_repeats_keep_the_entry",
    "0003_confirmation",
    "0004_invitations",
    "0005_webhooks",
    "0006_allowances",
    "0007_proofs",
    "0008_paced_waves",
    "0009_line",
    "0010_credits_due",
    "0011_allowances_in_microseconds",
    "0012_mailbox_hash",
    "0013_standings",
    "0014_proofs_in_expiry_order",
];

/// The embedded migrations, as a source for sqlx's migrator.
#[derive(Debug)]
struct Embedded;

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async {
            FILES
                .iter()
                .map(|&(name, sql)| migration(name, sql))
                .collect()
        })
    }
}

/// One migration, read from its file's name and text as sqlx reads a folder's.
fn migration(name: &str, sql: &'static str) -> Result<Migration, BoxDynError> {
    let (version, description) = name
        .split_once('_')
        .ok_or_else(|| format!("migration {name}: no `_` after its version"))?;
    Ok(Migration::new(
        version.parse()?,
        Cow::Owned(description.replace('_', " ")),
        MigrationType::Simple,
        Cow::Borrowed(sql),
        sql.starts_with("-- no-transaction"),
    ))
}

/// The migrator that brings a database to the schema this build needs.
///
/// # Errors
/// Only if a name in the list above is malformed (the tests would have said so).
pub async fn migrator() -> Result<Migrator, MigrateError> {
    Migrator::new(Embedded).await
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[tokio::test]
    async fn the_embedded_migrations_are_the_folders_as_sqlx_reads_it() {
        let folder = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"));
        let read = Migrator::new(folder).await.expect("sqlx reads the folder");
        let embedded = migrator().await.expect("the list is well formed");
        let fields = |migrator: &Migrator| -> Vec<_> {
            migrator
                .iter()
                .map(|m| {
                    let kind = m.migration_type;
                    (
                        m.version,
                        m.description.to_string(),
                        kind,
                        m.checksum.to_vec(),
                        m.no_tx,
                    )
                })
                .collect()
        };
        assert_eq!(fields(&embedded), fields(&read));
    }
}
