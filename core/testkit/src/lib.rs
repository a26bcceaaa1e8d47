//! What lathe-core's property tests (core/tests) and its fuzz targets (fuzz/) both
//! check, written once: the form machine's invariants, as a checker that follows a run
//! event by event, and the email oracle, the `regex` crate running the very pattern the
//! hand-written rule stands for.

use std::sync::LazyLock;

use lathe_core::form::{
    DELIVERY_TIMEOUT_MS, Delivery, EditError, FormMachine, Notice, Phase, SUBMIT_DELAY_MS,
    SUBMITTING_LABEL, SubmitOutcome, THANK_YOU_MS,
};
use lathe_core::validation::{EMAIL_PATTERN, ErrorCode, Field, FieldError, FormValues, Interest};
use regex::Regex;

/// The email pattern as the `regex` crate runs it. Its Unicode `\s` is JavaScript's
/// `\s` plus U+0085 and minus U+FEFF, so the class adds and removes exactly those two.
pub fn email_oracle() -> &'static Regex {
    static ORACLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&EMAIL_PATTERN.replace(r"[^\s@]", r"[\x{85}[^\s@\x{FEFF}]]"))
            .expect("the oracle pattern is valid")
    });
    &ORACLE
}

/// Something that can happen to the form.
#[derive(Clone, Debug)]
pub enum Event {
    /// The visitor sets a field (an interest that is not one of the five is refused).
    Edit(Field, String),
    /// The visitor fills the required fields validly (if idle), then submits.
    SubmitValid,
    /// The visitor submits as the form is.
    Submit,
    /// This many milliseconds pass, then the machine is woken.
    Wait(u32),
    /// The machine is woken at exactly the time it asked for.
    WakeOnTime,
    /// The UI reports the current submit delivered (a sending form only acts on it).
    Delivered,
    /// The UI reports the current submit failed.
    Failed,
    /// The UI reports the current submit refused by the server for these fields.
    Refused(Vec<(Field, ErrorCode)>),
    /// A report arrives for an earlier submit: it must change nothing.
    StaleReport,
}

/// A form machine driven by [`Event`]s, checking after each one that it kept its
/// invariants: at most one submission in flight; no transition but idle → submitting →
/// submitted → idle, or, for a form that sends, submitting → idle on a failure; a
/// simulated form shows the panel only [`SUBMIT_DELAY_MS`] after a submit, a sending one
/// only on the report of that very submit's delivery (no reset without success); the
/// reset only [`THANK_YOU_MS`] after the panel, to an empty form; a failure (reported, or
/// no report in [`DELIVERY_TIMEOUT_MS`]) keeps everything typed and says so; stale
/// reports change nothing; "Submitting..." only while submitting; errors only while idle;
/// edits refused while busy; a wake-up asked for exactly when not idle, never in the past.
#[derive(Debug, Default)]
pub struct FormRun {
    form: FormMachine,
    now: f64,
    /// When the current phase began.
    phase_since: f64,
    /// Whether the event just applied was a delivery report for the current submit.
    reported_delivered: bool,
    /// Whether it was a failure report for the current submit.
    reported_failed: bool,
}

impl FormRun {
    /// A new, idle form at time 0, completing submits as the original site did.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new, idle form at time 0 whose submits the UI sends.
    pub fn sending() -> Self {
        Self {
            form: FormMachine::sending(),
            ..Self::default()
        }
    }

    /// The machine as it is now.
    pub fn form(&self) -> &FormMachine {
        &self.form
    }

