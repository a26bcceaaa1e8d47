//! A real SMTP server (aiosmtpd, `server/tests/smtp_sink.py`) on loopback, writing each
//! message it accepts into a folder, and the emails as a mail client reads them.

use std::time::Duration;

use crate::receiver::python_with;
use crate::sink::Sink;
use crate::wait::wait_for;

/// The SMTP sink.
pub struct Smtp(Sink);

impl Smtp {
    /// Started, and listening.
    pub fn start() -> Self {
        let mut smtp = Self::down_at_first();
        smtp.up();
        smtp
    }

    /// A port where no mail server listens yet: [`Smtp::up`] starts it there.
    ///
    /// # Panics
    /// When no Python with aiosmtpd is found.
    pub fn down_at_first() -> Self {
        let python = python_with("aiosmtpd", "scripts/setup.sh installs python3-aiosmtpd");
        Self(Sink::new(python, "smtp_sink.py", &[]))
    }

    /// Starts it (again).
    pub fn up(&mut self) {
        self.0.up();
    }

    /// Stops it.
    pub fn down(&mut self) {
        self.0.down();
    }

    /// Its URL, as `--smtp` takes it.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.0.port())
    }

    /// Every message received, oldest first, as the sink wrote it: the envelope's
    /// recipient (`X-Envelope-To: …`) on the first line, then the message as sent.
    pub fn message_files(&self) -> Vec<std::path::PathBuf> {
        self.0.files("eml")
    }

    /// Every message received, oldest first.
    ///
    /// # Panics
    /// When a message cannot be read.
    pub fn messages(&self) -> Vec<Email> {
        self.0
            .files("eml")
            .iter()
            .map(|p| Email::parse(&std::fs::read_to_string(p).unwrap()))
            .collect()
    }

    /// Waits until `n` messages have come (from a server in another process), and returns
    /// them.
    pub fn wait_for_messages(&self, n: usize) -> Vec<Email> {
        wait_for(&format!("{n} emails"), Duration::from_secs(30), || {
            self.messages().len() >= n
        });
        self.messages()
    }
}

/// An email as received: its recipient, subject, one-click unsubscribe headers and text.
pub struct Email {
    /// The envelope's recipient.
    pub to: String,
    /// Its subject.
    pub subject: String,
    /// Its `List-Unsubscribe` header (empty if none).
    pub list_unsubscribe: String,
    /// Its `List-Unsubscribe-Post` header (empty if none).
    pub list_unsubscribe_post: String,
    /// Its text, decoded.
    pub text: String,
}

impl Email {
    fn parse(raw: &str) -> Self {
        let header = |name: &str| {
            raw.lines()
                .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let body = raw.split_once("\r\n\r\n").map_or(raw, |(_, b)| b);
        Self {
            to: header("X-Envelope-To"),
            subject: header("Subject"),
            list_unsubscribe: header("List-Unsubscribe"),
            list_unsubscribe_post: header("List-Unsubscribe-Post"),
            text: quoted_printable(&body.replace("\r\n", "\n")),
        }
    }

    /// The token of its link to `page` (`confirm` or `manage`) under
    /// `https://lathe.example.com`.
    pub fn token(&self, page: &str) -> Option<String> {
        let prefix = format!("https://lathe.example.com/{page}#");
        self.text
            .lines()
            .find_map(|line| line.trim().strip_prefix(&prefix))
            .map(str::to_owned)
    }

    /// The path (and query) of its one-click unsubscribe link under
    /// `https://lathe.example.com`, as its text shows it.
    pub fn unsubscribe_path(&self) -> Option<String> {
        self.text.lines().find_map(|line| {
            line.trim()
                .strip_prefix("https://lathe.example.com")
                .filter(|path| path.starts_with("/api/waitlist/unsubscribe?"))
                .map(str::to_owned)
        })
    }
}

/// The text of a quoted-printable body (RFC 2045 §6.7), as a mail client shows it: soft
/// line breaks (`=` at the end of a line) joined, `=XX` bytes decoded.
fn quoted_printable(body: &str) -> String {
    let joined = body.replace("=\n", "");
    let mut bytes = Vec::with_capacity(joined.len());
    let mut rest = joined.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if let (b'=', Some(hex)) = (byte, tail.get(..2))
            && let Ok(decoded) = u8::from_str_radix(&String::from_utf8_lossy(hex), 16)
        {
            bytes.push(decoded);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
