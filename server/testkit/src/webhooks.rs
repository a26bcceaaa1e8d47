//! A webhook receiver (`server/tests/webhook_sink.py`) that checks every delivery with the
//! Standard Webhooks reference library from `PyPI` (`standardwebhooks`, which
//! scripts/setup.sh installs into `.tools/python`), and what it received.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::site::scratch;
use crate::smtp::free_port;
use crate::wait::wait_for;

/// The secret the tests' servers and receiver share: `whsec_` and 32 bytes in base64.
pub const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr";

/// The receiver; stopped and its folder removed when dropped.
pub struct Receiver {
    port: u16,
    folder: PathBuf,
    child: Option<Child>,
}

/// One event as it was received, verified.
#[derive(Debug)]
pub struct Delivery {
    /// Its `webhook-id`.
    pub id: String,
    /// The event: `{"type", "timestamp", "data"}`.
    pub event: serde_json::Value,
}

impl Receiver {
    /// Started, and listening.
    pub fn start() -> Self {
        let mut receiver = Self::down_at_first();
        receiver.up();
        receiver
    }

    /// A port where no receiver listens yet: [`Receiver::up`] starts it there.
    ///
    /// # Panics
    /// When its folder cannot be made.
    pub fn down_at_first() -> Self {
        let port = free_port();
        let folder = scratch(&format!("webhooks-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        Self {
            port,
            folder,
            child: None,
        }
    }

    /// Starts it (again).
    ///
    /// # Panics
    /// When the reference library's Python is missing.
    pub fn up(&mut self) {
        let python = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../.tools/python/bin/python"
        );
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/webhook_sink.py");
        let child = Command::new(python)
            .args([script, self.folder.to_str().unwrap()])
            .arg(self.port.to_string())
            .arg(SECRET)
            .stdout(Stdio::null())
            .spawn()
            .expect("scripts/setup.sh's Python with standardwebhooks, in .tools/python");
        self.child = Some(child);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        wait_for("the webhook receiver", Duration::from_secs(20), || {
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

    /// Its URL, as `--webhook-url` takes it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/lathe", self.port)
    }

    /// Answers `statuses`, one a request, before answering 204 again.
    ///
    /// # Panics
    /// When its folder cannot be written.
    pub fn answer(&self, statuses: &[u16]) {
        let lines: Vec<String> = statuses.iter().map(u16::to_string).collect();
        std::fs::write(self.folder.join("answers"), lines.join("\n")).unwrap();
    }

    /// Every event accepted (2xx), verified, in the order they came.
    ///
    /// # Panics
    /// When its folder cannot be read.
    pub fn deliveries(&self) -> Vec<Delivery> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| {
                let mut saved: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
                Delivery {
                    id: saved["id"].as_str().unwrap_or_default().to_owned(),
                    event: saved["event"].take(),
                }
            })
            .collect()
    }

    /// Every attempt, in order: its `webhook-id` and the status answered.
    ///
    /// # Panics
    /// When its log cannot be read.
    pub fn attempts(&self) -> Vec<(String, u16)> {
        std::fs::read_to_string(self.folder.join("attempts.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(id, status)| (id.to_owned(), status.parse().unwrap_or(0)))
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.down();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
