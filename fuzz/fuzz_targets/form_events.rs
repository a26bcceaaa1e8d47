//! Any sequence of edits, submits, wake-ups and reports (of sends and of proofs of work)
//! keeps the form machine's invariants (lathe-core-testkit's checker, which the property
//! tests share), for a form that simulates, one that sends, and one that proves its work.
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
    Solved,
    Unsolved,
    ProofNotRequired,
    ProofRefused,
}

fuzz_target!(|input: (u8, Vec<Input>)| {
    let (kind, inputs) = input;
    let mut run = match kind % 3 {
        0 => FormRun::new(),
        1 => FormRun::sending(),
        _ => FormRun::proving(),
    };
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
            Input::Solved => Event::Solved,
            Input::Unsolved => Event::Unsolved,
            Input::ProofNotRequired => Event::ProofNotRequired,
            Input::ProofRefused => Event::ProofRefused,
        };
        if let Err(broken) = run.apply(event) {
            panic!("{broken}");
        }
    }
});
