//! The waitlist's emails: what each says, and sending one over SMTP with `lettre`.
//! Which email goes when, and retrying, is [`crate::outbox`]'s.
//!
//! Every email is plain text, in the sender's name (`--mail-from "Lathe <hello@…>"`),
//! and carries the link to manage the entry (see, download, erase).

use lathe_core::retention::{CONFIRM_LINK_HOURS, PENDING_DAYS};
use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::{AsyncTransport, Message, Tokio1Executor};

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

/// Where the links of an email lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Links {
    /// The page that confirms (for [`Kind::Confirm`]).
    pub confirm: Option<String>,
    /// The page that shows, downloads and erases the entry.
    pub manage: String,
}

/// An email's subject and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Letter {
    /// Its subject line.
    pub subject: String,
    /// Its plain text.
    pub body: String,
}

/// What `kind` says (the periods are the core's, which the pages state and the server
/// enforces), from `product` (the sender's name), with its `links`.
pub fn letter(kind: Kind, product: &str, links: &Links) -> Letter {
    let manage = format!(
        "To see what we keep about you, download it, or erase it, open:\n{}\n",
        links.manage
    );
    match kind {
        Kind::Confirm => Letter {
            subject: format!("Confirm your place on the {product} waitlist"),
            body: format!(
                "Hello,\n\n\
                 Someone, we hope you, asked to join the {product} waitlist with this address. \
                 To confirm it, open this link and press \"Confirm my address\" (the link \
                 works for {CONFIRM_LINK_HOURS} hours):\n{}\n\n\
                 If it was not you, do nothing: an address that is not confirmed within \
                 {PENDING_DAYS} days is deleted.\n\n{manage}",
                links.confirm.as_deref().unwrap_or_default()
            ),
        },
        Kind::Already => Letter {
            subject: format!("You are already on the {product} waitlist"),
            body: format!(
                "Hello,\n\n\
                 Someone, we hope you, asked to join the {product} waitlist with this address. \
                 It is on the list already, confirmed, so nothing has changed: we will write \
                 when there is news.\n\n{manage}"
            ),
        },
    }
}

/// Why an email was not sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The address or the message could not be made (never retried).
    #[error("the email could not be made: {0}")]
    Message(String),
    /// The SMTP server refused it for good (a 5xx: never retried).
    #[error("the mail server refused it: {0}")]
    Refused(String),
    /// Down, slow or a 4xx: tried again later.
    #[error("the mail server failed: {0}")]
    Transient(String),
}

impl SendError {
    /// Whether trying again later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, SendError::Transient(_))
    }
}

/// An SMTP server and the sender.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mailer(from {})", self.from)
    }
}

/// How long one SMTP conversation may take before it counts as failed (and is retried).
pub const SMTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Mailer {
    /// A mailer for `url` (lettre's form: `smtp://host:25`, `smtp://host:587?tls=required`
    /// for STARTTLS, `smtps://host:465`; user and password in the URL or from
    /// `credentials`) sending as `from`.
    ///
    /// # Errors
    /// A URL or sender lettre does not accept.
    pub fn new(
        url: &str,
        from: &str,
        credentials: Option<(String, String)>,
    ) -> Result<Self, String> {
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("--smtp: {e}"))?
            .timeout(Some(SMTP_TIMEOUT));
        if let Some((user, password)) = credentials {
            builder = builder.credentials(
                lettre::transport::smtp::authentication::Credentials::new(user, password),
            );
        }
        let from: Mailbox = from.parse().map_err(|e| format!("--mail-from: {e}"))?;
        Ok(Self {
            transport: builder.build(),
            from,
        })
    }

    /// The sender's name, as the emails call the product ("Lathe" in "Lathe <hello@…>").
    pub fn product(&self) -> &str {
        self.from.name.as_deref().unwrap_or("our")
    }

    /// Sends `letter` to `to`.
    ///
    /// # Errors
    /// See [`SendError`].
    pub async fn send(&self, to: &str, letter: &Letter) -> Result<(), SendError> {
        let to: Mailbox = to
            .parse()
            .map_err(|e: lettre::address::AddressError| SendError::Message(e.to_string()))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&letter.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(letter.body.clone())
            .map_err(|e| SendError::Message(e.to_string()))?;
        match self.transport.send(message).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(SendError::Refused(e.to_string())),
            Err(e) => Err(SendError::Transient(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> Links {
        Links {
            confirm: Some("https://lathe.example.com/confirm#v1.c.x".into()),
            manage: "https://lathe.example.com/manage#v1.m.y".into(),
        }
    }

    #[test]
    fn every_letter_carries_the_manage_link_and_a_confirmation_its_own() {
        let confirm = letter(Kind::Confirm, "Lathe", &links());
        assert_eq!(confirm.subject, "Confirm your place on the Lathe waitlist");
        assert!(
            confirm
                .body
                .contains("\nhttps://lathe.example.com/confirm#v1.c.x\n")
        );
        assert!(confirm.body.contains("48 hours"));
        assert!(confirm.body.contains("7 days"));
        let already = letter(Kind::Already, "Lathe", &links());
        assert_eq!(already.subject, "You are already on the Lathe waitlist");
        assert!(!already.body.contains("/confirm"));
        for body in [confirm.body, already.body] {
            assert!(body.contains("\nhttps://lathe.example.com/manage#v1.m.y\n"));
        }
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in [Kind::Confirm, Kind::Already] {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::parse("spam"), None);
    }

    #[tokio::test]
    async fn the_mailer_takes_lettres_urls_and_a_named_sender() {
        let mailer =
            Mailer::new("smtp://127.0.0.1:2525", "Lathe <hello@example.com>", None).unwrap();
        assert_eq!(mailer.product(), "Lathe");
        assert!(Mailer::new("http://x", "Lathe <hello@example.com>", None).is_err());
        assert!(Mailer::new("smtp://127.0.0.1:2525", "not an address", None).is_err());
    }
}
