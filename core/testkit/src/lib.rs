//! What lathe-core's property tests (core/tests) and its fuzz targets (fuzz/) both
//! check, written once: the form machine's invariants, as a checker that follows a run
//! event by event, and the email oracle, the `regex` crate running the very pattern the
//! hand-written rule stands for.

use std::sync::LazyLock;

use std::collections::HashSet;

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
    /// The UI reports the round of proof of work the form asks for solved (a payload of
    /// its own); with no round asked for, a report for a round never asked.
    Solved,
    /// The UI reports that round unsolved (no challenge could be had).
    Unsolved,
    /// The UI reports that the server asks for no proof of work.
    ProofNotRequired,
    /// The server refuses the send under way for its proof of work (if one was sent).
    ProofRefused,
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
/// And for the sends the UI makes (taking each from the machine after every event, as
/// the UI does): only while submitting, each submit's attempt once, in order; a form with
/// proof of work sends only with a solution reported for a round it asked for, each
/// solution once, unless the server said it asks for none; a submit without its send
/// has a round being worked on; a refused proof retried once, then a failure.
#[derive(Debug, Default)]
pub struct FormRun {
    form: FormMachine,
    now: f64,
    /// When the current phase began.
    phase_since: f64,
    /// What the event just applied reported of the current submit, if it acted.
    reported: Option<Report>,
    /// The form's proofs of work, if its sends carry them.
    proofs: Option<Proofs>,
    /// The last attempt sent.
    last_sent: Option<u32>,
}

/// A report of how the current submit went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Report {
    Delivered,
    Failed,
}

/// What the run knows of a form's proofs of work.
#[derive(Debug, Default)]
struct Proofs {
    /// The UI reported that the server asks for none (until it refuses one).
    not_required: bool,
    /// Solutions reported, by the UI's count.
    solutions: u32,
    /// Solutions reported and not sent yet.
    unsent: HashSet<String>,
    /// Whether the current submit's proof was refused once already.
    refused_once: bool,
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

