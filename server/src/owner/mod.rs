//! The owner's commands besides `serve`: the waitlist's tools (`lathe-site waitlist …`:
//! export, show, erase, count, the outbox, purge, backup), and the build's helpers
//! (`compress`, `nginx-headers`) and the container's health check (`ready`). Each prints
//! what it did to standard output, what the owner should know to standard error, and
//! fails with an [`OwnerError`] that says why in one line.

pub mod export;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use crate::config::{ExportFormat, WaitlistCommand};
use crate::domain::email::LetterError;
use crate::domain::{ErasedBy, Letter, time};
use crate::http::{compress, headers};
use crate::operations::health::{self, ProbeError};
use crate::operations::retention;
use crate::store::{BackupError, Invited, Location, OpenError, Stats, Store, StoreError};

/// Why an owner's command failed.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// No entry has that address.
    #[error("no entry for {email}")]
    NoEntry {
        /// The address asked for.
        email: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file of the build could not be read or written.
    #[error("cannot {doing} {}: {source}", path.display())]
    Build {
        /// What it was doing: `compress`, `read`.
        doing: &'static str,
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The backup was not written.
    #[error(transparent)]
    Backup(#[from] BackupError),
    /// The owner's letter.
    #[error("--letter: {0}")]
    Letter(#[from] LetterError),
    /// Standard output could not be written.
    #[error("cannot write: {0}")]
    Write(#[from] std::io::Error),
    /// The server answered, not ready.
    #[error("{address} is not ready: {status}")]
    NotReady {
        /// The server asked.
        address: SocketAddr,
        /// What it answered.
        status: axum::http::StatusCode,
    },
    /// The build's `_headers` could not be understood.
    #[error(transparent)]
    HeadersSyntax(#[from] headers::ParseError),
    /// The server did not answer.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

impl From<csv::Error> for OwnerError {
    fn from(e: csv::Error) -> Self {
        OwnerError::Write(e.into())
    }
}

impl From<serde_json::Error> for OwnerError {
    fn from(e: serde_json::Error) -> Self {
        OwnerError::Write(e.into())
    }
}

/// Runs one of the waitlist's tools on the database at `location`.
///
/// # Errors
/// See [`OwnerError`].
pub async fn waitlist(location: &Location, command: WaitlistCommand) -> Result<(), OwnerError> {
    let store = Store::open(location).await?;
    let result = run(&store, location, command).await;
    store.close().await;
    result
}

async fn run(
    store: &Store,
    location: &Location,
    command: WaitlistCommand,
) -> Result<(), OwnerError> {
    let mut out = std::io::stdout().lock();
    match command {
        WaitlistCommand::Export { format, status } => {
            let only = status.status();
            let entries = store.entries_with(only);
            let written = std::io::BufWriter::new(&mut out);
            match format {
                ExportFormat::Csv => export::csv(entries, written).await,
                ExportFormat::Json => export::json(entries, written).await,
            }?;
            if let Some(only) = only {
                let left_out: Vec<String> = store
                    .count_by_status()
                    .await?
                    .into_iter()
                    .filter(|&(other, n)| other != only && n > 0)
                    .map(|(other, n)| format!("{n} {}", other.as_str()))
                    .collect();
                if !left_out.is_empty() {
                    eprintln!(
                        "left out: {} (--status all exports every entry)",
                        left_out.join(", ")
                    );
                }
            }
        }
        WaitlistCommand::Outbox => {
            let counts = store.outbox_counts().await?;
            writeln!(
                out,
                "queued {}\nsent {}\nfailed {}",
                counts.queued, counts.sent, counts.failed
            )?;
        }
        WaitlistCommand::Show { email } => match store.find(&email).await? {
            Some(entry) => export::entry_json(&entry, &mut out)?,
            None => return Err(OwnerError::NoEntry { email }),
        },
        WaitlistCommand::Erase { email } => {
            if !store
                .erase(&email, ErasedBy::Owner, crate::now_ms())
                .await?
            {
                return Err(OwnerError::NoEntry { email });
            }
            writeln!(out, "erased the entry for {email}")?;
        }
        WaitlistCommand::Purge { as_of, dry_run } => {
            let purged = store
                .purge(as_of.unwrap_or_else(crate::now_ms), dry_run)
                .await?;
            for (email, by) in &purged.entries {
                writeln!(out, "{email}\t{}", by.as_str())?;
            }
            let (unconfirmed, inactive) = retention::counts(&purged);
            let verb = if dry_run { "would purge" } else { "purged" };
            eprintln!(
                "{verb} {unconfirmed} never confirmed, {inactive} inactive, {} finished emails",
                purged.emails
            );
        }
        WaitlistCommand::Count => writeln!(out, "{}", store.count().await?)?,
        WaitlistCommand::Invite {
            count,
            letter,
            interest,
            mail_per_minute,
            dry_run,
        } => {
            let wave = Wave {
                count,
                letter: &letter,
                interest,
                per_minute: mail_per_minute,
                dry_run,
            };
            invite(store, &wave, &mut out).await?;
        }
        WaitlistCommand::Waves => waves(store, &mut out).await?,
        WaitlistCommand::Referrers {
            top,
            with_addresses,
        } => referrers(store, top, with_addresses, &mut out).await?,
        WaitlistCommand::Stats => {
            let stats = store.stats(crate::now_ms(), STATS_DAYS).await?;
            write!(out, "{}", report(&stats))?;
        }
        WaitlistCommand::Backup { file } => {
            store.backup(&file).await?;
            writeln!(
                out,
                "backed up {} to {}",
                location.display(),
                file.display()
            )?;
        }
    }
    Ok(())
}

/// `referrers`: a header, then a line each, tab-separated.
async fn referrers(
    store: &Store,
    top: u32,
    with_addresses: bool,
    out: &mut impl Write,
) -> Result<(), OwnerError> {
    let email_column = if with_addresses { "\temail" } else { "" };
    writeln!(
        out,
        "id\tsigned up\tconfirmed\tcredited\tplace{email_column}"
    )?;
    for r in store.referrers(top).await? {
        let place = r.place.map(|p| p.to_string()).unwrap_or_default();
        let email = if with_addresses {
            format!("\t{}", r.email)
        } else {
            String::new()
        };
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{place}{email}",
            r.id, r.joined, r.confirmed, r.credits
        )?;
    }
    Ok(())
}

/// How many days `stats` shows, today included.
pub const STATS_DAYS: u32 = 30;

/// The figures as `stats` prints them.
pub fn report(stats: &Stats) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let statuses: Vec<String> = stats
        .by_status
        .iter()
        .map(|(status, n)| format!("{} {n}", status.as_str()))
        .collect();
    let _ = writeln!(text, "entries {}: {}", stats.entries(), statuses.join(", "));
    let (confirmed, asked) = stats.confirmed_of_asked;
    let _ = match stats.confirmation_rate() {
        Some(rate) => writeln!(
            text,
            "confirmation rate {:.0} % ({confirmed} of {asked} asked)",
            rate * 100.0
        ),
        None => writeln!(text, "confirmation rate: nobody was asked to confirm"),
    };
    let interests: Vec<String> = stats
        .by_interest
        .iter()
        .map(|(interest, n)| format!("{interest} {n}"))
        .collect();
    let _ = writeln!(text, "by interest: {}", interests.join(", "));
    let _ = match (stats.referred_share(), stats.viral_coefficient()) {
        (Some(share), Some(coefficient)) => writeln!(
            text,
            "referred {:.0} % of confirmed ({} of {}); viral coefficient {coefficient:.2} ({} credited)",
            share * 100.0,
            stats.referred_confirmed,
            stats.confirmed(),
            stats.credits
        ),
        _ => writeln!(text, "referrals: nobody confirmed yet"),
    };
    let _ = writeln!(text, "day (UTC)\tsign-ups\tthrough a link\tconfirmations");
    for day in &stats.days {
        let date = time(day.starts_at);
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}",
            &date[..10],
            day.sign_ups,
            day.referred,
            day.confirmations
        );
    }
    let invited: i64 = stats.waves.iter().map(|w| w.size).sum();
    let _ = writeln!(
        text,
        "waves {}: {invited} invited; {} unsubscribed",
        stats.waves.len(),
        stats.unsubscribed
    );
    let o = stats.outbox;
    let _ = writeln!(
        text,
        "outbox: queued {}, sent {}, failed {}",
        o.queued, o.sent, o.failed
    );
    text
}

/// The owner's letter in `file`.
fn read_letter(file: &Path) -> Result<Letter, OwnerError> {
    let text = std::fs::read_to_string(file).map_err(|source| OwnerError::Build {
        doing: "read",
        path: file.to_owned(),
        source,
    })?;
    Ok(Letter::from_owner(&text)?)
}

/// A wave as the owner asks for it.
struct Wave<'a> {
    count: u32,
    letter: &'a Path,
    interest: Option<lathe_core::validation::Interest>,
    per_minute: NonZeroU32,
    dry_run: bool,
}

/// `invite`: the wave made (or, in a dry run, who it would take), each invited entry's
/// address and name on `out`, and what was done on standard error.
async fn invite(store: &Store, wave: &Wave<'_>, out: &mut impl Write) -> Result<(), OwnerError> {
    let letter = read_letter(wave.letter)?;
    let invited = store
        .invite(
            wave.count,
            wave.interest,
            &letter,
            wave.per_minute,
            crate::now_ms(),
            wave.dry_run,
        )
        .await?;
    for (email, name) in &invited.entries {
        writeln!(out, "{email}\t{name}")?;
    }
    eprintln!(
        "{}",
        invited_summary(&invited, wave.per_minute, wave.dry_run)
    );
    Ok(())
}

/// What `invite` says of what it did, its emails going `per_minute`.
fn invited_summary(invited: &Invited, per_minute: NonZeroU32, dry_run: bool) -> String {
    let pace = format!(
        "{per_minute} a minute, the last due at {} UTC",
        time(invited.last_due_at)[..19].replace('T', " ")
    );
    match (invited.entries.len(), dry_run) {
        (0, _) => "nobody to invite: no confirmed entry is waiting for one".to_owned(),
        (n, true) => format!("would invite {n} in wave {}: {pace}", invited.wave),
        (n, false) => format!(
            "invited {n} in wave {}: the server sends their emails (with --smtp), {pace}",
            invited.wave
        ),
    }
}

/// Writes the waves as tab-separated lines under a header.
async fn waves(store: &Store, out: &mut impl Write) -> Result<(), OwnerError> {
    writeln!(
        out,
        "wave\tmade\tsize\tqueued\tsent\tfailed\tinterest\tsubject"
    )?;
    for wave in store.waves().await? {
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            wave.number,
            time(wave.created_at),
            wave.size,
            wave.queued,
            wave.sent,
            wave.failed,
            wave.interest.as_deref().unwrap_or("all"),
            wave.subject
        )?;
    }
    Ok(())
}

