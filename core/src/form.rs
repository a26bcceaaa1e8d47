//! The waitlist form's state machine (spec §4): idle → submitting → submitted → idle.
//!
//! A form that sends can also carry a proof of work (solved by `lathe-core-solver`) with
//! each send: the machine owns the rule (asked for at the first edit, no send without one,
//! a refused one replaced and the send retried once); the UI fetches and solves the
//! challenges it asks for, and sends what [`FormMachine::take_send`] gives it.
//!
//! Time is an input. The machine never reads a clock: the caller passes `now` in
//! milliseconds (any monotonic clock) and asks [`FormMachine::wake_at`] when to call
//! [`FormMachine::tick`] next.

use serde::Serialize;
use thiserror::Error;
#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

use crate::validation::{
    ErrorCode, Field, FieldError, FieldSpec, FormUpdate, FormValues, Interest, MESSAGE_ROWS,
    UnknownInterest, validate,
};

/// The simulated wait between a valid submit and the thank-you panel, in ms.
pub const SUBMIT_DELAY_MS: u32 = 2000;
/// How long the thank-you panel stays before the form is reset, in ms.
pub const THANK_YOU_MS: u32 = 5000;
/// How long a sent form waits for the UI to report its delivery before it counts as
/// failed, in ms ([`Delivery::Sent`]).
pub const DELIVERY_TIMEOUT_MS: u32 = 10_000;
/// The submit button's label while idle.
pub const SUBMIT_LABEL: &str = "Request Early Access";
/// The submit button's label while submitting.
pub const SUBMITTING_LABEL: &str = "Submitting...";

/// Where the form is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum Phase {
    /// The form is shown and editable.
    #[default]
    Idle,
    /// A valid submit is waiting out [`SUBMIT_DELAY_MS`].
    Submitting,
    /// The thank-you panel is shown for [`THANK_YOU_MS`].
    Submitted,
}

impl Phase {
    /// The phase's name at the boundary.
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Submitting => "submitting",
            Phase::Submitted => "submitted",
        }
    }
}

/// How a valid submit is completed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Delivery {
    /// The original site's behaviour (spec §4, §7): nothing is sent, and the thank-you
    /// panel follows [`SUBMIT_DELAY_MS`] later.
    #[default]
    Simulated,
    /// The UI sends the form and reports the outcome with [`FormMachine::delivered`] or
    /// [`FormMachine::failed`]; no report within [`DELIVERY_TIMEOUT_MS`] is a failure.
    Sent,
}

/// Something the form says apart from field errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum Notice {
    /// The last submit could not be delivered; everything typed is still there.
    NotSent,
}

/// What a call to [`FormMachine::submit`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum SubmitOutcome {
    /// The form was valid: now submitting, errors cleared.
    Started,
    /// The form was invalid: still idle, with its errors in [`FormMachine::errors`].
    Invalid,
    /// The form was not idle (a submission is already under way): nothing changed.
    Ignored,
}

/// A change the machine refuses. Each is the caller's mistake, not the visitor's.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EditError {
    /// Fields can be edited only while idle, not while submitting...
    #[error("the form cannot be edited while it is submitting")]
    Submitting,
    /// ...nor while the thank-you panel is shown.
    #[error("the form cannot be edited while the thank-you panel is shown")]
    Submitted,
    /// The interest is not one of the five.
    #[error(transparent)]
    UnknownInterest(#[from] UnknownInterest),
}

impl EditError {
    /// Why a form in `phase` cannot be edited, if it cannot.
    const fn busy(phase: Phase) -> Option<EditError> {
        match phase {
            Phase::Idle => None,
            Phase::Submitting => Some(EditError::Submitting),
            Phase::Submitted => Some(EditError::Submitted),
        }
    }
}

/// Where a form's proof of work is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Proof {
    /// None asked for yet: the first edit asks.
    Unasked,
    /// The UI is fetching and solving round `n` ([`FormState::proof_round`]).
    Solving(u32),
    /// Solved: the `altcha` payload the next send carries.
    Ready(String),
    /// Carried by the send under way: replaced if that send comes back undelivered.
    Spent,
    /// The server asks for none (it has no challenges to give).
    NotRequired,
}

/// A send the UI is to make now ([`FormMachine::take_send`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify), tsify(missing_as_null))]
pub struct Outgoing {
    /// The submit's number, to report its outcome with.
    pub attempt: u32,
    /// The proof of work it carries, if the form has one: the `altcha` field.
    pub altcha: Option<String>,
}

/// Everything the form's UI renders, at one moment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify), tsify(missing_as_null))]
pub struct FormState {
    /// Where the form is.
    pub phase: Phase,
    /// What the visitor has typed.
    pub values: FormValues,
    /// The errors of the last invalid submit, in form order; empty unless idle.
    pub errors: Vec<FieldError>,
    /// The submit button's label.
    pub submit_label: &'static str,
    /// When [`FormMachine::tick`] should next be called (on the clock `submit` was given).
    pub wake_at: Option<f64>,
    /// Set when the last submit could not be delivered ([`Delivery::Sent`] only).
    pub notice: Option<Notice>,
    /// The round of proof of work the UI is to fetch and solve now, if any: report it
    /// with [`FormMachine::solved`], [`FormMachine::unsolved`] or
    /// [`FormMachine::proof_not_required`].
    pub proof_round: Option<u32>,
}

