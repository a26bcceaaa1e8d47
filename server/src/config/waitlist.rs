//! `lathe-site waitlist`'s tools, as the command line gives them.

use std::num::NonZeroU32;
use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use lathe_core::validation::Interest;

use crate::domain::Status;
use crate::domain::pace::DEFAULT_MAIL_PER_MINUTE;

/// The owner's waitlist tools.
#[derive(Subcommand)]
pub enum WaitlistCommand {
    /// Writes every entry to standard output, oldest first, as the database hands them
    /// over (an export of any size takes little memory).
    Export {
        /// Which entries: those whose owners confirmed them and who are not invited yet
        /// (the only ones you may email where a confirmed opt-in is the law), those
        /// waiting for it, those stored by a server without --smtp, those invited, or all.
        #[arg(long, value_enum, default_value_t = StatusFilter::Confirmed)]
        status: StatusFilter,
        /// CSV (a header row, every cell quoted; a cell that a spreadsheet would run as a
        /// formula, also behind white space, starts with ', and control characters are
        /// written as U+FFFD) or JSON (an array, the text exactly as stored).
        #[arg(long, env = "LATHE_EXPORT_FORMAT", value_enum, default_value_t = ExportFormat::Csv)]
        format: ExportFormat,
    },
    /// Prints the entry for an address (as JSON), or says there is none (exit 1).
    Show {
        /// The address, in any case and either Unicode form (composed or not).
        email: String,
    },
    /// Erases the entry for an address, or says there is none (exit 1).
    Erase {
        /// The address, in any case and either Unicode form (composed or not).
        email: String,
    },
    /// Prints how many entries there are.
    Count,
    /// Invites the COUNT confirmed entries at the head of the line (in place order: the
    /// order of confirmation, each credited referral moving its referrer ahead):
    /// one wave, recorded with its letter, whose emails the server sends (with --smtp)
    /// through its outbox. Prints each address invited and its name. Nobody is invited
    /// twice; an entry erased before its email goes gets none.
    Invite {
        /// How many entries the wave takes (fewer if fewer are waiting).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        count: u32,
        /// The letter, as plain text: its first line is the subject, the rest the text;
        /// `{name}` becomes each entry's name. The one-click unsubscribe link and the
        /// link to manage the entry are added beneath it.
        #[arg(long, value_name = "FILE")]
        letter: PathBuf,
        /// Only entries with this interest (general, enterprise, developer, partnership,
        /// press).
        #[arg(long, value_parser = parse_interest)]
        interest: Option<Interest>,
        /// How many of the wave's emails go a minute: each is due in turn, evenly
        /// spaced, after any wave still going (one a second unless told: what a sender
        /// receivers do not know yet should start at).
        #[arg(long, default_value_t = DEFAULT_MAIL_PER_MINUTE, value_name = "N")]
        mail_per_minute: NonZeroU32,
        /// Show who would be invited, and queue nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Lists the waves of invitations: when, how many, the letter's subject, and their
    /// emails queued, sent and failed.
    Waves,
    /// Prints the list's figures: entries by status and by interest, the confirmation
    /// rate, the share of confirmed entries that came through a share link and the viral
    /// coefficient (credited referrals per confirmed entry), sign-ups (and those through
    /// a link) and confirmations a day for the last 30 days, the waves and the outbox.
    Stats,
    /// Lists the entries whose share links brought the most friends: each one's id,
    /// friends signed up, confirmed and credited, and place. Few confirmed of many
    /// signed up flags a farm of fake friends. Addresses only with --with-addresses.
    Referrers {
        /// How many to list.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        top: u32,
        /// Also print each one's address (last column).
        #[arg(long)]
        with_addresses: bool,
    },
    /// Prints how many emails are queued (or waiting to be tried again), sent and failed.
    Outbox,
    /// Deletes what the privacy notice says is kept no longer (the server does this when
    /// it starts and every day): addresses never confirmed 7 days after signing up,
    /// entries 2 years after their last interaction (sign-up, confirmation, email sent),
    /// and emails sent or failed over a day ago. Prints each entry that goes and why.
    Purge {
        /// Apply the rule as on this date (`2028-11-25`, midnight UTC) or time
        /// (`2028-11-25T12:00:00Z`) instead of now.
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        as_of: Option<i64>,
        /// Show what would go, and delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Writes a consistent copy of a SQLite database to FILE while the server goes on
    /// writing to it. To restore: stop the server, put FILE in the database's place
    /// (removing the old -wal and -shm files beside it), start the server. PostgreSQL:
    /// use `pg_dump`.
    Backup {
        /// Where to write the copy (a new file).
        file: PathBuf,
    },
}

/// A date (midnight UTC) or an RFC 3339 time, in ms since the Unix epoch.
fn parse_date(text: &str) -> Result<i64, String> {
    let time = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    let at = humantime::parse_rfc3339_weak(&time)
        .map_err(|_| format!("`{text}` is not a date like 2028-11-25 or 2028-11-25T12:00:00Z"))?;
    at.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .ok_or_else(|| format!("`{text}` is before 1970"))
}

/// An interest, as the form names it.
fn parse_interest(text: &str) -> Result<Interest, String> {
    text.parse().map_err(|_| {
        let names: Vec<&str> = Interest::ALL.iter().map(|i| i.as_str()).collect();
        format!("`{text}` is not an interest: one of {}", names.join(", "))
    })
}

/// `export --status`.
#[derive(Clone, Copy, ValueEnum)]
pub enum StatusFilter {
    /// Confirmed by their owners.
    Confirmed,
    /// Waiting for it.
    Pending,
    /// Stored by a server without --smtp.
    Unconfirmed,
    /// Invited in a wave.
    Invited,
    /// Every entry.
    All,
}

impl StatusFilter {
    /// The one status asked for; `None` for all.
    pub fn status(self) -> Option<Status> {
        match self {
            StatusFilter::Confirmed => Some(Status::Confirmed),
            StatusFilter::Pending => Some(Status::Pending),
            StatusFilter::Unconfirmed => Some(Status::Unconfirmed),
            StatusFilter::Invited => Some(Status::Invited),
            StatusFilter::All => None,
        }
    }
}

/// `export --format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    /// Comma-separated values, every cell quoted.
    Csv,
    /// One JSON array.
    Json,
}
