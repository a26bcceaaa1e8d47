//! Sending one email over SMTP with `lettre`, in the sender's name
//! (`--mail-from "Lathe <hello@…>"`): each with the headers receivers expect (a
//! `Message-ID` at the sender's domain, `Date`, `MIME-Version`, UTF-8 plain text) and,
//! where the owner gave a key, a DKIM signature ([`super::dkim`]).

use lettre::message::Mailbox;
use lettre::message::header::{ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0};
use lettre::transport::smtp::{AsyncSmtpTransport, AsyncSmtpTransportBuilder};
use lettre::{AsyncTransport, Message, Tokio1Executor};

use super::dkim::Signer;
use crate::domain::Letter;
use crate::domain::token::random_id;

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
    /// The invitations' sender's address.
    #[error("--invitations-from: {0}")]
    InvitationsFrom(String),
}

/// An SMTP server and the sender.
#[derive(Clone)]
pub struct Mailer {
    pool: std::sync::Arc<std::sync::Mutex<Pool>>,
    builder: AsyncSmtpTransportBuilder,
    timeout: std::time::Duration,
    from: Mailbox,
    invitations_from: Mailbox,
    signer: Option<std::sync::Arc<Signer>>,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mailer(from {})", self.from)
    }
}

/// The transport and its pool of connections, and how many pools came before it: a
/// conversation that timed out leaves its connection in the pool mid-command, and the pool
/// is then replaced (see [`Mailer::send`]).
struct Pool {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    generation: u64,
}

/// How long one SMTP conversation may take before it counts as failed (and is retried),
/// unless told otherwise ([`MailServer::timeout`], `--smtp-timeout`).
pub const SMTP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A mail server and the sender, checked but not connected to: what a [`Mailer`] is made
/// from once the server runs.
#[derive(Clone)]
pub struct MailServer {
    transport: AsyncSmtpTransportBuilder,
    timeout: std::time::Duration,
    from: Mailbox,
    invitations_from: Mailbox,
    signer: Option<std::sync::Arc<Signer>>,
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
        Ok(Self {
            transport,
            timeout: SMTP_TIMEOUT,
            invitations_from: from.clone(),
            from,
            signer: None,
        })
    }

    /// The same, invitations sent as `from` (Google's guidelines ask subscription mail
    /// and transactional mail to come from different addresses).
    ///
    /// # Errors
    /// An address lettre does not accept.
    pub fn invitations_from(self, from: &str) -> Result<Self, MailerError> {
        let invitations_from = from.parse().map_err(|e: lettre::address::AddressError| {
            MailerError::InvitationsFrom(e.to_string())
        })?;
        Ok(Self {
            invitations_from,
            ..self
        })
    }

    /// The domain invitations are sent from.
    pub fn invitations_domain(&self) -> &str {
        self.invitations_from.email.domain()
    }

    /// The same, one SMTP conversation given `timeout` ([`SMTP_TIMEOUT`] otherwise).
    #[must_use]
    pub fn timeout(self, timeout: std::time::Duration) -> Self {
        Self {
            transport: self.transport.timeout(Some(timeout)),
            timeout,
            ..self
        }
    }

    /// The same, each email signed by `signer`.
    #[must_use]
    pub fn signed_by(self, signer: Signer) -> Self {
        Self {
            signer: Some(std::sync::Arc::new(signer)),
            ..self
        }
    }

    /// The sender's domain: the emails' `Message-ID`s are at it, and it signs them unless
    /// told otherwise.
    pub fn domain(&self) -> &str {
        self.from.email.domain()
    }
}

impl Mailer {
    /// A mailer for `server`, with a pool of connections (made as they are needed). Must
    /// be called inside the server's runtime, where the pool keeps its task.
    pub fn new(server: MailServer) -> Self {
        Self {
            pool: std::sync::Arc::new(std::sync::Mutex::new(Pool {
                transport: server.transport.clone().build(),
                generation: 0,
            })),
            builder: server.transport,
            timeout: server.timeout,
            from: server.from,
            invitations_from: server.invitations_from,
            signer: server.signer,
        }
    }

    /// The sender's name, as the emails call the product ("Lathe" in "Lathe <hello@…>").
    pub fn product(&self) -> &str {
        self.from.name.as_deref().unwrap_or("our")
    }

