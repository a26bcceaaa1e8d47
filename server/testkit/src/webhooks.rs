//! A webhook receiver (`server/tests/webhook_sink.py`) that checks every delivery with the
//! Standard Webhooks reference library from `PyPI` (`standardwebhooks`, which
//! scripts/setup.sh installs into `.tools/python`), and what it received.

use crate::sink::Sink;

/// The secret the tests' servers and receiver share: `whsec_` and 32 bytes in base64.
pub const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr";

/// The receiver.
pub struct Receiver(Sink);

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
    pub fn down_at_first() -> Self {
        let python = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../.tools/python/bin/python"
        );
        Self(Sink::new(python, "webhook_sink.py", &[SECRET]))
    }

    /// Starts it (again).
    pub fn up(&mut self) {
        self.0.up();
    }

    /// Its URL, as `--webhook-url` takes it.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/lathe", self.0.port())
    }

    /// Answers `statuses`, one a request, before answering 204 again.
    ///
    /// # Panics
    /// When its folder cannot be written.
    pub fn answer(&self, statuses: &[u16]) {
        let lines: Vec<String> = statuses.iter().map(u16::to_string).collect();
        std::fs::write(self.0.folder().join("answers"), lines.join("\n")).unwrap();
    }

    /// Every event accepted (2xx), verified, in the order they came.
    ///
    /// # Panics
    /// When a delivery cannot be read.
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.0
            .files("json")
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
    pub fn attempts(&self) -> Vec<(String, u16)> {
        std::fs::read_to_string(self.0.folder().join("attempts.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(id, status)| (id.to_owned(), status.parse().unwrap_or(0)))
            .collect()
    }
}
