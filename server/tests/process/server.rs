//! `lathe-site serve` as a process of its own, for what only a process shows: signals,
//! kill -9, descriptor limits, its environment, its log and its metrics.

use std::io::Read;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lathe_site::store::Location;
use lathe_site_testkit::{Smtp, fixture, lines_said, wait_for};

/// The key the confirming servers sign their links with.
pub const KEY: &str = "a test key of more than thirty-two bytes";

/// The flags of a server that confirms through the SMTP server at `smtp`.
pub fn confirming_through(smtp: &str) -> Vec<String> {
    [
        "--smtp",
        smtp,
        "--mail-from",
        "Lathe <hello@example.com>",
        "--site-url",
        "https://lathe.example.com",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `lathe-site serve` on a free port, killed when dropped; its standard error is kept.
pub struct Server {
    /// The process.
    pub child: Child,
    /// Where it listens.
    pub address: SocketAddr,
    /// Where its metrics are served, when it was started with `--metrics-addr` (port 0
    /// for one the system picks: the server says which).
    pub metrics: Option<SocketAddr>,
    /// What it wrote to standard error so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(database: Option<&Location>, extra: &[&str]) -> Self {
        Self::start_with(
            Command::new(env!("CARGO_BIN_EXE_lathe-site")),
            database,
            extra,
        )
    }

    /// Started by `command` (the binary, or a wrapper such as prlimit that runs it), on a
    /// port the system picks (`--port 0`), read back from the line the server prints: a
    /// port found free beforehand could be taken by another test's connection meanwhile.
    pub fn start_with(mut command: Command, database: Option<&Location>, extra: &[&str]) -> Self {
        command
            .args(["serve", "--dist", fixture().to_str().unwrap()])
            .args(["--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(database) = database {
            command.args(["--database", &database.display()]);
        }
        // No allowance unless a test sets one.
        if !extra.contains(&"--sign-ups-per-minute") {
            command.args(["--sign-ups-per-minute", "0"]);
        }
        let mut child = command.spawn().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut chunk = [0_u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        });
        // The "serving DIST on http://ADDRESS" line, and before it the "metrics on
        // http://ADDRESS/metrics" one.
        let stdout = child.stdout.take().unwrap();
        let lines = lines_said(stdout, "serving ", Duration::from_secs(20)).unwrap_or_else(|e| {
            let status = child.try_wait().unwrap();
            panic!(
                "the server did not start ({e}; {}): {}",
                status.map_or("running".to_owned(), |s| s.to_string()),
                stderr.lock().unwrap()
            )
        });
        let said = |prefix: &str| {
            let line = lines.iter().find_map(|line| line.strip_prefix(prefix))?;
            let address = line.rsplit_once("http://")?.1;
            let address = address
                .split_once('/')
                .map_or(address, |(address, _)| address);
            Some(address.parse::<SocketAddr>().unwrap())
        };
        let address = said("serving ").expect("the serving line names an address");
        let metrics = said("metrics on ");
        Self {
            child,
            address,
            metrics,
            stderr,
        }
    }

    /// All the server has said on standard error, once that holds `text`. Its log is
    /// written by a thread of its own (tracing-appender's non-blocking writer) and read
    /// here by another, so the line about a request can come after the request's answer.
    pub fn log_once_it_says(&self, text: &str) -> String {
        wait_for(
            &format!("`{text}` in the log"),
            Duration::from_secs(10),
            || self.stderr.lock().unwrap().contains(text),
        );
        self.stderr.lock().unwrap().clone()
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to end, at most `limit`.
    pub fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `sqlite3 FILE SQL`, as an owner would look.
pub fn sqlite3(database: &Location, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg(database.display())
        .arg(sql)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The server, confirming addresses through `smtp`, with `extra` flags.
pub fn confirming(database: &Location, smtp: &Smtp, extra: &[&str]) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command.env("LATHE_TOKEN_KEY", KEY);
    let mut flags = confirming_through(&smtp.url());
    flags.extend(extra.iter().map(|&flag| flag.to_owned()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    Server::start_with(command, Some(database), &flags)
}

/// The value of the metric line that starts with `series`, from a scrape of `metrics`
/// (0 for a counter never counted: the exporter writes none).
pub fn metric(metrics: SocketAddr, series: &str) -> u64 {
    let reply = lathe_site_testkit::get(metrics, "/metrics");
    let text = String::from_utf8_lossy(&reply.body).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix(series))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}
