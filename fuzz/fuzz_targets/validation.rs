//! Validation never panics, and the email rule (written out by hand) agrees with the
//! `regex` crate running `^[^\s@]+@[^\s@]+\.[^\s@]+$` (lathe-core-testkit's oracle,
//! which the property tests share).
#![no_main]

use lathe_core::validation::{Field, FormValues, Interest, is_valid_email, validate};
use lathe_core_testkit::email_oracle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, String, String, String, String, u8)| {
    let (name, email, company, role, message, interest) = input;
    assert_eq!(
        is_valid_email(&email),
        email_oracle().is_match(&email),
        "{email:?}"
    );
    let fields = FormValues {
        name,
        email,
        company,
        role,
        message,
        interest: Interest::ALL[usize::from(interest) % Interest::ALL.len()],
    };
    assert!(validate(&fields).len() < Field::ALL.len());
});
