//! A real SMTP server (aiosmtpd, `server/tests/smtp_sink.py`) on loopback, writing each
//! message it accepts into a folder, and the emails as a mail client reads them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::site::scratch;
use crate::wait::wait_for;

/// A free loopback port, for a program that must be told one (the SMTP sink, nginx,
/// Prometheus).
///
/// # Panics
/// When no port can be had.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The SMTP sink; stopped and its folder removed when dropped.
pub struct Smtp {
    port: u16,
    folder: PathBuf,
    child: Option<Child>,
}

impl Smtp {
    /// Started, and listening.
    ///
    /// # Panics
    /// When it cannot be started.
    pub fn start() -> Self {
        let port = free_port();
        let folder = scratch(&format!("smtp-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let mut smtp = Self {
            port,
            folder,
            child: None,
        };
        smtp.up();
        smtp
    }

    /// A port where no mail server listens yet: [`Smtp::up`] starts it there.
    pub fn down_at_first() -> Self {
        let mut smtp = Self::start();
        smtp.down();
        smtp
    }

    /// Starts it (again).
    ///
    /// # Panics
    /// When no Python with aiosmtpd is found.
    pub fn up(&mut self) {
        // Debian's package is for Debian's Python; pip's for whichever is first on PATH.
        let python = ["/usr/bin/python3", "python3"]
            .into_iter()
            .find(|python| {
                Command::new(python)
                    .args(["-c", "import aiosmtpd"])
                    .status()
                    .is_ok_and(|s| s.success())
            })
            .expect("a Python with aiosmtpd (scripts/setup.sh installs python3-aiosmtpd)");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/smtp_sink.py");
        let child = Command::new(python)
            .args([
                script,
                self.folder.to_str().unwrap(),
                &self.port.to_string(),
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        wait_for("the SMTP server", Duration::from_secs(20), || {
            std::net::TcpStream::connect(address).is_ok()
        });
    }

    /// Stops it.
    pub fn down(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Its URL, as `--smtp` takes it.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message received, oldest first.
    ///
    /// # Panics
    /// When its folder cannot be read.
    pub fn messages(&self) -> Vec<Email> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "eml"))
            .collect();
        names.sort();
        names
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

impl Drop for Smtp {
    fn drop(&mut self) {
        self.down();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// An email as received: its recipient, subject and text.
pub struct Email {
    /// The envelope's recipient.
    pub to: String,
    /// Its subject.
    pub subject: String,
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