    /// The email that says `letter` to `to`, signed if there is a key. `unsubscribe` is
    /// the one-click unsubscribe URL of subscription mail (an invitation), which then
    /// comes from the invitations' sender with RFC 8058's two headers; `None` for an
    /// answer to the visitor's own action.
    ///
    /// # Errors
    /// An address or a text lettre does not take ([`SendError::Message`]).
    pub fn message(
        &self,
        to: &str,
        letter: &Letter,
        unsubscribe: Option<&str>,
    ) -> Result<Message, SendError> {
        let to: Mailbox = to
            .parse()
            .map_err(|e: lettre::address::AddressError| SendError::Message(e.to_string()))?;
        let from = if unsubscribe.is_some() {
            &self.invitations_from
        } else {
            &self.from
        };
        // One clock reading for the Date header and the signature's time.
        let now = std::time::SystemTime::now();
        let mut builder = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(&letter.subject)
            .message_id(Some(format!("<{}@{}>", random_id(), from.email.domain())))
            .date(now)
            .header(MIME_VERSION_1_0)
            .header(ContentType::TEXT_PLAIN);
        if let Some(url) = unsubscribe {
            builder = builder
                .raw_header(HeaderValue::new(LIST_UNSUBSCRIBE, format!("<{url}>")))
                .raw_header(HeaderValue::new(
                    LIST_UNSUBSCRIBE_POST,
                    ONE_CLICK.to_owned(),
                ));
        }
        let mut message = builder
            .body(letter.body.clone())
            .map_err(|e| SendError::Message(e.to_string()))?;
        if let Some(signer) = &self.signer {
            let seconds = now
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs());
            signer.sign(&mut message, unsubscribe.is_some(), seconds);
        }
        Ok(message)
    }

    /// Sends `letter` to `to` (see [`Mailer::message`]).
    ///
    /// # Errors
    /// See [`SendError`].
    pub async fn send(
        &self,
        to: &str,
        letter: &Letter,
        unsubscribe: Option<&str>,
    ) -> Result<(), SendError> {
        let message = self.message(to, letter, unsubscribe)?;
        let (transport, generation) = {
            let pool = self
                .pool
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (pool.transport.clone(), pool.generation)
        };
        // The whole conversation within the timeout: lettre's own bounds only the connection,
        // and a server that accepted it and then said nothing held a send (and one of the
        // worker's eight places) for as long as it stayed silent.
        match tokio::time::timeout(self.timeout, transport.send(message)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) if e.is_permanent() => Err(SendError::Refused(e.to_string())),
            Ok(Err(e)) => Err(SendError::Transient(e.to_string())),
            Err(_) => {
                // Its connection went back to the pool waiting for a reply, where the next
                // email would read it: later sends get a new pool (once, however many timed
                // out together), and the old one closes its connections when the sends
                // under way on it are done.
                let mut pool = self
                    .pool
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if pool.generation == generation {
                    pool.transport = self.builder.clone().build();
                    pool.generation += 1;
                }
                Err(SendError::Transient(format!(
                    "no answer within {}",
                    humantime::format_duration(self.timeout)
                )))
            }
        }
    }
}

/// RFC 2369's header: where to unsubscribe (here one HTTPS URL, RFC 8058 §3.1).
const LIST_UNSUBSCRIBE: HeaderName = HeaderName::new_from_ascii_str("List-Unsubscribe");
/// RFC 8058's header: that URL unsubscribes with one POST, no second step.
const LIST_UNSUBSCRIBE_POST: HeaderName = HeaderName::new_from_ascii_str("List-Unsubscribe-Post");
/// The value of [`LIST_UNSUBSCRIBE_POST`], which is also the body a mail provider posts.
pub const ONE_CLICK: &str = "List-Unsubscribe=One-Click";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_mailer_takes_lettres_urls_and_a_named_sender() {
        let server =
            MailServer::new("smtp://127.0.0.1:2525", "Lathe <hello@example.com>", None).unwrap();
        assert_eq!(server.domain(), "example.com");
        assert_eq!(Mailer::new(server).product(), "Lathe");
        assert!(MailServer::new("http://x", "Lathe <hello@example.com>", None).is_err());
        assert!(MailServer::new("smtp://127.0.0.1:2525", "not an address", None).is_err());
    }
}
