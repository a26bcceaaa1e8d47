//! Whether a friend's sign-up through a share link may earn its referrer a credit, once
//! the friend confirms (the rest of the rule, once per mailbox ever, is the store's:
//! `credited_mailboxes`). The mailbox comparison is the core's
//! ([`lathe_core::referral::mailbox`]); the disposable domains are the `mailchecker`
//! crate's list, kept up to date by its maintainers.

use std::collections::HashSet;
use std::sync::LazyLock;

/// Why a sign-up's referral code earns nothing: counted as
/// `lathe_referrals_ignored_total{reason}`, never told to the visitor (the sign-up goes
/// on as any other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// Not a code's shape.
    Malformed,
    /// No entry has it (never given, or its entry erased).
    Unknown,
    /// The friend's mailbox is the referrer's own.
    Own,
    /// The friend's address is on a disposable-mail domain.
    Disposable,
    /// The friend's address was on the list already.
    Repeat,
    /// Referrals are off (`--places-per-referral 0`).
    Off,
}

impl Ignored {
    /// Its name in the metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Ignored::Malformed => "malformed",
            Ignored::Unknown => "unknown",
            Ignored::Own => "own",
            Ignored::Disposable => "disposable",
            Ignored::Repeat => "repeat",
            Ignored::Off => "off",
        }
    }
}

/// Whether `address`'s domain, or a domain it is under, is a disposable-mail service.
#[must_use]
pub fn is_disposable(address: &str) -> bool {
    static DOMAINS: LazyLock<HashSet<&'static str>> =
        LazyLock::new(|| mailchecker::blacklist().into_iter().collect());
    let Some((_, domain)) = address.rsplit_once('@') else {
        return false;
    };
    let domain = domain.trim_end_matches('.').to_lowercase();
    let mut rest = domain.as_str();
    loop {
        if DOMAINS.contains(rest) {
            return true;
        }
        match rest.split_once('.') {
            Some((_, parent)) => rest = parent,
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disposable_domains_and_their_subdomains_are_known() {
        for address in [
            "a@mailinator.com",
            "a@MAILINATOR.COM",
            "a@guerrillamailblock.com",
            "a@ok.33mail.com",
            "a@33mail.com.",
        ] {
            assert!(is_disposable(address), "{address}");
        }
        for address in [
            "a@example.com",
            "a@gmail.com",
            "a@mailinator.com.example",
            "a",
        ] {
            assert!(!is_disposable(address), "{address}");
        }
    }
}
