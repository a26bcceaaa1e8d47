//! Referrals: the code in a share link, and when two addresses are one person's mailbox.
//!
//! A code is random (the server draws [`CODE_BYTES`] bytes and writes them in base64url);
//! it says nothing about its entry. The page keeps the code it was opened with for the
//! visit and sends it with the sign-up; a code without the right shape is dropped here,
//! before anything is asked of the server, and never stops a sign-up.

/// Random bytes in a code: 72 bits, more than anyone can guess among a waitlist's codes.
pub const CODE_BYTES: usize = 9;
/// Characters in a code: [`CODE_BYTES`] in base64url, which needs no padding for 9 bytes.
pub const CODE_LENGTH: usize = CODE_BYTES / 3 * 4;

/// Whether `code` has a referral code's shape: [`CODE_LENGTH`] characters of base64url's
/// alphabet (letters, digits, `-` and `_`).
#[must_use]
pub fn is_code(code: &str) -> bool {
    code.len() == CODE_LENGTH
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The mailbox `address` delivers to, as the large mailbox providers compare addresses:
/// without regard to case, without a `+tag` after the local part, and at Gmail (and its
/// old name, googlemail.com) without the dots in the local part. Two addresses with the
/// same mailbox are one person: a friend with the referrer's own mailbox is not credited.
///
/// `address` is one validation accepted (one `@`, a domain after it); anything else is
/// compared as it is, in lower case.
#[must_use]
pub fn mailbox(address: &str) -> String {
    let lower = address.to_lowercase();
    let Some((local, domain)) = lower.rsplit_once('@') else {
        return lower;
    };
    let domain = domain.trim_end_matches('.');
    let local = match local.split_once('+') {
        Some((untagged, _)) if !untagged.is_empty() => untagged,
        _ => local,
    };
    if domain == "gmail.com" || domain == "googlemail.com" {
        format!("{}@gmail.com", local.replace('.', ""))
    } else {
        format!("{local}@{domain}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_twelve_characters_of_base64url() {
        assert_eq!(CODE_LENGTH, 12);
        assert!(is_code("AbC-_09xyzQW"));
        for not in [
            "",
            "AbC-_09xyzQ",
            "AbC-_09xyzQWE",
            "AbC+/09xyzQW",
            "AbC-_09xyzQ=",
            "AbC-_09xyzQé",
            "AbC-_09 yzQW",
        ] {
            assert!(!is_code(not), "{not:?}");
        }
    }

    #[test]
    fn one_mailbox_whatever_the_case_the_tag_and_gmails_dots() {
        for (a, b) in [
            ("Ada@Example.com", "ada@example.com"),
            ("ada+lathe@example.com", "ada@example.com"),
            ("ada+a+b@example.com", "ada@example.com"),
            ("a.d.a@gmail.com", "ada@gmail.com"),
            ("A.D.A+x@GoogleMail.com", "ada@gmail.com"),
            ("ada@example.com.", "ada@example.com"),
        ] {
            assert_eq!(mailbox(a), mailbox(b), "{a} and {b}");
        }
    }

    #[test]
    fn other_mailboxes_stay_apart() {
        for (a, b) in [
            ("a.da@example.com", "ada@example.com"),
            ("ada@example.com", "ada@example.org"),
            ("ada@gmail.com", "ada@gmail.co"),
            ("+ada@example.com", "@example.com"),
        ] {
            assert_ne!(mailbox(a), mailbox(b), "{a} and {b}");
        }
        assert_eq!(mailbox("+tag@example.com"), "+tag@example.com");
    }
}
