//! Sending one email over SMTP with `lettre`, in the sender's name
//! (`--mail-from "Lathe <hello@…>"`).

use lettre::message::{Mailbox, header::ContentType};
use lettre::transport::smtp::{AsyncSmtpTransport, AsyncSmtpTransportBuilder};
use lettre::{AsyncTransport, Message, Tokio1Executor};

use crate::domain::Letter;

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

/// Why a mailer could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    /// The mail server's URL.
    #[error("--smtp: {0}")]
    Url(String),
    /// The sender's address.
    #[error("--mail-from: {0}")]
    From(String),
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

/// A mail server and the sender, checked but not connected to: what a [`Mailer`] is made
/// from once the server runs.
#[derive(Clone)]
pub struct MailServer {
    transport: AsyncSmtpTransportBuilder,
    from: Mailbox,
}

/// Only the sender: the URL and the credentials may hold a password.
impl std::fmt::Debug for MailServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MailServer(from {})", self.from)
    }
}

impl MailServer {
    /// The server at `url` (lettre's form: `smtp://host:25`, `smtp://host:587?tls=required`
    /// for STARTTLS, `smtps://host:465`; user and password in the URL or from
    /// `credentials`), sending as `from`.
    ///
    /// # Errors
    /// A URL or sender lettre does not accept.
    pub fn new(
        url: &str,
        from: &str,
        credentials: Option<(String, String)>,
    ) -> Result<Self, MailerError> {
        let mut transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| MailerError::Url(e.to_string()))?
            .timeout(Some(SMTP_TIMEOUT));
        if let Some((user, password)) = credentials {
            transport = transport.credentials(
                lettre::transport::smtp::authentication::Credentials::new(user, password),
            );
        }
        let from: Mailbox = from
            .parse()
            .map_err(|e: lettre::address::AddressError| MailerError::From(e.to_string()))?;
        Ok(Self { transport, from })
    }
}

impl Mailer {
    /// A mailer for `server`, with a pool of connections (made as they are needed). Must
    /// be called inside the server's runtime, where the pool keeps its task.
    pub fn new(server: MailServer) -> Self {
        Self {
            transport: server.transport.build(),
            from: server.from,
        }
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

    #[tokio::test]
    async fn the_mailer_takes_lettres_urls_and_a_named_sender() {
        let server =
            MailServer::new("smtp://127.0.0.1:2525", "Lathe <hello@example.com>", None).unwrap();
        assert_eq!(Mailer::new(server).product(), "Lathe");
        assert!(MailServer::new("http://x", "Lathe <hello@example.com>", None).is_err());
        assert!(MailServer::new("smtp://127.0.0.1:2525", "not an address", None).is_err());
    }
}
