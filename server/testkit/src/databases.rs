//! Databases of a test's own: a SQLite file, or a PostgreSQL cluster
//! (`scripts/postgres.sh`, from Debian's `postgresql` package), each removed when dropped.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use lathe_site::store::Location;

use crate::site::scratch;

/// A fresh SQLite database, unique to the call, removed (with its write-ahead log) when
/// dropped; it derefs to its [`Location`].
pub struct Sqlite {
    location: Location,
    file: PathBuf,
}

impl std::ops::Deref for Sqlite {
    type Target = Location;

    fn deref(&self) -> &Location {
        &self.location
    }
}

impl Sqlite {
    /// The database's file.
    pub fn file(&self) -> &std::path::Path {
        &self.file
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.file.display()));
        }
    }
}

/// A new [`Sqlite`] database.
///
/// # Panics
/// When its path is not a location (it always is).
pub fn sqlite() -> Sqlite {
    static N: AtomicU32 = AtomicU32::new(0);
    let file = scratch(&format!(
        "waitlist-{}-{}.db",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    Sqlite {
        location: file.display().to_string().parse().unwrap(),
        file,
    }
}

/// A PostgreSQL cluster of the test's own, stopped and removed when dropped.
pub struct Postgres {
    /// Its data folder.
    pub dir: PathBuf,
    /// Its URL.
    pub location: Location,
}

impl Postgres {
    /// What the system answers a connection to a stopped cluster, as the server's log and
    /// the owner's tools quote it: its Unix socket is gone with it.
    pub const DOWN: &str = "No such file or directory";

    /// A cluster for tests that need speed over durability: fsync off, and its files in
    /// memory (`/dev/shm`, where the system has it). Measured in the API tests, a third
    /// of PostgreSQL's CPU time went to the file system's bookkeeping on the disk, mostly
    /// `initdb` creating a cluster's thousand files and the cleanup removing them.
    pub fn start() -> Self {
        Self::start_with(in_memory().unwrap_or("/tmp"), &["fsync=off"])
    }

    /// A fast cluster (as [`Postgres::start`]) that writes every statement it executes to
    /// its log ([`Postgres::statements_since`]).
    pub fn start_logging_statements() -> Self {
        Self::start_with(
            in_memory().unwrap_or("/tmp"),
            &["fsync=off", "log_statement=all"],
        )
    }

    /// The statements the cluster executed since its log was `offset` bytes long (the
    /// first of them at once, from `statements_since(0)`), and the log's length now. Only
    /// for a cluster from [`Postgres::start_logging_statements`].
    ///
    /// # Panics
    /// The log cannot be read.
    pub fn statements_since(&self, offset: usize) -> (Vec<String>, usize) {
        let log = std::fs::read(self.dir.join("server.log")).unwrap();
        let new = String::from_utf8_lossy(&log[offset.min(log.len())..]).into_owned();
        let statements = new
            .lines()
            .filter_map(|line| {
                let (_, said) = line.split_once("LOG:  ")?;
                (said.starts_with("statement: ") || said.starts_with("execute "))
                    .then(|| said.to_owned())
            })
            .collect();
        (statements, log.len())
    }

    /// A cluster as PostgreSQL runs by default: every commit on the disk.
    pub fn start_durable() -> Self {
        Self::start_with("/tmp", &[])
    }

    fn start_with(parent: &str, settings: &[&str]) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        // Right under /tmp or /dev/shm: as root, the cluster runs as `postgres`, which must
        // reach it.
        let dir = PathBuf::from(format!(
            "{parent}/lathe-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let out = script()
            .args(["start", dir.to_str().unwrap()])
            .args(settings)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/postgres.sh start failed (make setup installs PostgreSQL):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8(out.stdout).unwrap();
        Self {
            dir,
            location: url.trim().parse().unwrap(),
        }
    }

    fn run(&self, command: &str) {
        let status = script()
            .args([command, self.dir.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success(), "scripts/postgres.sh {command}");
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every session is ended.
    pub fn restart(&self) {
        self.run("restart");
    }

    /// Stops the server, keeping its data, until [`Postgres::resume`].
    pub fn stop(&self) {
        self.run("pause");
    }

    /// Starts the server again after [`Postgres::stop`], on the same port.
    pub fn resume(&self) {
        self.run("resume");
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = script().args(["stop", self.dir.to_str().unwrap()]).status();
    }
}

/// `/dev/shm` where it has room for a test run's clusters (about 40 MB each, a few dozen at
/// once at most): a container's is often 64 MB.
fn in_memory() -> Option<&'static str> {
    static ROOM: OnceLock<bool> = OnceLock::new();
    let room = ROOM.get_or_init(|| {
        let out = Command::new("df")
            .args(["--output=avail", "-B1M", "/dev/shm"])
            .output();
        out.ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().nth(1)?.trim().parse::<u64>().ok())
            .is_some_and(|megabytes| megabytes >= 2048)
    });
    room.then_some("/dev/shm")
}

fn script() -> Command {
    Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/postgres.sh"
    ))
}

/// Runs each check once on a new SQLite database and once on a PostgreSQL cluster of its
/// own, as two tests named `sqlite` and `postgres` in a module named after the check:
/// `on_both_databases!(signs_up_and_repeats)`. `durable:` before the names gives
/// PostgreSQL every commit on the disk ([`Postgres::start_durable`]).
#[macro_export]
macro_rules! on_both_databases {
    (durable: $($check:ident),+ $(,)?) => {
        $crate::on_both_databases!(@each start_durable, $($check),+);
    };
    ($($check:ident),+ $(,)?) => {
        $crate::on_both_databases!(@each start, $($check),+);
    };
    (@each $start:ident, $($check:ident),+) => {
        $(
            mod $check {
                #[test]
                fn sqlite() {
                    super::$check(&$crate::sqlite());
                }

                #[test]
                fn postgres() {
                    super::$check(&$crate::Postgres::$start().location);
                }
            }
        )+
    };
}
