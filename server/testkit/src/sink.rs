//! A helper program of the tests (the SMTP server, the webhook receiver): a Python script
//! of `server/tests/` on a loopback port, writing what it receives into a folder of its
//! own; stopped, and its folder removed, when dropped.
//!
//! Its port is the test's from the start, even while the program is down: a socket bound
//! with `SO_REUSEPORT` that never listens holds it ([`Reservation`]). Nothing else can
//! take it (not another test's server, not the system for an outgoing connection), a
//! connection to it is refused as long as nothing listens there, and the program, which
//! binds it with `SO_REUSEPORT` too, listens on it when started.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use socket2::{Domain, Socket, Type};

use crate::site::scratch;
use crate::wait::line_said;

/// A loopback port held for a program of the test's, which is refused to everyone else.
pub struct Reservation(Socket);

impl Reservation {
    /// A port the system picks, bound (with `SO_REUSEPORT`) and never listened on.
    ///
    /// # Panics
    /// When no socket can be had.
    pub fn new() -> Self {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        socket.set_reuse_port(true).unwrap();
        socket
            .bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())
            .unwrap();
        Self(socket)
    }

    /// The port held.
    ///
    /// # Panics
    /// Never: the socket is bound to an IPv4 address.
    pub fn port(&self) -> u16 {
        self.0.local_addr().unwrap().as_socket().unwrap().port()
    }
}

impl Default for Reservation {
    fn default() -> Self {
        Self::new()
    }
}

/// The program, its port and folder, and the process while it runs.
pub struct Sink {
    python: PathBuf,
    script: &'static str,
    extra: Vec<String>,
    port: Reservation,
    folder: PathBuf,
    child: Option<Child>,
}

impl Sink {
    /// `server/tests/SCRIPT FOLDER PORT EXTRA...` run by `python`, not started yet.
    ///
    /// # Panics
    /// When its folder cannot be made.
    pub fn new(python: impl Into<PathBuf>, script: &'static str, extra: &[&str]) -> Self {
        let port = Reservation::new();
        let folder = scratch(&format!("{script}-{}-{}", std::process::id(), port.port()));
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

    /// Starts it (again) on its port, and waits until it says it listens.
    ///
    /// # Panics
    /// When it cannot be started, or exits or says nothing within 30 s.
    pub fn up(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests")
            .join(self.script);
        let mut child = Command::new(&self.python)
            .arg(script)
            .arg(&self.folder)
            .arg(self.port.port().to_string())
            .args(&self.extra)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{} cannot run {}: {e}", self.python.display(), self.script)
            });
        let stdout = child.stdout.take().unwrap();
        self.child = Some(child);
        line_said(
            self.script,
            stdout,
            "listening on ",
            Duration::from_secs(30),
        );
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
        self.port.port()
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
