//! Any sequence of edits, submits and wake-ups keeps the form machine's invariants
//! (lathe-core-testkit's checker, which the property tests share).
#![no_main]

use arbitrary::Arbitrary;
use lathe_core::validation::{ErrorCode, Field};
use lathe_core_testkit::{Event, FormRun};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Input {
    Edit(u8, String),
    SubmitValid,
    Submit,
    Wait(u16),
    WakeOnTime,
    Delivered,
    Failed,
    Refused(Vec<(u8, bool)>),
    StaleReport,
}

fuzz_target!(|input: (bool, Vec<Input>)| {
    let (sending, inputs) = input;
    let mut run = if sending { FormRun::sending() } else { FormRun::new() };
    for input in inputs {
        let event = match input {
            Input::Edit(field, value) => {
                Event::Edit(Field::ALL[usize::from(field) % Field::ALL.len()], value)
            }
            Input::SubmitValid => Event::SubmitValid,
            Input::Submit => Event::Submit,
            Input::Wait(ms) => Event::Wait(ms.into()),
            Input::WakeOnTime => Event::WakeOnTime,
            Input::Delivered => Event::Delivered,
            Input::Failed => Event::Failed,
            Input::Refused(errors) => Event::Refused(
                errors
                    .into_iter()
                    .map(|(field, invalid)| {
                        let code = if invalid { ErrorCode::InvalidEmail } else { ErrorCode::Required };
                        (Field::ALL[usize::from(field) % Field::ALL.len()], code)
                    })
                    .collect(),
            ),
            Input::StaleReport => Event::StaleReport,
        };
        if let Err(broken) = run.apply(event) {
            panic!("{broken}");
        }
    }
});
