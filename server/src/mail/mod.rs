//! The waitlist's emails: what each says ([`letters`]), sending one over SMTP
//! ([`mailer`]), signed where the owner sends from their own server ([`dkim`]), and the worker that sends what the outbox holds ([`worker`]), with
//! retries and backoff. No SQL here: the outbox's rows are the store's.

pub mod dkim;
pub mod letters;
pub mod mailer;
pub mod worker;

pub use mailer::{MailServer, Mailer, MailerError, ONE_CLICK, SendError};
pub use worker::Outbox;