    /// Applies `event`.
    ///
    /// # Errors
    /// The first invariant the machine broke, described.
    pub fn apply(&mut self, event: Event) -> Result<(), String> {
        let before = self.form.phase();
        let values_before = self.form.values().clone();
        self.reported_delivered = false;
        self.reported_failed = false;
        match event {
            Event::Edit(field, value) => {
                let result = self.form.set(field, &value);
                let expected_ok = before == Phase::Idle
                    && (field != Field::Interest || value.parse::<Interest>().is_ok());
                match (&result, before) {
                    (Err(EditError::Submitting), b) => {
                        check(b == Phase::Submitting, "a busy form names its phase")?;
                    }
                    (Err(EditError::Submitted), b) => {
                        check(b == Phase::Submitted, "a busy form names its phase")?;
                    }
                    (Err(EditError::UnknownInterest(_)), Phase::Idle) => {
                        check(!expected_ok, "a valid interest was refused")?;
                    }
                    (Ok(()), _) => check(expected_ok, "an edit was accepted while busy")?,
                    (Err(e), _) => return Err(format!("unexpected edit error {e:?}")),
                }
            }
            Event::SubmitValid | Event::Submit => {
                if matches!(event, Event::SubmitValid) && before == Phase::Idle {
                    for (field, value) in [
                        (Field::Name, "Ada"),
                        (Field::Email, "ada@example.com"),
                        (Field::Message, "Hi"),
                    ] {
                        self.form.set(field, value).map_err(|e| e.to_string())?;
                    }
                }
                let outcome = self.form.submit(self.now);
                check(
                    (outcome == SubmitOutcome::Ignored) == (before != Phase::Idle),
                    "a submit is ignored exactly when one is in flight",
                )?;
            }
            Event::Wait(ms) => {
                self.now += f64::from(ms);
                self.form.tick(self.now);
            }
            Event::WakeOnTime => {
                if let Some(at) = self.form.wake_at() {
                    check(at >= self.now, "never asks to be woken in the past")?;
                    self.now = at;
                }
                self.form.tick(self.now);
            }
            Event::Delivered => {
                let acted = self.form.delivered(self.form.attempt(), self.now);
                self.reported_delivered = acted;
                check(
                    acted == (before == Phase::Submitting && self.sends()),
                    "a delivery report acts exactly on a sending form's submit in flight",
                )?;
            }
            Event::Failed => {
                let acted = self.form.failed(self.form.attempt());
                self.reported_failed = acted;
                check(
                    acted == (before == Phase::Submitting && self.sends()),
                    "a failure report acts exactly on a sending form's submit in flight",
                )?;
            }
            Event::Refused(errors) => {
                let acted = self.form.refused(self.form.attempt(), &errors);
                self.reported_failed = acted;
                check(
                    acted == (before == Phase::Submitting && self.sends()),
                    "a refusal acts exactly on a sending form's submit in flight",
                )?;
                if acted {
                    let expected: Vec<_> = Field::ALL
                        .iter()
                        .filter_map(|&f| {
                            errors
                                .iter()
                                .filter(|&&(g, _)| g == f)
                                .find_map(|&(g, code)| FieldError::new(g, code))
                        })
                        .collect();
                    check(
                        self.form.errors() == expected.as_slice(),
                        "a refusal shows each field's first known error, in form order",
                    )?;
                }
            }
            Event::StaleReport => {
                let stale = self.form.attempt().wrapping_sub(1);
                let acted = self.form.delivered(stale, self.now)
                    || self.form.failed(stale)
                    || self
                        .form
                        .refused(stale, &[(Field::Name, ErrorCode::Required)]);
                check(!acted, "a report for an earlier submit changes nothing")?;
            }
        }
        self.check_transition(before, &values_before)
    }

    fn sends(&self) -> bool {
        self.form.delivery() == Delivery::Sent
    }

    fn check_transition(
        &mut self,
        before: Phase,
        values_before: &FormValues,
    ) -> Result<(), String> {
        let after = self.form.phase();
        let held = self.now - self.phase_since;
        match (before, after) {
            (Phase::Idle, Phase::Submitting) => self.phase_since = self.now,
            (Phase::Submitting, Phase::Submitted) => {
                if self.sends() {
                    check(self.reported_delivered, "no thank-you without a delivery")?;
                } else {
                    check(
                        held >= f64::from(SUBMIT_DELAY_MS),
                        "the panel only after the delay",
                    )?;
                }
                self.phase_since = self.now;
            }
            (Phase::Submitting, Phase::Idle) => {
                check(self.sends(), "only a sending form fails")?;
                check(
                    self.form.values() == values_before,
                    "a failure keeps everything typed",
                )?;
                check(
                    (self.form.notice() == Some(Notice::NotSent)) == self.form.errors().is_empty(),
                    "a failure says so: the notice, or the server's errors beneath their fields",
                )?;
                check(
                    self.reported_failed || held >= f64::from(DELIVERY_TIMEOUT_MS),
                    "no failure without a report before the timeout",
                )?;
            }
            (Phase::Submitted, Phase::Idle) => {
                check(
                    held >= f64::from(THANK_YOU_MS),
                    "the reset only after the panel's time",
                )?;
                check(
                    self.form.values() == &FormValues::default(),
                    "the reset empties the form",
                )?;
            }
            (a, b) => check(a == b, "no other transition exists")?,
        }
        check(
            (self.form.submit_label() == SUBMITTING_LABEL) == (after == Phase::Submitting),
            "\"Submitting...\" only while submitting",
        )?;
        check(
            self.form.errors().is_empty() || after == Phase::Idle,
            "errors only while idle",
        )?;
        check(
            self.form.wake_at().is_some() == (after != Phase::Idle),
            "a wake-up is due exactly when not idle",
        )
    }
}

fn check(holds: bool, invariant: &str) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(format!("broken: {invariant}"))
    }
}