/// The form's fixed values (spec §3, §4, §5 and §9), for a UI to render from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify), tsify(missing_as_null))]
pub struct FormConstants {
    /// The simulated wait before the thank-you panel, in ms.
    pub submit_delay_ms: u32,
    /// How long the thank-you panel stays, in ms.
    pub thank_you_ms: u32,
    /// How long a request to the server may take before it counts as failed, in ms
    /// ([`DELIVERY_TIMEOUT_MS`]): the form's sends, and the requests of the pages its
    /// emails link to.
    pub delivery_timeout_ms: u32,
    /// Rows of the message text area.
    pub message_rows: u32,
    /// The field table, in the order the form shows the fields.
    pub fields: [FieldSpec; Field::ALL.len()],
    /// The interests, in the order the form lists them.
    pub interests: [Interest; Interest::ALL.len()],
    /// The submit button's label while idle.
    pub submit_label: &'static str,
    /// The submit button's label while submitting.
    pub submitting_label: &'static str,
    /// A new form's state: what a page shows before the core has loaded.
    pub initial: FormState,
}

impl FormConstants {
    /// The constants, from the consts the rules use.
    pub fn new() -> Self {
        Self {
            submit_delay_ms: SUBMIT_DELAY_MS,
            thank_you_ms: THANK_YOU_MS,
            delivery_timeout_ms: DELIVERY_TIMEOUT_MS,
            message_rows: MESSAGE_ROWS,
            fields: Field::ALL.map(Field::spec),
            interests: Interest::ALL,
            submit_label: SUBMIT_LABEL,
            submitting_label: SUBMITTING_LABEL,
            initial: FormMachine::new().state(),
        }
    }
}

impl Default for FormConstants {
    fn default() -> Self {
        Self::new()
    }
}

/// The form: what was typed, where it is, its errors and when it next changes.
#[derive(Clone, Debug, Default)]
pub struct FormMachine {
    values: FormValues,
    phase: Phase,
    errors: Vec<FieldError>,
    wake_at: Option<f64>,
    delivery: Delivery,
    /// The number of the last valid submit: a report for any other is stale.
    attempt: u32,
    notice: Option<Notice>,
    /// The proof of work, for a form that sends with one.
    proof: Option<Proof>,
    /// The last round of proof of work asked for: a report for another is stale.
    round: u32,
    /// The send the UI is to make.
    outbox: Option<Outgoing>,
    /// The submit under way waits for its proof of work.
    awaiting_proof: bool,
    /// The submit under way was already retried with a new proof.
    retried: bool,
}

impl FormMachine {
    /// An idle, empty form with interest `general`, completing submits as the original
    /// site did ([`Delivery::Simulated`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// An idle, empty form whose valid submits the UI sends ([`Delivery::Sent`]).
    pub fn sending() -> Self {
        Self {
            delivery: Delivery::Sent,
            ..Self::default()
        }
    }

    /// A form that sends, each send carrying a proof of work: the first edit asks for one
    /// ([`FormState::proof_round`]).
    pub fn sending_with_proof() -> Self {
        Self {
            proof: Some(Proof::Unasked),
            ..Self::sending()
        }
    }

    /// How this form's submits are completed.
    pub fn delivery(&self) -> Delivery {
        self.delivery
    }

    /// The number of the last valid submit, to report its outcome with.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Set when the last submit could not be delivered.
    pub fn notice(&self) -> Option<Notice> {
        self.notice
    }

    /// What the visitor has typed.
    pub fn values(&self) -> &FormValues {
        &self.values
    }

    /// Where the form is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The errors of the last invalid submit; empty unless idle.
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// When [`FormMachine::tick`] should next be called, or `None` when nothing is due.
    pub fn wake_at(&self) -> Option<f64> {
        self.wake_at
    }

