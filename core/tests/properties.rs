//! Property tests: no input panics validation or the form machine, and random event
//! sequences keep the machine's invariants (checked by lathe-core-testkit, which the
//! fuzz targets share).
#![cfg(not(target_arch = "wasm32"))]

use lathe_core::line::{self, Standing};
use lathe_core::validation::{
    EMAIL_INVALID, EMAIL_REQUIRED, ErrorCode, Field, FormValues, INVISIBLE_CHARACTERS, Interest,
    JS_WHITESPACE, MESSAGE_REQUIRED, NAME_REQUIRED, normalize_email, validate,
};
use lathe_core_testkit::{Event, FormRun};
use proptest::prelude::*;

/// The server's allocator here too: the tests run side by side on threads, and musl's
/// malloc (the tests' static build) serialises them on one lock and maps and unmaps its
/// larger blocks. With it, this program took 12 s and 21 CPU-seconds, half of them in the
/// kernel (futex waits, mmap); with mimalloc, 6 s and 11.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Strings a visitor (or a paste) might produce, weighted towards the awkward ones.
fn visitor_text() -> impl Strategy<Value = String> {
    let awkward = prop_oneof![
        prop::sample::select(JS_WHITESPACE.to_vec()),
        prop::sample::select(vec![
            '\u{0}', '\u{7}', '\u{1B}', '\u{7F}', '\u{85}', '\u{180E}'
        ]),
        // Right-to-left text and bidi controls.
        prop::sample::select(vec!['ש', 'ل', '\u{200F}', '\u{202E}', '\u{2067}']),
        // Emoji, with joiners and variation selectors.
        prop::sample::select(vec!['😀', '👩', '\u{200D}', '💻', '\u{FE0F}', '🏳']),
        Just('@'),
        Just('.'),
        any::<char>(),
    ];
    prop::collection::vec(
        prop_oneof![3 => awkward, 2 => prop::char::range('a', 'z')],
        0..64,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn fields() -> impl Strategy<Value = FormValues> {
    (
        visitor_text(),
        visitor_text(),
        visitor_text(),
        visitor_text(),
        visitor_text(),
        prop::sample::select(Interest::ALL.to_vec()),
    )
        .prop_map(
            |(name, email, company, role, message, interest)| FormValues {
                name,
                email,
                company,
                role,
                message,
                interest,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn validation_never_panics_and_only_says_what_the_spec_says(fields in fields()) {
        let errors = validate(&fields);
        prop_assert!(errors.len() < Field::ALL.len(), "never the interest");
        let order: Vec<Field> = errors.iter().map(|e| e.field).collect();
        let mut sorted = order.clone();
        sorted.sort_by_key(|f| Field::ALL.iter().position(|g| g == f));
        sorted.dedup();
        prop_assert_eq!(&order, &sorted, "one error per field, in form order");
        for e in &errors {
            prop_assert!([NAME_REQUIRED, EMAIL_REQUIRED, EMAIL_INVALID, MESSAGE_REQUIRED,
                INVISIBLE_CHARACTERS].contains(&e.message));
        }
    }

    /// The server compares addresses in NFC; the browser validates them as typed. Both
    /// must reach the same verdict.
    #[test]
    fn an_address_is_valid_as_typed_exactly_when_it_is_in_nfc(fields in fields()) {
        let normalized = FormValues { email: normalize_email(&fields.email), ..fields.clone() };
        prop_assert_eq!(validate(&fields), validate(&normalized));
    }
}

#[test]
fn a_one_megabyte_message_is_validated() {
    let mut fields = FormValues {
        name: "Ada".into(),
        email: "ada@example.com".into(),
        message: "😀 ש x\n\u{2028}".repeat((1 << 20) / 8),
        ..FormValues::default()
    };
    assert!(fields.message.len() >= 1 << 20);
    assert!(validate(&fields).is_empty());
    fields.message.push('\u{0}');
    assert_eq!(validate(&fields)[0].message, INVISIBLE_CHARACTERS);
    fields.message.pop();
    fields.email = format!("{}@example.com", "a".repeat(1 << 20));
    assert_eq!(
        validate(&fields)[0].message,
        EMAIL_INVALID,
        "longer than SMTP allows"
    );
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        3 => (prop::sample::select(Field::ALL.to_vec()), visitor_text())
            .prop_map(|(f, v)| Event::Edit(f, v)),
        1 => prop::sample::select(Interest::ALL.to_vec())
            .prop_map(|i| Event::Edit(Field::Interest, i.as_str().to_owned())),
        2 => Just(Event::SubmitValid),
        2 => Just(Event::Submit),
        3 => prop_oneof![0..10u32, 1990..2010u32, 4990..5010u32, 9990..10_010u32, 0..20_000u32].prop_map(Event::Wait),
        2 => Just(Event::WakeOnTime),
        1 => Just(Event::Delivered),
        1 => Just(Event::Failed),
        1 => prop::collection::vec(
            (
                prop::sample::select(Field::ALL.to_vec()),
                prop::sample::select(vec![ErrorCode::Required, ErrorCode::InvalidEmail]),
            ),
            0..4,
        )
        .prop_map(Event::Refused),
        1 => Just(Event::StaleReport),
        2 => Just(Event::Solved),
        1 => Just(Event::Unsolved),
        1 => Just(Event::ProofNotRequired),
        1 => Just(Event::ProofRefused),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn random_event_sequences_keep_the_invariants(
        kind in 0..3u8,
        events in prop::collection::vec(event(), 1..60),
    ) {
        let mut run = match kind {
            0 => FormRun::new(),
            1 => FormRun::sending(),
            _ => FormRun::proving(),
        };
        for event in events {
            if let Err(broken) = run.apply(event) {
                prop_assert!(false, "{}", broken);
            }
        }
    }
}

/// A line: distinct confirmation numbers (some missing, as invited entries leave gaps),
/// each with a few credits or none.
fn line() -> impl Strategy<Value = Vec<Standing>> {
    prop::collection::btree_set(1_u64..400, 1..60).prop_flat_map(|numbers| {
        let n = numbers.len();
        (
            Just(numbers),
            prop::collection::vec(prop_oneof![3 => Just(0_u32), 1 => 0_u32..12], n),
        )
            .prop_map(|(numbers, credits)| {
                numbers
                    .into_iter()
                    .zip(credits)
                    .map(|(confirmed, credits)| Standing { confirmed, credits })
                    .collect()
            })
    })
}

fn places_of(line: &[Standing], places: u32) -> Vec<usize> {
    line.iter().map(|s| line::place(*s, line, places)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn places_are_one_to_n_each_once_whatever_order_the_line_is_given_in(
        line in line(),
        places in 0_u32..20,
        seed in any::<u64>(),
    ) {
        let mut got = places_of(&line, places);
        // Deterministic: the same places from the line given in another order.
        let mut shuffled: Vec<(Standing, usize)> = line.iter().copied().zip(got.iter().copied()).collect();
        let mut state = seed;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        let again: Vec<Standing> = shuffled.iter().map(|(s, _)| *s).collect();
        for (i, (_, place)) in shuffled.iter().enumerate() {
            prop_assert_eq!(line::place(again[i], &again, places), *place);
        }
        // Total: 1 to n, each once, and `order` lists the entries by place.
        got.sort_unstable();
        prop_assert_eq!(got, (1..=line.len()).collect::<Vec<_>>());
        let mut ordered = line.clone();
        line::order(&mut ordered, places);
        for (i, s) in ordered.iter().enumerate() {
            prop_assert_eq!(line::place(*s, &line, places), i + 1);
        }
    }

    #[test]
    fn without_credits_the_line_is_the_order_of_confirmation(line in line(), places in 0_u32..20) {
        let line: Vec<Standing> = line.into_iter().map(|s| Standing { credits: 0, ..s }).collect();
        for s in &line {
            let before = line.iter().filter(|o| o.confirmed < s.confirmed).count();
            prop_assert_eq!(line::place(*s, &line, places), before + 1);
        }
    }

    #[test]
    fn a_credit_moves_only_its_referrer_forward_and_others_back_at_most_one(
        line in line(),
        places in 0_u32..20,
        pick in any::<prop::sample::Index>(),
    ) {
        let referrer = pick.index(line.len());
        let before = places_of(&line, places);
        let mut credited = line.clone();
        credited[referrer].credits += 1;
        let after = places_of(&credited, places);
        prop_assert!(after[referrer] <= before[referrer]);
        // It passes exactly the entries whose keys lie between its new key and its old.
        let (old, new) = (line::key(line[referrer], places), line::key(credited[referrer], places));
        let passed = line.iter().filter(|o| (new..old).contains(&line::key(**o, places))).count();
        prop_assert_eq!(before[referrer] - after[referrer], passed);
        for i in (0..line.len()).filter(|i| *i != referrer) {
            prop_assert!(after[i] == before[i] || after[i] == before[i] + 1);
        }
    }
}