/// Writes the brotli and gzip variants of the build at `dist`, and says how many.
///
/// # Errors
/// A file could not be read or written.
pub fn compress(dist: &Path) -> Result<(), OwnerError> {
    let done = compress::compress(dist).map_err(|source| OwnerError::Build {
        doing: "compress",
        path: dist.to_owned(),
        source,
    })?;
    println!(
        "compressed {} files of {}: {} variants (brotli 11, gzip 9)",
        done.files,
        dist.display(),
        done.variants
    );
    Ok(())
}

/// Prints the build's site-wide headers as nginx `add_header` lines.
///
/// # Errors
/// `_headers` could not be read or understood.
pub fn nginx_headers(dist: &Path) -> Result<(), OwnerError> {
    let file = dist.join("_headers");
    let text = std::fs::read_to_string(&file).map_err(|source| OwnerError::Build {
        doing: "read",
        path: file,
        source,
    })?;
    print!("{}", headers::nginx(&headers::parse(&text)?));
    Ok(())
}

/// Whether the server at `host`:`port` is ready (an unspecified address is asked on
/// loopback).
///
/// # Errors
/// No answer, or not 200.
pub async fn ready(host: IpAddr, port: u16) -> Result<(), OwnerError> {
    let host = match host {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        other => other,
    };
    let address = SocketAddr::new(host, port);
    match health::probe(address).await? {
        status if status.is_success() => Ok(()),
        status => Err(OwnerError::NotReady { address, status }),
    }
}
