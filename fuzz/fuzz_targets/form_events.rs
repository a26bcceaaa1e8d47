//! Any sequence of edits, submits and wake-ups keeps the form machine's invariants.
#![no_main]

use arbitrary::Arbitrary;
use lathe_core::form::{FormMachine, Phase, SUBMIT_DELAY_MS, SUBMITTING_LABEL, THANK_YOU_MS};
use lathe_core::validation::{Field, Fields};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Event {
    Edit(u8, String),
    Submit,
    Wait(u16),
    WakeOnTime,
}

fuzz_target!(|events: Vec<Event>| {
    let mut form = FormMachine::new();
    let mut now = 0.0_f64;
    let mut since = 0.0_f64;
    for event in events {
        let before = form.phase();
        match event {
            Event::Edit(field, value) => {
                let field = Field::ALL[usize::from(field) % Field::ALL.len()];
                let _ = form.set(field, &value);
            }
            Event::Submit => {
                form.submit(now);
            }
            Event::Wait(ms) => {
                now += f64::from(ms);
                form.tick(now);
            }
            Event::WakeOnTime => {
                if let Some(at) = form.wake_at() {
                    now = at;
                }
                form.tick(now);
            }
        }
        let after = form.phase();
        match (before, after) {
            (Phase::Idle, Phase::Submitting) => since = now,
            (Phase::Submitting, Phase::Submitted) => {
                assert!(now - since >= f64::from(SUBMIT_DELAY_MS));
                since = now;
            }
            (Phase::Submitted, Phase::Idle) => {
                assert!(now - since >= f64::from(THANK_YOU_MS));
                assert_eq!(form.fields(), &Fields::default());
            }
            (a, b) => assert_eq!(a, b),
        }
        assert_eq!(
            form.submit_label() == SUBMITTING_LABEL,
            after == Phase::Submitting
        );
        assert!(form.errors().is_empty() || after == Phase::Idle);
        assert_eq!(form.wake_at().is_some(), after != Phase::Idle);
    }
});
