//! One person on the waitlist, as stored, and as they and the owner see it.

use std::time::{Duration, UNIX_EPOCH};

use lathe_core::validation::{FormValues, Interest, normalize_email};
use serde::Serialize;

/// One person on the waitlist. Serialized as the owner's export and the manage page
/// show it: times as RFC 3339, UTC, to the millisecond.
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
    #[serde(serialize_with = "as_time")]
    pub created_at: i64,
    /// How many later sign-ups gave the same address (each left the entry as it was).
    pub repeats: i64,
    /// When the last of those came, in ms since the Unix epoch.
    #[serde(serialize_with = "as_time_if_any")]
    pub last_repeat_at: Option<i64>,
    /// Whether its owner confirmed the address.
    pub status: Status,
    /// When they did, in ms since the Unix epoch.
    #[serde(serialize_with = "as_time_if_any")]
    pub confirmed_at: Option<i64>,
    /// When the owner invited them, in ms since the Unix epoch.
    #[serde(serialize_with = "as_time_if_any")]
    pub invited_at: Option<i64>,
    /// The wave they were invited in (1, 2, ...).
    pub wave: Option<i64>,
    /// Their place in line (1 the next to be invited), while they stand in it: confirmed
    /// and not invited.
    pub place: Option<i64>,
    /// Friends who joined through their share link and confirmed, each a credit.
    pub referrals: i64,
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
            invited_at: None,
            wave: None,
            place: None,
            referrals: 0,
        }
    }
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
    /// Confirmed, then invited by the site's owner (`lathe-site waitlist invite`).
    Invited,
}

impl Status {
    /// Every status, in the order the owner's tools list them.
    pub const ALL: [Status; 4] = [
        Status::Unconfirmed,
        Status::Pending,
        Status::Confirmed,
        Status::Invited,
    ];

    /// Its name in the database, the export and the owner's tools.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Unconfirmed => "unconfirmed",
            Status::Pending => "pending",
            Status::Confirmed => "confirmed",
            Status::Invited => "invited",
        }
    }

    /// Whether its owner confirmed the address (an invited one did).
    pub const fn is_confirmed(self) -> bool {
        matches!(self, Status::Confirmed | Status::Invited)
    }

    /// From its name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == text)
    }
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
    /// Its owner, from the one-click unsubscribe link of an invitation.
    Unsubscribed,
}

impl ErasedBy {
    /// Its name in the table.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErasedBy::Visitor => "visitor",
            ErasedBy::Owner => "owner",
            ErasedBy::Unconfirmed => "unconfirmed",
            ErasedBy::Retention => "retention",
            ErasedBy::Unsubscribed => "unsubscribed",
        }
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde hands a field over by reference"
)]
fn as_time<S: serde::Serializer>(ms: &i64, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(&time(*ms))
}

#[expect(clippy::ref_option, reason = "serde hands a field over by reference")]
fn as_time_if_any<S: serde::Serializer>(ms: &Option<i64>, to: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => to.serialize_str(&time(*ms)),
        None => to.serialize_none(),
    }
}

/// A time in ms since the Unix epoch as RFC 3339, UTC, to the millisecond.
pub fn time(ms: i64) -> String {
    let since_epoch = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(UNIX_EPOCH + since_epoch).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in Status::ALL {
            assert_eq!(Status::parse(status.as_str()), Some(status));
        }
        assert_eq!(Status::parse("waiting"), None);
    }
}
