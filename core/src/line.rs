//! The waitlist's line: which confirmed entries are invited first.
//!
//! Every confirmed entry that is not yet invited (nor gone) stands in the line. Without
//! referrals the line is the order of confirmation. Each friend whose address is confirmed
//! through an entry's share link (a credit) moves that entry ahead by
//! [`PLACES_PER_REFERRAL`] confirmations (or what the owner sets). The rule is one key per
//! entry, [`key`]: the line is the entries sorted by it, and an entry's place is one more
//! than the number of keys smaller than its own ([`place`]). The server keeps the same
//! key in its database and counts with it; its tests check its places against these.
//!
//! Its properties (proved by the tests below and the property tests in
//! `core/tests/properties.rs`):
//! - **total**: no two entries share a place (the key ends with the confirmation number,
//!   which no two entries share);
//! - **deterministic**: the place depends on the standings alone, not on the order they
//!   are given in;
//! - **without credits it is confirmation order**;
//! - **a credit moves only its referrer forward**, and moves each other entry back by at
//!   most one place (the only key that changes is the referrer's, and it only gets
//!   smaller).
//!
//! A credit takes `places` off the referrer's number: in a line where the entries confirmed
//! just before it are all still there and uncredited, it moves `places` places (passing
//! the one it then shares a number with: of two equal numbers, the more credited goes
//! first); fewer where some of them were invited or left (their numbers are gaps), more
//! where other referrers' credits brought theirs within reach.

/// What a confirmed friend is worth, in places, unless the owner sets another value
/// (`lathe-site serve --places-per-referral`; 0 turns referrals off).
///
/// Five: enough that sharing visibly pays (three friends are fifteen places, a step a
/// person sees in a line of hundreds), small enough that the line stays mostly the order
/// people came in: a farm of fake friends would need hundreds of confirmed addresses, on
/// domains that are not disposable, to pass a few thousand people.
pub const PLACES_PER_REFERRAL: u32 = 5;

/// Where an entry stands: its number in the order of confirmations (1 for the first
/// address ever confirmed; never reused) and the referrals credited to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Standing {
    /// Its number in the order of confirmations.
    pub confirmed: u64,
    /// Referrals credited to it.
    pub credits: u32,
}

/// An entry's key in the line: the smaller goes first. Its confirmation number less
/// `places` for each credit; of two equal, the more credits first (`-credits`); then the
/// confirmation number, which no two entries share (the first two already tell any two
/// entries apart for one `places`; the third makes that plain).
#[must_use]
pub fn key(standing: Standing, places: u32) -> (i64, i64, u64) {
    let confirmed = i64::try_from(standing.confirmed).unwrap_or(i64::MAX);
    let ahead = i64::from(places).saturating_mul(i64::from(standing.credits));
    (
        confirmed.saturating_sub(ahead),
        -i64::from(standing.credits),
        standing.confirmed,
    )
}

/// The place of `me` in `line` (which holds `me`): 1 is the next to be invited.
#[must_use]
pub fn place(me: Standing, line: &[Standing], places: u32) -> usize {
    let mine = key(me, places);
    1 + line.iter().filter(|s| key(**s, places) < mine).count()
}

/// The line in order: `line` sorted by [`key`], the next to be invited first.
pub fn order(line: &mut [Standing], places: u32) {
    line.sort_unstable_by_key(|s| key(*s, places));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(confirmed: u64, credits: u32) -> Standing {
        Standing { confirmed, credits }
    }

    #[test]
    fn without_credits_the_line_is_the_order_of_confirmation() {
        let line = [standing(3, 0), standing(1, 0), standing(7, 0)];
        let places: Vec<usize> = line.iter().map(|s| place(*s, &line, 5)).collect();
        assert_eq!(places, [2, 1, 3]);
    }

    #[test]
    fn a_credit_moves_its_referrer_ahead_by_the_places_a_friend_is_worth() {
        let mut line: Vec<Standing> = (1..=10).map(|n| standing(n, 0)).collect();
        line[9].credits = 1;
        assert_eq!(place(line[9], &line, 5), 5);
        line[9].credits = 2;
        assert_eq!(place(line[9], &line, 5), 1);
        // Of two equal numbers, the more credited goes first.
        let line = [standing(4, 0), standing(9, 1)];
        assert_eq!(place(line[1], &line, 5), 1);
    }

    #[test]
    fn gaps_left_by_invited_entries_are_not_places() {
        // 2 to 5 were invited: the credit of 7 takes it past 6 only.
        let line = [standing(1, 0), standing(6, 0), standing(7, 1)];
        assert_eq!(place(line[2], &line, 5), 2);
    }

    #[test]
    fn no_places_per_referral_is_confirmation_order_whatever_the_credits() {
        let line = [standing(1, 0), standing(2, 40)];
        assert_eq!(place(line[1], &line, 0), 2);
    }

    #[test]
    fn order_sorts_by_key() {
        let mut line = vec![
            standing(1, 0),
            standing(2, 0),
            standing(8, 2),
            standing(5, 0),
        ];
        order(&mut line, 5);
        assert_eq!(
            line,
            [
                standing(8, 2),
                standing(1, 0),
                standing(2, 0),
                standing(5, 0)
            ]
        );
    }

    #[test]
    fn extreme_numbers_do_not_overflow() {
        let line = [standing(u64::MAX, u32::MAX), standing(1, u32::MAX)];
        assert_eq!(place(line[1], &line, u32::MAX), 1);
        assert_eq!(place(line[0], &line, u32::MAX), 2);
    }
}
