//! Which emails an entry may be sent.

/// Which email.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// To a new (or still pending) address: the link that confirms it.
    Confirm,
    /// To a confirmed address signed up again: it is on the list already.
    Already,
}

impl Kind {
    /// Its name in the outbox table, logs and metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Confirm => "confirm",
            Kind::Already => "already",
        }
    }

    /// From its name in the outbox table.
    pub fn parse(text: &str) -> Option<Self> {
        [Kind::Confirm, Kind::Already]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in [Kind::Confirm, Kind::Already] {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::parse("spam"), None);
    }
}
