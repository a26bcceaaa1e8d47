//! Which emails an entry may be sent, and what one says.

use lathe_core::validation::is_control_or_format;

/// Which email.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// To a new (or still pending) address: the link that confirms it.
    Confirm,
    /// To a confirmed address signed up again: it is on the list already.
    Already,
    /// The owner's invitation, in a wave: its letter is the wave's.
    Invitation,
}

impl Kind {
    /// Its name in the outbox table, logs and metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Confirm => "confirm",
            Kind::Already => "already",
            Kind::Invitation => "invitation",
        }
    }

    /// Whether it is subscription mail (sent because the address is on the list), not an
    /// answer to something its recipient just did: such mail carries one-click
    /// unsubscribe, and receivers hold it to the bulk senders' rules.
    pub const fn is_subscription(self) -> bool {
        matches!(self, Kind::Invitation)
    }

    /// From its name in the outbox table.
    pub fn parse(text: &str) -> Option<Self> {
        [Kind::Confirm, Kind::Already, Kind::Invitation]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

/// An email's subject and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Letter {
    /// Its subject line.
    pub subject: String,
    /// Its plain text.
    pub body: String,
}

/// The longest subject line an owner's letter may have, in characters.
pub const SUBJECT_LIMIT: usize = 200;

/// Why an owner's letter was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LetterError {
    /// No subject line, or nothing beneath it.
    #[error("a letter is its subject on the first line, then its text: this one has {0}")]
    Incomplete(&'static str),
    /// A subject line too long for a mail client to show.
    #[error("the letter's subject is over {SUBJECT_LIMIT} characters")]
    LongSubject,
    /// A control or invisible character in the subject (a header must not hold one).
    #[error("the letter's subject holds a control or invisible character")]
    ControlInSubject,
}

impl Letter {
    /// The owner's letter from its text: the first line is the subject, the rest the body
    /// (a blank line after the subject is not part of it). `{name}`, in either, becomes
    /// each recipient's name when it is sent.
    ///
    /// # Errors
    /// See [`LetterError`].
    pub fn from_owner(text: &str) -> Result<Self, LetterError> {
        let text = text
            .strip_prefix('\u{feff}')
            .unwrap_or(text)
            .replace("\r\n", "\n");
        let (subject, body) = text.split_once('\n').unwrap_or((&text, ""));
        let (subject, body) = (subject.trim(), body.trim_start_matches('\n').trim_end());
        if subject.is_empty() {
            return Err(LetterError::Incomplete("no subject"));
        }
        if body.is_empty() {
            return Err(LetterError::Incomplete("no text beneath its subject"));
        }
        if subject.chars().count() > SUBJECT_LIMIT {
            return Err(LetterError::LongSubject);
        }
        if subject.chars().any(is_control_or_format) {
            return Err(LetterError::ControlInSubject);
        }
        Ok(Self {
            subject: subject.to_owned(),
            body: format!("{body}\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in [Kind::Confirm, Kind::Already, Kind::Invitation] {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::parse("spam"), None);
    }
}
