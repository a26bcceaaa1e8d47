//! A helper program of the tests (the SMTP server, the webhook receiver): a Python script
//! of `server/tests/` on a loopback port, writing what it receives into a folder of its
//! own; stopped, and its folder removed, when dropped.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::site::scratch;
use crate::wait::wait_for;

/// A free loopback port, for a program that must be told one (the sinks, nginx,
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

/// The program, its port and folder, and the process while it runs.
pub struct Sink {
    python: PathBuf,
    script: &'static str,
    extra: Vec<String>,
    port: u16,
    folder: PathBuf,
    child: Option<Child>,
}

impl Sink {
    /// `server/tests/SCRIPT FOLDER PORT EXTRA...` run by `python`, not started yet.
    ///
    /// # Panics
    /// When its folder cannot be made.
    pub fn new(python: impl Into<PathBuf>, script: &'static str, extra: &[&str]) -> Self {
        let port = free_port();
        let folder = scratch(&format!("{script}-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        Self {
            python: python.into(),
            script,
            extra: extra.iter().map(|&e| e.to_owned()).collect(),
            port,
            folder,
            child: None,
        }
    }

    /// Starts it (again), and waits until it listens.
    ///
    /// # Panics
    /// When it cannot be started, or does not listen within 20 s.
    pub fn up(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests")
            .join(self.script);
        let child = Command::new(&self.python)
            .arg(script)
            .arg(&self.folder)
            .arg(self.port.to_string())
            .args(&self.extra)
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{} cannot run {}: {e}", self.python.display(), self.script)
            });
        self.child = Some(child);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        wait_for(self.script, Duration::from_secs(20), || {
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

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Its folder's files whose names end in `.extension`, in name order.
    ///
    /// # Panics
    /// When the folder cannot be read.
    pub fn files(&self, extension: &str) -> Vec<PathBuf> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == extension))
            .collect();
        names.sort();
        names
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.down();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