    /// The submit button's label.
    pub fn submit_label(&self) -> &'static str {
        if self.phase == Phase::Submitting {
            SUBMITTING_LABEL
        } else {
            SUBMIT_LABEL
        }
    }

    /// A snapshot of everything the UI renders.
    pub fn state(&self) -> FormState {
        FormState {
            phase: self.phase,
            values: self.values.clone(),
            errors: self.errors.clone(),
            submit_label: self.submit_label(),
            wake_at: self.wake_at,
            notice: self.notice,
            proof_round: match self.proof {
                Some(Proof::Solving(round)) => Some(round),
                _ => None,
            },
        }
    }

    /// Sets every value `update` holds, at once. Refused unless idle.
    ///
    /// # Errors
    /// [`EditError::Submitting`] or [`EditError::Submitted`] unless idle; then nothing changes.
    pub fn update(&mut self, update: FormUpdate) -> Result<(), EditError> {
        if let Some(busy) = EditError::busy(self.phase) {
            return Err(busy);
        }
        let before = self.values.clone();
        self.values.apply(update);
        if self.values != before {
            self.touched();
        }
        Ok(())
    }

    /// Sets one text field, or the interest. Refused unless idle.
    ///
    /// # Errors
    /// [`EditError::Submitting`] or [`EditError::Submitted`] unless idle; [`EditError::UnknownInterest`] for an interest
    /// that is not one of the five. Either way nothing changes.
    pub fn set(&mut self, field: Field, value: &str) -> Result<(), EditError> {
        if let Some(busy) = EditError::busy(self.phase) {
            return Err(busy);
        }
        let slot = match field {
            Field::Name => &mut self.values.name,
            Field::Email => &mut self.values.email,
            Field::Company => &mut self.values.company,
            Field::Role => &mut self.values.role,
            Field::Message => &mut self.values.message,
            Field::Interest => {
                let interest = value.parse::<Interest>()?;
                if interest != self.values.interest {
                    self.values.interest = interest;
                    self.touched();
                }
                return Ok(());
            }
        };
        if slot != value {
            value.clone_into(slot);
            self.touched();
        }
        Ok(())
    }

    /// The visitor changed something: the first change asks for a proof of work.
    fn touched(&mut self) {
        if self.proof == Some(Proof::Unasked) {
            self.ask_proof();
        }
    }

    /// Asks the UI for a new round of proof of work.
    fn ask_proof(&mut self) {
        self.round = self.round.wrapping_add(1);
        self.proof = Some(Proof::Solving(self.round));
    }

    /// Submits at time `now`: valid data starts the simulated wait, invalid data stays
    /// idle with errors, and a submit while not idle is ignored. So is a submit at a
    /// non-finite time, whose deadline would never come.
    pub fn submit(&mut self, now: f64) -> SubmitOutcome {
        if self.phase != Phase::Idle || !now.is_finite() {
            return SubmitOutcome::Ignored;
        }
        let errors = validate(&self.values);
        if errors.is_empty() {
            self.errors.clear();
            self.notice = None;
            self.phase = Phase::Submitting;
            self.attempt = self.attempt.wrapping_add(1);
            let wait = match self.delivery {
                Delivery::Simulated => SUBMIT_DELAY_MS,
                Delivery::Sent => DELIVERY_TIMEOUT_MS,
            };
            self.wake_at = Some(now + f64::from(wait));
            self.retried = false;
            self.queue_send();
            SubmitOutcome::Started
        } else {
            self.errors = errors;
            SubmitOutcome::Invalid
        }
    }

    /// Puts the submit under way in the outbox, with its proof of work; without one yet,
    /// it waits for it (asking for it if nobody has).
    fn queue_send(&mut self) {
        if self.delivery != Delivery::Sent {
            return;
        }
        let altcha = match self.proof.take() {
            None => None,
            Some(Proof::NotRequired) => {
                self.proof = Some(Proof::NotRequired);
                None
            }
            Some(Proof::Ready(payload)) => {
                self.proof = Some(Proof::Spent);
                Some(payload)
            }
            Some(Proof::Solving(round)) => {
                self.proof = Some(Proof::Solving(round));
                self.awaiting_proof = true;
                return;
            }
            Some(Proof::Unasked | Proof::Spent) => {
                self.ask_proof();
                self.awaiting_proof = true;
                return;
            }
        };
        self.awaiting_proof = false;
        self.outbox = Some(Outgoing {
            attempt: self.attempt,
            altcha,
        });
    }

    /// The send the UI is to make now, once: after a submit starts, or once its proof of
    /// work is solved. `None` when there is nothing to send.
    pub fn take_send(&mut self) -> Option<Outgoing> {
        self.outbox.take()
    }

    /// The UI's report that round `round` of proof of work is solved: the `altcha`
    /// payload. A submit waiting for it is queued ([`Self::take_send`]). False (ignored)
    /// for a round that is not the one asked for.
    pub fn solved(&mut self, round: u32, payload: String) -> bool {
        if self.proof != Some(Proof::Solving(round)) {
            return false;
        }
        self.proof = Some(Proof::Ready(payload));
        if self.awaiting_proof {
            self.queue_send();
        }
        true
    }

    /// The UI's report that round `round` could not be solved (no challenge could be
    /// fetched, or it was not one to solve): the next edit asks again, and a submit
    /// waiting for it is not sent ([`Notice::NotSent`]). Ignored (false) as [`Self::solved`].
    pub fn unsolved(&mut self, round: u32) -> bool {
        if self.proof != Some(Proof::Solving(round)) {
            return false;
        }
        self.proof = Some(Proof::Unasked);
        if self.awaiting_proof {
            self.awaiting_proof = false;
            self.back_to_idle_not_sent();
        }
        true
    }

    /// The UI's report that the server asks for no proof of work (it issues no
    /// challenges): sends go without one. Ignored (false) as [`Self::solved`].
    pub fn proof_not_required(&mut self, round: u32) -> bool {
        if self.proof != Some(Proof::Solving(round)) {
            return false;
        }
        self.proof = Some(Proof::NotRequired);
        if self.awaiting_proof {
            self.queue_send();
        }
        true
    }

    /// The UI's report that the server refused submit `attempt`'s proof of work (missing,
    /// not valid, expired or used), at `now`: the first time, a new proof is asked for
    /// and the submit sent again with it, as a new attempt with its own deadline; the
    /// second time, idle with [`Notice::NotSent`]. A form without proof of work cannot
    /// give one: for it this is [`Self::failed`]. Ignored (false) as [`Self::delivered`].
    pub fn proof_refused(&mut self, attempt: u32, now: f64) -> bool {
        if !self.awaits(attempt) || !now.is_finite() {
            return false;
        }
        if self.proof.is_none() {
            self.back_to_idle_not_sent();
            return true;
        }
        if !matches!(self.proof, Some(Proof::Solving(_))) {
            self.ask_proof();
        }
        if self.retried {
            self.back_to_idle_not_sent();
        } else {
            self.retried = true;
            self.attempt = self.attempt.wrapping_add(1);
            self.wake_at = Some(now + f64::from(DELIVERY_TIMEOUT_MS));
            self.queue_send();
        }
        true
    }

    /// Advances to time `now`; returns whether anything changed.
    ///
    /// At most one step is taken per call, and the thank-you panel's time counts from
    /// the call that showed it, so a late wake-up (a throttled background tab) never
    /// skips the panel.
    pub fn tick(&mut self, now: f64) -> bool {
        match (self.phase, self.wake_at) {
            (Phase::Submitting, Some(due)) if now >= due => {
                match self.delivery {
                    Delivery::Simulated => self.show_thank_you(now),
                    // No report in time: the send counts as failed.
                    Delivery::Sent => self.back_to_idle_not_sent(),
                }
                true
            }
            (Phase::Submitted, Some(due)) if now >= due => {
                let proof = self.proof.take().map(|proof| match proof {
                    Proof::NotRequired => Proof::NotRequired,
                    _ => Proof::Unasked,
                });
                *self = Self {
                    delivery: self.delivery,
                    attempt: self.attempt,
                    round: self.round,
                    proof,
                    ..Self::default()
                };
                true
            }
            _ => false,
        }
    }

    /// The UI's report that submit number `attempt` was delivered, at `now`: the
    /// thank-you panel, for [`THANK_YOU_MS`]. Ignored (false) unless that submit is the
    /// one under way on a form that sends.
    pub fn delivered(&mut self, attempt: u32, now: f64) -> bool {
        if !self.awaits(attempt) || !now.is_finite() {
            return false;
        }
        self.show_thank_you(now);
        true
    }

    /// The UI's report that submit number `attempt` could not be delivered (no network,
    /// an error from the server): idle again with everything typed kept and
    /// [`Notice::NotSent`], ready for another try. Ignored (false) as [`Self::delivered`].
    pub fn failed(&mut self, attempt: u32) -> bool {
        if !self.awaits(attempt) {
            return false;
        }
        self.back_to_idle_not_sent();
        true
    }

    /// The UI's report that the server refused submit number `attempt` for these fields
    /// (its own run of the same rules, as `(field, code)` pairs): idle again, everything
    /// typed kept, each error beneath its field with the core's message. Pairs the rules
    /// never produce are dropped; if none is left, this is a plain [`Self::failed`].
    /// Ignored (false) as [`Self::delivered`].
    pub fn refused(&mut self, attempt: u32, errors: &[(Field, ErrorCode)]) -> bool {
        if !self.awaits(attempt) {
            return false;
        }
        // In form order, each field's first error the rules can produce, as `validate`
        // gives them.
        let mut known = Vec::new();
        for field in Field::ALL {
            let first = errors
                .iter()
                .filter(|&&(f, _)| f == field)
                .find_map(|&(f, code)| FieldError::new(f, code));
            known.extend(first);
        }
        if known.is_empty() {
            self.back_to_idle_not_sent();
        } else {
            self.phase = Phase::Idle;
            self.wake_at = None;
            self.errors = known;
            self.back_to_idle();
        }
        true
    }

    /// Whether submit `attempt` is the one under way, and sent: a report about a submit
    /// still waiting for its proof of work cannot be about its send.
    fn awaits(&self, attempt: u32) -> bool {
        self.delivery == Delivery::Sent
            && self.phase == Phase::Submitting
            && attempt == self.attempt
            && !self.awaiting_proof
    }

    fn show_thank_you(&mut self, now: f64) {
        self.outbox = None;
        self.phase = Phase::Submitted;
        self.wake_at = Some(now + f64::from(THANK_YOU_MS));
    }

    fn back_to_idle_not_sent(&mut self) {
        self.phase = Phase::Idle;
        self.wake_at = None;
        self.notice = Some(Notice::NotSent);
        self.back_to_idle();
    }

    /// A submit came back undelivered: nothing waits to be sent, and a proof of work it
    /// spent is replaced at once, for the visitor's next try.
    fn back_to_idle(&mut self) {
        self.outbox = None;
        self.awaiting_proof = false;
        if self.proof == Some(Proof::Spent) {
            self.ask_proof();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::ErrorCode;

    fn filled() -> FormMachine {
        let mut form = FormMachine::new();
        form.set(Field::Name, "Ada Lovelace").unwrap();
        form.set(Field::Email, "ada@example.com").unwrap();
        form.set(Field::Company, "Analytical Engines").unwrap();
        form.set(Field::Role, "CTO").unwrap();
        form.set(Field::Message, "Hello").unwrap();
        form.set(Field::Interest, "enterprise").unwrap();
        form
    }

    #[test]
    fn starts_idle_empty_with_interest_general() {
        let form = FormMachine::new();
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &FormValues::default());
        assert_eq!(form.values().interest, Interest::General);
        assert!(form.errors().is_empty());
        assert_eq!(form.wake_at(), None);
        assert_eq!(form.submit_label(), "Request Early Access");
    }

    #[test]
    fn invalid_submit_stays_idle_with_errors_and_keeps_the_input() {
        let mut form = FormMachine::new();
        form.set(Field::Email, "not-an-email").unwrap();
        assert_eq!(form.submit(0.0), SubmitOutcome::Invalid);
        assert_eq!(form.phase(), Phase::Idle);
        let codes: Vec<_> = form.errors().iter().map(|e| (e.field, e.code)).collect();
        assert_eq!(
            codes,
            vec![
                (Field::Name, ErrorCode::Required),
                (Field::Email, ErrorCode::InvalidEmail),
                (Field::Message, ErrorCode::Required)
            ]
        );
        assert_eq!(form.values().email, "not-an-email");
        assert_eq!(form.wake_at(), None);
        assert!(!form.tick(1e9));
    }

    #[test]
    fn valid_submit_clears_errors_and_submits_for_exactly_2000_ms() {
        let mut form = filled();
        form.set(Field::Name, "").unwrap();
        assert_eq!(form.submit(0.0), SubmitOutcome::Invalid);
        form.set(Field::Name, "Ada").unwrap();

        assert_eq!(form.submit(1000.0), SubmitOutcome::Started);
        assert_eq!(form.phase(), Phase::Submitting);
        assert!(form.errors().is_empty());
        assert_eq!(form.submit_label(), "Submitting...");
        assert_eq!(form.wake_at(), Some(3000.0));

        assert!(!form.tick(2999.0));
        assert_eq!(form.phase(), Phase::Submitting);
        assert!(form.tick(3000.0));
        assert_eq!(form.phase(), Phase::Submitted);
        assert_eq!(form.submit_label(), "Request Early Access");
    }

    #[test]
    fn the_thank_you_panel_stays_exactly_5000_ms_then_the_form_is_reset() {
        let mut form = filled();
        form.submit(0.0);
        form.tick(2000.0);
        assert_eq!(form.wake_at(), Some(7000.0));
        assert!(!form.tick(6999.0));
        assert_eq!(form.phase(), Phase::Submitted);
        assert!(form.tick(7000.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &FormValues::default());
        assert_eq!(form.values().interest, Interest::General);
        assert_eq!(form.wake_at(), None);
    }

    #[test]
    fn a_late_wake_up_still_shows_the_panel_for_5000_ms() {
        let mut form = filled();
        form.submit(0.0);
        assert!(form.tick(60_000.0));
        assert_eq!(form.phase(), Phase::Submitted);
        assert_eq!(form.wake_at(), Some(65_000.0));
    }

    #[test]
    fn a_second_submit_while_busy_does_nothing() {
        let mut form = filled();
        assert_eq!(form.submit(0.0), SubmitOutcome::Started);
        assert_eq!(form.submit(1.0), SubmitOutcome::Ignored);
        assert_eq!(form.submit(1999.0), SubmitOutcome::Ignored);
        assert_eq!(form.wake_at(), Some(2000.0));
        form.tick(2000.0);
        assert_eq!(form.submit(2500.0), SubmitOutcome::Ignored);
        assert_eq!(form.phase(), Phase::Submitted);
        assert_eq!(form.wake_at(), Some(7000.0));
    }

    #[test]
    fn edits_are_refused_while_busy_and_change_nothing() {
        let mut form = filled();
        form.submit(0.0);
        assert_eq!(form.set(Field::Name, "Eve"), Err(EditError::Submitting));
        form.tick(2000.0);
        let err = form.set(Field::Message, "x").unwrap_err();
        assert_eq!(err, EditError::Submitted);
        assert_eq!(
            err.to_string(),
            "the form cannot be edited while the thank-you panel is shown"
        );
        assert_eq!(form.values().name, "Ada Lovelace");
    }

    #[test]
    fn an_update_sets_several_values_at_once_and_only_while_idle() {
        let mut form = FormMachine::new();
        form.update(required_fields()).unwrap();
        assert_eq!(form.state().values.email, "ada@example.com");
        assert_eq!(form.submit(0.0), SubmitOutcome::Started);
        let busy = form.update(FormUpdate {
            name: Some("Eve".into()),
            ..FormUpdate::default()
        });
        assert_eq!(busy, Err(EditError::Submitting));
        assert_eq!(form.values().name, "Ada");
    }

    #[test]
    fn the_state_and_the_constants_say_what_the_machine_does() {
        let constants = FormConstants::new();
        assert_eq!(constants.initial, FormMachine::new().state());
        assert_eq!(constants.initial.submit_label, "Request Early Access");
        assert_eq!(constants.initial.wake_at, None);
        assert_eq!(
            (constants.submit_delay_ms, constants.thank_you_ms),
            (2000, 5000)
        );
        assert_eq!(constants.message_rows, 4);
        assert_eq!(constants.submitting_label, "Submitting...");
        let mut form = filled();
        form.submit(10.0);
        let state = form.state();
        assert_eq!(state.phase, Phase::Submitting);
        assert_eq!(state.submit_label, "Submitting...");
        assert_eq!(state.wake_at, Some(2010.0));
        assert_eq!(
            serde_json::to_string(&constants).unwrap(),
            r#"{"submitDelayMs":2000,"thankYouMs":5000,"deliveryTimeoutMs":10000,"messageRows":4,"fields":[{"field":"name","control":"text","required":true,"marked":true},{"field":"email","control":"email","required":true,"marked":true},{"field":"company","control":"text","required":false,"marked":false},{"field":"role","control":"text","required":false,"marked":false},{"field":"interest","control":"choice","required":false,"marked":false},{"field":"message","control":"multiline","required":true,"marked":false}],"interests":["general","enterprise","developer","partnership","press"],"submitLabel":"Request Early Access","submittingLabel":"Submitting...","initial":{"phase":"idle","values":{"name":"","email":"","company":"","role":"","message":"","interest":"general"},"errors":[],"submitLabel":"Request Early Access","wakeAt":null,"notice":null,"proofRound":null}}"#
        );
        let json = serde_json::to_value(&state).unwrap();
        assert_eq!(json["wakeAt"], 2010.0);
        assert_eq!(json["submitLabel"], "Submitting...");
        assert_eq!(json["values"]["interest"], "enterprise");
    }

    /// The three required fields, validly.
    fn required_fields() -> FormUpdate {
        FormUpdate {
            name: Some("Ada".into()),
            email: Some("ada@example.com".into()),
            message: Some("Hi".into()),
            ..FormUpdate::default()
        }
    }

    fn sending_filled() -> FormMachine {
        let mut form = FormMachine::sending();
        form.update(required_fields()).unwrap();
        form
    }

    #[test]
    fn a_sent_form_waits_for_its_report_then_thanks_for_5000_ms() {
        let mut form = sending_filled();
        assert_eq!(form.submit(100.0), SubmitOutcome::Started);
        assert_eq!(form.phase(), Phase::Submitting);
        assert_eq!(form.submit_label(), "Submitting...");
        assert_eq!(form.wake_at(), Some(10_100.0), "the timeout");
        // Not on the simulated delay: only a report moves it on.
        assert!(!form.tick(2100.0));
        assert_eq!(form.phase(), Phase::Submitting);
        let attempt = form.attempt();
        assert!(
            !form.delivered(attempt + 1, 2500.0),
            "a stale report is ignored"
        );
        assert!(form.delivered(attempt, 2500.0));
        assert_eq!(form.phase(), Phase::Submitted);
        assert_eq!(form.wake_at(), Some(7500.0));
        assert!(!form.delivered(attempt, 2600.0), "one report per submit");
        assert!(form.tick(7500.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &FormValues::default());
        assert_eq!(form.delivery(), Delivery::Sent, "the reset keeps the mode");
    }

    #[test]
    fn a_failed_or_timed_out_send_keeps_everything_and_can_be_retried() {
        let mut form = sending_filled();
        form.submit(0.0);
        let typed = form.values().clone();
        assert!(form.failed(form.attempt()));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &typed);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert_eq!(form.state().notice, Some(Notice::NotSent));
        assert_eq!(form.wake_at(), None);
        // A retry clears the notice; this time nothing answers in 10 s.
        assert_eq!(form.submit(1000.0), SubmitOutcome::Started);
        assert_eq!(form.notice(), None);
        let second = form.attempt();
        assert!(
            !form.failed(second - 1),
            "the first attempt's late report is stale"
        );
        assert!(!form.tick(10_999.0));
        assert!(form.tick(11_000.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &typed);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert!(
            !form.delivered(second, 11_001.0),
            "too late: already failed"
        );
    }

    #[test]
    fn a_refusal_shows_the_servers_field_errors_with_the_cores_messages() {
        let mut form = sending_filled();
        form.submit(0.0);
        let typed = form.values().clone();
        let attempt = form.attempt();
        assert!(
            !form.refused(attempt + 1, &[]),
            "a stale refusal is ignored"
        );
        let reported = [
            (Field::Message, ErrorCode::Required),
            (Field::Company, ErrorCode::Required), // never produced: dropped
            (Field::Email, ErrorCode::InvalidEmail),
            (Field::Email, ErrorCode::Required), // a second error for the email: dropped
        ];
        assert!(form.refused(attempt, &reported));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.values(), &typed);
        assert_eq!(form.wake_at(), None);
        assert_eq!(form.notice(), None, "the errors say what to do");
        let shown: Vec<_> = form.errors().iter().map(|e| (e.field, e.message)).collect();
        assert_eq!(
            shown,
            [
                (Field::Email, "Please enter a valid email address"),
                (Field::Message, "Message is required"),
            ]
        );
        // Fixed and submitted again: the errors go, as after an invalid submit.
        assert_eq!(form.submit(100.0), SubmitOutcome::Started);
        assert!(form.errors().is_empty());
        // A refusal naming nothing the form knows is a plain failure.
        assert!(form.refused(form.attempt(), &[(Field::Role, ErrorCode::InvalidEmail)]));
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert!(form.errors().is_empty());
        assert!(
            !FormMachine::new().refused(0, &reported),
            "simulated forms ignore it"
        );
    }

    #[test]
    fn reports_mean_nothing_to_a_simulated_form() {
        let mut form = filled();
        form.submit(0.0);
        assert!(!form.delivered(form.attempt(), 10.0));
        assert!(!form.failed(form.attempt()));
        assert_eq!(form.phase(), Phase::Submitting);
        assert!(form.tick(2000.0));
        assert_eq!(form.phase(), Phase::Submitted);
        assert_eq!(form.notice(), None);
    }

    #[test]
    fn an_unknown_interest_is_refused_and_keeps_the_old_one() {
        let mut form = filled();
        let err = form.set(Field::Interest, "sales").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown interest: expected one of general, enterprise, developer, partnership, press"
        );
        assert_eq!(form.values().interest, Interest::Enterprise);
    }

    #[test]
    fn a_submit_at_a_non_finite_time_is_ignored() {
        let mut form = filled();
        for now in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(form.submit(now), SubmitOutcome::Ignored);
            assert_eq!(form.phase(), Phase::Idle);
            assert_eq!(form.wake_at(), None);
        }
        assert_eq!(form.submit(0.0), SubmitOutcome::Started);
        assert!(!form.tick(f64::NAN));
        assert_eq!(form.phase(), Phase::Submitting);
    }

    #[test]
    fn ticks_without_a_deadline_change_nothing() {
        let mut form = filled();
        assert!(!form.tick(0.0));
        assert!(!form.tick(f64::INFINITY));
        assert!(!form.tick(f64::NAN));
        assert_eq!(form.phase(), Phase::Idle);
    }

    /// A form that sends with proof of work, the three required fields typed.
    fn proving_filled() -> FormMachine {
        let mut form = FormMachine::sending_with_proof();
        form.update(required_fields()).unwrap();
        form
    }

    fn sent(form: &mut FormMachine) -> Outgoing {
        form.take_send().expect("a send to make")
    }

    #[test]
    fn a_sending_form_without_proof_sends_each_started_submit_once() {
        let mut form = sending_filled();
        assert_eq!(form.take_send(), None);
        form.submit(0.0);
        assert_eq!(
            form.take_send(),
            Some(Outgoing {
                attempt: 1,
                altcha: None
            })
        );
        assert_eq!(form.take_send(), None);
        assert_eq!(form.state().proof_round, None);
    }

    #[test]
    fn a_simulated_form_sends_nothing_and_never_asks_for_proof() {
        let mut form = filled();
        form.submit(0.0);
        assert_eq!(form.take_send(), None);
        assert_eq!(form.state().proof_round, None);
    }

    #[test]
    fn proof_is_asked_for_at_the_first_change_and_not_before() {
        let mut form = FormMachine::sending_with_proof();
        assert_eq!(form.state().proof_round, None);
        // Handing over an empty draft changes nothing: no challenge for a page view.
        form.update(FormUpdate::default()).unwrap();
        form.set(Field::Name, "").unwrap();
        form.set(Field::Interest, "general").unwrap();
        assert_eq!(form.state().proof_round, None);
        form.set(Field::Interest, "press").unwrap();
        assert_eq!(form.state().proof_round, Some(1));
        // Further edits ask nothing more.
        form.set(Field::Name, "Ada").unwrap();
        assert_eq!(form.state().proof_round, Some(1));
    }

    #[test]
    fn a_solved_proof_goes_with_the_submit_and_is_spent() {
        let mut form = proving_filled();
        assert!(form.solved(1, "P1".into()));
        assert_eq!(form.state().proof_round, None);
        assert_eq!(form.submit(0.0), SubmitOutcome::Started);
        assert_eq!(
            sent(&mut form),
            Outgoing {
                attempt: 1,
                altcha: Some("P1".into())
            }
        );
        assert!(form.delivered(1, 500.0));
        assert!(form.tick(5500.0));
        // A new form after the thank-you panel: its first change asks for a new round.
        assert_eq!(form.state().proof_round, None);
        form.set(Field::Name, "Eve").unwrap();
        assert_eq!(form.state().proof_round, Some(2));
        assert!(!form.solved(1, "stale".into()));
    }

    #[test]
    fn no_send_goes_without_its_proof_a_submit_waits_for_it() {
        let mut form = proving_filled();
        assert_eq!(form.submit(100.0), SubmitOutcome::Started);
        assert_eq!(form.phase(), Phase::Submitting);
        assert_eq!(form.take_send(), None);
        assert_eq!(form.submit_label(), "Submitting...");
        // Stale rounds are ignored; the right one sends at once.
        assert!(!form.solved(7, "P7".into()));
        assert_eq!(form.take_send(), None);
        assert!(form.solved(1, "P1".into()));
        assert_eq!(
            sent(&mut form),
            Outgoing {
                attempt: 1,
                altcha: Some("P1".into())
            }
        );
        // Still the submit's one deadline.
        assert_eq!(form.wake_at(), Some(10_100.0));
    }

    #[test]
    fn a_submit_without_any_change_asks_for_its_proof_itself() {
        let mut form = FormMachine::sending_with_proof();
        form.values = FormValues {
            name: "Ada".into(),
            email: "ada@example.com".into(),
            message: "Hi".into(),
            ..FormValues::default()
        };
        assert_eq!(form.submit(0.0), SubmitOutcome::Started);
        assert_eq!(form.state().proof_round, Some(1));
        assert_eq!(form.take_send(), None);
        assert!(form.solved(1, "P1".into()));
        assert_eq!(sent(&mut form).altcha.as_deref(), Some("P1"));
    }

    #[test]
    fn a_refused_proof_is_replaced_and_the_submit_retried_once() {
        let mut form = proving_filled();
        form.solved(1, "P1".into());
        form.submit(0.0);
        assert_eq!(sent(&mut form).attempt, 1);

        assert!(form.proof_refused(1, 300.0));
        assert_eq!(form.phase(), Phase::Submitting);
        assert_eq!(form.state().proof_round, Some(2));
        assert_eq!(form.take_send(), None);
        assert_eq!(form.wake_at(), Some(10_300.0));
        // The first send's answer is stale now.
        assert!(!form.delivered(1, 400.0));
        assert!(form.solved(2, "P2".into()));
        assert_eq!(
            sent(&mut form),
            Outgoing {
                attempt: 2,
                altcha: Some("P2".into())
            }
        );

        // Refused again: back to the form, nothing lost, a new proof on its way.
        assert!(form.proof_refused(2, 900.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert_eq!(form.values().name, "Ada");
        assert_eq!(form.state().proof_round, Some(3));
        assert_eq!(form.take_send(), None);

        // The visitor's next submit has its own retry.
        form.solved(3, "P3".into());
        form.submit(1000.0);
        assert_eq!(sent(&mut form).altcha.as_deref(), Some("P3"));
        assert!(form.proof_refused(3, 1100.0));
        assert_eq!(form.phase(), Phase::Submitting);
    }

    #[test]
    fn a_send_that_fails_spends_its_proof_and_a_new_one_is_asked_for() {
        let mut form = proving_filled();
        form.solved(1, "P1".into());
        form.submit(0.0);
        sent(&mut form);
        assert!(form.failed(1));
        assert_eq!(form.state().proof_round, Some(2));

        form.solved(2, "P2".into());
        form.submit(0.0);
        sent(&mut form);
        assert!(form.refused(2, &[(Field::Email, ErrorCode::InvalidEmail)]));
        assert_eq!(form.state().proof_round, Some(3));

        form.solved(3, "P3".into());
        form.submit(0.0);
        sent(&mut form);
        assert!(form.tick(10_000.0));
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert_eq!(form.state().proof_round, Some(4));
    }

    #[test]
    fn a_submit_whose_proof_never_comes_times_out_and_the_solve_goes_on() {
        let mut form = proving_filled();
        form.submit(0.0);
        assert!(form.tick(10_000.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert_eq!(form.state().proof_round, Some(1));
        // Solved late: kept for the next submit, not sent by itself.
        assert!(form.solved(1, "P1".into()));
        assert_eq!(form.take_send(), None);
        form.submit(11_000.0);
        assert_eq!(sent(&mut form).altcha.as_deref(), Some("P1"));
    }

    #[test]
    fn an_unsolved_round_fails_a_waiting_submit_and_the_next_change_asks_again() {
        let mut form = proving_filled();
        assert!(!form.unsolved(2));
        assert!(form.unsolved(1));
        assert_eq!(form.state().proof_round, None);
        form.set(Field::Role, "CTO").unwrap();
        assert_eq!(form.state().proof_round, Some(2));
        form.submit(0.0);
        assert!(form.unsolved(2));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        // The visitor's next submit asks for a round itself.
        form.submit(1.0);
        assert_eq!(form.state().proof_round, Some(3));
    }

    #[test]
    fn a_server_that_issues_no_challenges_gets_sends_without_proof() {
        let mut form = proving_filled();
        form.submit(0.0);
        assert!(form.proof_not_required(1));
        assert_eq!(
            sent(&mut form),
            Outgoing {
                attempt: 1,
                altcha: None
            }
        );
        assert!(form.delivered(1, 1.0));
        form.tick(5001.0);
        form.set(Field::Name, "Eve").unwrap();
        assert_eq!(form.state().proof_round, None);
        // Unless it refuses a send for its proof after all: then one is asked for.
        form.set(Field::Email, "eve@example.com").unwrap();
        form.set(Field::Message, "Hi").unwrap();
        form.submit(6000.0);
        sent(&mut form);
        assert!(form.proof_refused(2, 6100.0));
        assert_eq!(form.state().proof_round, Some(2));
    }

    #[test]
    fn a_submit_waiting_for_its_proof_takes_no_report_of_a_send() {
        let mut form = proving_filled();
        form.submit(0.0);
        assert!(!form.delivered(1, 1.0));
        assert!(!form.failed(1));
        assert!(!form.refused(1, &[(Field::Name, ErrorCode::Required)]));
        assert!(!form.proof_refused(1, 1.0));
        assert_eq!(form.phase(), Phase::Submitting);
        assert!(form.solved(1, "P1".into()));
        assert_eq!(sent(&mut form).attempt, 1);
        assert!(form.delivered(1, 2.0));
    }

    #[test]
    fn a_form_without_proof_of_work_fails_when_a_server_asks_for_one() {
        let mut form = sending_filled();
        form.submit(0.0);
        sent(&mut form);
        assert!(form.proof_refused(1, 1.0));
        assert_eq!(form.phase(), Phase::Idle);
        assert_eq!(form.notice(), Some(Notice::NotSent));
        assert_eq!(form.state().proof_round, None);
    }

    #[test]
    fn proof_reports_at_the_wrong_time_are_ignored() {
        let mut form = sending_filled();
        assert!(!form.solved(0, "P".into()));
        assert!(!form.proof_not_required(0));
        form.submit(0.0);
        assert!(!form.proof_refused(2, 0.0));
        assert!(!form.proof_refused(1, f64::NAN));
        assert_eq!(form.phase(), Phase::Submitting);
    }
}
