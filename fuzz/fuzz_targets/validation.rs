//! Validation never panics, and the email rule (regex-lite) agrees with a hand-written
//! reading of `^[^\s@]+@[^\s@]+\.[^\s@]+$` that uses no regex at all.
#![no_main]

use lathe_core::validation::{Fields, Interest, JS_WHITESPACE, is_valid_email, validate};
use libfuzzer_sys::fuzz_target;

/// Exactly one `@`, no JS white space, something before the `@`, and after it a `.`
/// with something on both sides.
fn reference(email: &str) -> bool {
    if email.chars().any(|c| JS_WHITESPACE.contains(&c)) || email.matches('@').count() != 1 {
        return false;
    }
    let (local, domain) = email.split_once('@').expect("one @");
    let domain: Vec<char> = domain.chars().collect();
    !local.is_empty() && (1..domain.len().saturating_sub(1)).any(|i| domain[i] == '.')
}

fuzz_target!(|input: (String, String, String, String, String, u8)| {
    let (name, email, company, role, message, interest) = input;
    assert_eq!(is_valid_email(&email), reference(&email), "{email:?}");
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
