//! Invitations at a pace: a wave's emails are due one after another, evenly spaced at the
//! wave's `--mail-per-minute`, instead of all at once (a wave of 10,000 in one burst is
//! what receiving systems throttle and file as spam). The schedule is written into the
//! outbox with the wave, so every instance on the database keeps it, and a wave made while
//! another is still going starts after its last email. Time is an input.

use std::num::NonZeroU32;

/// The pace a wave goes at unless the owner says otherwise: one email a second. Slow
/// enough for a sender receivers do not know yet (Gmail and Yahoo throttle a new sender's
/// bursts, and Amazon SES starts new accounts at one a second), and a wave of 10,000 is
/// still sent within three hours.
pub const DEFAULT_MAIL_PER_MINUTE: NonZeroU32 = NonZeroU32::new(60).expect("not zero");

/// When the `index`th email (from 0) of a wave starting at `start` is due, at `per_minute`
/// emails a minute (all times in ms since the Unix epoch): `start + index × 60 s / pace`,
/// rounded down, so that no minute ever holds more than `per_minute` of them.
pub fn due_at(start: i64, index: u64, per_minute: NonZeroU32) -> i64 {
    let offset = u128::from(index) * 60_000 / u128::from(per_minute.get());
    start.saturating_add(i64::try_from(offset).unwrap_or(i64::MAX))
}

/// When a wave made at `now` starts: at once, or, while an earlier wave is still going
/// (its last email due at `previous_last`), one interval of its own pace after that.
pub fn start(now: i64, previous_last: Option<i64>, per_minute: NonZeroU32) -> i64 {
    match previous_last {
        Some(last) => now.max(due_at(last, 1, per_minute)),
        None => now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    #[test]
    fn a_wave_is_spread_evenly_and_never_more_than_its_pace_in_a_minute() {
        // 1,000 at 600 a minute: one every 100 ms, the last after 99.9 s.
        let due: Vec<i64> = (0..1_000).map(|i| due_at(5_000, i, pace(600))).collect();
        assert_eq!(due[..3], [5_000, 5_100, 5_200]);
        assert_eq!(due[999], 5_000 + 99_900);
        for window in 0..100 {
            let from = 5_000 + window * 1_000;
            let in_minute = due
                .iter()
                .filter(|&&t| t >= from && t < from + 60_000)
                .count();
            assert!(in_minute <= 600, "{in_minute} from {from}");
        }
        // A pace that does not divide a minute: 7 a minute, never 8 in one.
        let due: Vec<i64> = (0..30).map(|i| due_at(0, i, pace(7))).collect();
        assert!(due.windows(8).all(|w| w[7] - w[0] >= 60_000), "{due:?}");
        assert!(due.windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn a_wave_starts_at_once_or_after_the_last_of_the_one_still_going() {
        assert_eq!(start(10_000, None, pace(60)), 10_000);
        // The earlier wave's last is due at 70 s: this one starts a second after it.
        assert_eq!(start(10_000, Some(70_000), pace(60)), 71_000);
        // Long finished: at once.
        assert_eq!(start(100_000, Some(70_000), pace(60)), 100_000);
    }

    #[test]
    fn extreme_paces_and_indexes_never_overflow() {
        assert_eq!(due_at(0, u64::MAX, pace(1)), i64::MAX);
        assert_eq!(due_at(0, 1, pace(u32::MAX)), 0);
        assert_eq!(due_at(i64::MAX - 1, 10, pace(1)), i64::MAX);
    }
}
