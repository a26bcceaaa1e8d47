//! How long the waitlist keeps what it holds: the periods the privacy notice states (the
//! site renders them from [`RetentionConstants`]) and the rules the server enforces with
//! them. Time is an input (ms since the Unix epoch), as everywhere in the core.

use serde::Serialize;
#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// How long a confirmation link works, in hours.
pub const CONFIRM_LINK_HOURS: u32 = 48;
/// How long an address that nobody confirmed is kept, in days.
pub const PENDING_DAYS: u32 = 7;
/// How long an entry is kept after its last interaction (sign-up, confirmation, email
/// sent), in years.
pub const INACTIVE_YEARS: u32 = 2;
/// At most this many emails go to one address in a day (24 hours), whoever asks for
/// them: the form is never a tool to fill someone's inbox.
pub const MAILS_PER_DAY: u32 = 3;

const HOUR_MS: i64 = 60 * 60 * 1000;
const DAY_MS: i64 = 24 * HOUR_MS;
/// A year, as the rule counts it: 366 days, so that an entry is never deleted before
/// its years have passed on the calendar, leap days included.
const YEAR_MS: i64 = 366 * DAY_MS;

/// When a confirmation link sent at `sent_ms` stops working.
pub const fn confirm_link_expires(sent_ms: i64) -> i64 {
    sent_ms + CONFIRM_LINK_HOURS as i64 * HOUR_MS
}

/// The latest sign-up time at which an address never confirmed is due for deletion at
/// `now_ms`: those signed up at or before it.
pub const fn pending_cutoff(now_ms: i64) -> i64 {
    now_ms - PENDING_DAYS as i64 * DAY_MS
}

/// The latest last-interaction time at which an entry is due for deletion at `now_ms`:
/// those whose last interaction was at or before it.
pub const fn inactive_cutoff(now_ms: i64) -> i64 {
    now_ms - INACTIVE_YEARS as i64 * YEAR_MS
}

/// Whether an address signed up at `created_ms` and never confirmed is due for deletion
/// at `now_ms`.
pub const fn pending_is_due(created_ms: i64, now_ms: i64) -> bool {
    created_ms <= pending_cutoff(now_ms)
}

/// Whether an entry whose last interaction was at `last_ms` is due for deletion at
/// `now_ms`.
pub const fn inactive_is_due(last_ms: i64, now_ms: i64) -> bool {
    last_ms <= inactive_cutoff(now_ms)
}

/// The periods, for a page to state.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify), tsify(missing_as_null))]
pub struct RetentionConstants {
    /// [`CONFIRM_LINK_HOURS`].
    pub confirm_link_hours: u32,
    /// [`PENDING_DAYS`].
    pub pending_days: u32,
    /// [`INACTIVE_YEARS`].
    pub inactive_years: u32,
    /// [`MAILS_PER_DAY`].
    pub mails_per_day: u32,
}

impl RetentionConstants {
    /// The constants the rules use.
    pub const fn new() -> Self {
        Self {
            confirm_link_hours: CONFIRM_LINK_HOURS,
            pending_days: PENDING_DAYS,
            inactive_years: INACTIVE_YEARS,
            mails_per_day: MAILS_PER_DAY,
        }
    }
}

impl Default for RetentionConstants {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_764_000_000_000; // 2025-11-24

    #[test]
    fn a_confirmation_link_works_for_48_hours() {
        assert_eq!(confirm_link_expires(T) - T, 172_800_000);
    }

    #[test]
    fn an_unconfirmed_address_goes_after_7_days_to_the_millisecond() {
        assert!(!pending_is_due(T, T + 7 * DAY_MS - 1));
        assert!(pending_is_due(T, T + 7 * DAY_MS));
    }

    #[test]
    fn an_entry_goes_2_years_after_its_last_interaction_never_before() {
        // 2 calendar years are at most 731 days; the rule waits 732.
        assert!(!inactive_is_due(T, T + 731 * DAY_MS));
        assert!(!inactive_is_due(T, T + 732 * DAY_MS - 1));
        assert!(inactive_is_due(T, T + 732 * DAY_MS));
    }
}
