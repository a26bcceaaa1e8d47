//! Validation never panics, and the email rule (written out by hand) agrees with the
//! `regex` crate running `^[^\s@]+@[^\s@]+\.[^\s@]+$`, its `\s` made JavaScript's (see
//! core/tests/email_oracle.rs).
#![no_main]

use lathe_core::validation::{EMAIL_PATTERN, Fields, Interest, is_valid_email, validate};
use libfuzzer_sys::fuzz_target;
use regex::Regex;
use std::sync::LazyLock;

static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = EMAIL_PATTERN.replace(r"[^\s@]", r"[\x{85}[^\s@\x{FEFF}]]");
    Regex::new(&pattern).expect("the oracle pattern is valid")
});

fuzz_target!(|input: (String, String, String, String, String, u8)| {
    let (name, email, company, role, message, interest) = input;
    assert_eq!(
        is_valid_email(&email),
        REFERENCE.is_match(&email),
        "{email:?}"
    );
    let fields = Fields {
        name,
        email,
        company,
        role,
        message,
        interest: Interest::ALL[usize::from(interest) % Interest::ALL.len()],
    };
    assert!(validate(&fields).len() <= 3);
});
