//! The email rule (written out, no regex engine) agrees with the `regex` crate running the
//! pattern it stands for (lathe-core-testkit's oracle, which the fuzz target shares).
#![cfg(not(target_arch = "wasm32"))]

use lathe_core::validation::{JS_WHITESPACE, is_valid_email};
use lathe_core_testkit::email_oracle as oracle;
use proptest::prelude::*;

/// Characters that matter to the rule, weighted towards the interesting ones.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select(vec!['a', 'z', '0', '@', '.', '-', '+', '_']),
        2 => prop::sample::select(JS_WHITESPACE.to_vec()),
        1 => prop::sample::select(vec!['\u{85}', '\u{180E}', '\u{200B}', '\u{0}', '\u{1F600}', '\u{5D0}', '\u{202E}']),
        1 => any::<char>(),
    ]
}

fn email_like() -> impl Strategy<Value = String> {
    prop::collection::vec(interesting_char(), 0..24).prop_map(|cs| cs.into_iter().collect())
}

#[test]
fn the_oracle_treats_white_space_as_javascript_does() {
    let re = oracle();
    for c in JS_WHITESPACE {
        assert!(!re.is_match(&format!("a{c}@b.c")), "U+{:04X}", u32::from(c));
    }
    assert!(re.is_match("a\u{85}@b.c"));
    assert!(re.is_match("a\u{180E}@b.c"));
}

#[test]
fn every_js_white_space_character_anywhere_makes_an_address_invalid() {
    for c in JS_WHITESPACE {
        for at in 0..="a@b.c".len() {
            let mut s = String::from("a@b.c");
            s.insert(at, c);
            assert!(!is_valid_email(&s), "{s:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn the_rule_agrees_with_regex(s in email_like()) {
        prop_assert_eq!(is_valid_email(&s), oracle().is_match(&s), "{:?}", s);
    }

    #[test]
    fn the_rule_agrees_with_regex_on_address_shaped_strings(
        local in email_like(), domain in email_like(), tld in email_like()
    ) {
        let s = format!("{local}@{domain}.{tld}");
        prop_assert_eq!(is_valid_email(&s), oracle().is_match(&s), "{:?}", s);
    }
}