    /// A new, idle form at time 0 whose sends each carry a proof of work.
    pub fn proving() -> Self {
        Self {
            form: FormMachine::sending_with_proof(),
            proofs: Some(Proofs::default()),
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
        self.reported = None;
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
                if let Some(proofs) = &mut self.proofs
                    && outcome == SubmitOutcome::Started
                {
                    proofs.refused_once = false;
                }
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
                self.reported = acted.then_some(Report::Delivered);
                check(
                    acted == (before == Phase::Submitting && self.sent_current()),
                    "a delivery report acts exactly on a sending form's submit in flight, once sent",
                )?;
            }
            Event::Failed => {
                let acted = self.form.failed(self.form.attempt());
                self.reported = acted.then_some(Report::Failed);
                check(
                    acted == (before == Phase::Submitting && self.sent_current()),
                    "a failure report acts exactly on a sending form's submit in flight, once sent",
                )?;
            }
            Event::Refused(errors) => self.refuse(&errors, before)?,
            Event::StaleReport => {
                let stale = self.form.attempt().wrapping_sub(1);
                let acted = self.form.delivered(stale, self.now)
                    || self.form.failed(stale)
                    || self
                        .form
                        .refused(stale, &[(Field::Name, ErrorCode::Required)]);
                check(!acted, "a report for an earlier submit changes nothing")?;
            }
            Event::Solved | Event::Unsolved | Event::ProofNotRequired => {
                self.report_proof(&event, before)?;
            }
            Event::ProofRefused => self.refuse_proof(before)?,
        }
        self.take_send()?;
        self.check_transition(before, &values_before)
    }

    /// The UI reports the current submit refused for `errors`.
    fn refuse(&mut self, errors: &[(Field, ErrorCode)], before: Phase) -> Result<(), String> {
        let acted = self.form.refused(self.form.attempt(), errors);
        self.reported = acted.then_some(Report::Failed);
        check(
            acted == (before == Phase::Submitting && self.sent_current()),
            "a refusal acts exactly on a sending form's submit in flight, once sent",
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
        Ok(())
    }

    /// A report of the round the form asks for, or, with none, of one never asked.
    fn report_proof(&mut self, event: &Event, before: Phase) -> Result<(), String> {
        let asked = self.form.state().proof_round;
        // A form without proof of work has none to record: its reports must be ignored.
        let mut none = Proofs::default();
        let proofs = self.proofs.as_mut().unwrap_or(&mut none);
        let round = asked.unwrap_or(u32::MAX);
        let acted = match event {
            Event::Solved => {
                proofs.solutions += 1;
                let payload = format!("proof-{}", proofs.solutions);
                let acted = self.form.solved(round, payload.clone());
                if acted {
                    proofs.unsent.insert(payload);
                }
                acted
            }
            Event::Unsolved => {
                let acted = self.form.unsolved(round);
                if acted && before == Phase::Submitting {
                    self.reported = Some(Report::Failed);
                }
                acted
            }
            _ => {
                let acted = self.form.proof_not_required(round);
                proofs.not_required |= acted;
                acted
            }
        };
        check(
            acted == asked.is_some(),
            "a proof report acts exactly on the round asked for",
        )?;
        check(
            !acted || self.form.state().proof_round.is_none(),
            "a reported round is no longer asked for",
        )
    }

    /// The server refuses the current send's proof, if a send is under way.
    fn refuse_proof(&mut self, before: Phase) -> Result<(), String> {
        let attempt = self.form.attempt();
        if before != Phase::Submitting || self.last_sent != Some(attempt) {
            return Ok(());
        }
        check(
            self.form.proof_refused(attempt, self.now),
            "a refused proof is acted on",
        )?;
        let Some(proofs) = &mut self.proofs else {
            self.reported = Some(Report::Failed);
            return check(
                self.form.phase() == Phase::Idle,
                "a form without proof of work fails when one is asked for",
            );
        };
        proofs.not_required = false;
        check(
            self.form.state().proof_round.is_some(),
            "a refused proof asks for a new one",
        )?;
        if proofs.refused_once {
            self.reported = Some(Report::Failed);
            check(
                self.form.phase() == Phase::Idle,
                "a second refused proof ends the submit",
            )
        } else {
            proofs.refused_once = true;
            check(
                self.form.phase() == Phase::Submitting && self.form.attempt() == attempt + 1,
                "a first refused proof is retried as a new attempt",
            )
        }
    }

    /// Takes the send the machine queued, as the UI does after every event, and checks it.
    fn take_send(&mut self) -> Result<(), String> {
        if let Some(out) = self.form.take_send() {
            check(self.sends(), "only a sending form sends")?;
            check(
                self.form.phase() == Phase::Submitting,
                "a send only while submitting",
            )?;
            check(
                out.attempt == self.form.attempt()
                    && self.last_sent.is_none_or(|l| out.attempt > l),
                "each attempt sent once, the current one",
            )?;
            self.last_sent = Some(out.attempt);
            match out.altcha {
                Some(payload) => check(
                    self.proofs
                        .as_mut()
                        .is_some_and(|p| p.unsent.remove(&payload)),
                    "a proof sent is a solution reported, sent once",
                )?,
                None => check(
                    self.proofs.as_ref().is_none_or(|p| p.not_required),
                    "no send without its proof",
                )?,
            }
        }
        let proving = self.proofs.is_some();
        check(
            proving || self.form.state().proof_round.is_none(),
            "only a form with proof of work asks for it",
        )?;
        let waiting =
            self.form.phase() == Phase::Submitting && self.last_sent != Some(self.form.attempt());
        check(
            !(proving && waiting) || self.form.state().proof_round.is_some(),
            "a submit waiting for its proof has one asked for",
        )
    }

    fn sends(&self) -> bool {
        self.form.delivery() == Delivery::Sent
    }

    /// Whether the current submit's send went out (the UI took it).
    fn sent_current(&self) -> bool {
        self.sends() && self.last_sent == Some(self.form.attempt())
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
                    check(
                        self.reported == Some(Report::Delivered),
                        "no thank-you without a delivery",
                    )?;
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
                    self.reported == Some(Report::Failed) || held >= f64::from(DELIVERY_TIMEOUT_MS),
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
