//! What the server's integration tests share: a small built site, a server on an
//! ephemeral port, and a raw HTTP/1.1 client that sends bytes exactly as given.
#![allow(dead_code)] // each test binary uses its own part of this

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use std::collections::BTreeSet;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use lathe_site::Site;
use lathe_site::store::Location;

const HEADERS: &str = "# The site's headers (a comment: the old server failed every request on one)
/*
  X-Content-Type-Options: nosniff
  Content-Security-Policy: default-src 'none'; frame-ancestors 'none'
  Strict-Transport-Security: max-age=63072000; includeSubDomains

/assets/*
  Cache-Control: public, max-age=31536000, immutable
";

/// A small built site in a temp folder, compressed as `make build` does.
pub fn fixture() -> &'static Path {
    static DIST: OnceLock<PathBuf> = OnceLock::new();
    DIST.get_or_init(|| {
        let dist = scratch(&format!("site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dist);
        std::fs::create_dir_all(dist.join("contact")).unwrap();
        std::fs::create_dir_all(dist.join("assets")).unwrap();
        let page = |title: &str| {
            format!(
                "<!doctype html><title>{title}</title>{}",
                "<p>Lathe</p>".repeat(100)
            )
        };
        std::fs::write(dist.join("index.html"), page("Home")).unwrap();
        std::fs::write(dist.join("contact/index.html"), page("Contact")).unwrap();
        std::fs::write(dist.join("404.html"), page("Page not found")).unwrap();
        std::fs::write(
            dist.join("assets/app-Ab12.js"),
            "console.log('lathe');\n".repeat(200),
        )
        .unwrap();
        std::fs::write(dist.join("_headers"), HEADERS).unwrap();
        std::fs::write(dist.join(".env"), "SECRET=1").unwrap();
        lathe_site::compress::compress(&dist).unwrap();
        dist
    })
}

/// Serves `site` on an ephemeral loopback port, in a thread of its own, for as long as
/// the test binary runs.
pub fn start(site: Site) -> SocketAddr {
    start_with(async move { site })
}

/// Serves the site `site` resolves to (made inside the server's own runtime, where a
/// database pool must live), on an ephemeral loopback port, for as long as the test
/// binary runs.
pub fn start_with(site: impl Future<Output = Site> + Send + 'static) -> SocketAddr {
    start_limited(site, lathe_site::connection::Limits::default())
}

/// [`start_with`], within `limits`.
pub fn start_limited(
    site: impl Future<Output = Site> + Send + 'static,
    limits: lathe_site::connection::Limits,
) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let site = site.await;
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                lathe_site::serve(listener, site, limits, std::future::pending())
                    .await
                    .unwrap();
            });
    });
    address
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `head` (a request line and headers, without the final blank line) as it is.
pub fn send_to(address: SocketAddr, head: &str) -> Reply {
    send_bytes(
        address,
        format!("{head}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Sends `request` byte for byte and reads the response until the server closes.
pub fn send_bytes(address: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // A server may answer a malformed request line and close before the rest has been
    // written (a broken pipe here); what it said is still there to read.
    let _ = stream.write_all(request);
    let mut raw = Vec::new();
    let mut chunk = [0_u8; 16 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
        }
    }
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response");
    let text = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// A path for `name` in Cargo's scratch folder for integration tests (under `target/`),
/// where what one test run leaves is removed by the next: the files and folders of
/// processes that have ended (their names end in `-PID` or `-PID-N.db`).
fn scratch(name: &str) -> PathBuf {
    static SWEPT: OnceLock<()> = OnceLock::new();
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR"));
    SWEPT.get_or_init(|| {
        for leftover in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let name = leftover.file_name().to_string_lossy().into_owned();
            let pid = name
                .split(['-', '.'])
                .find_map(|part| part.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let path = leftover.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    });
    folder.join(name)
}

/// A fresh SQLite database, unique to the call, removed (with its write-ahead log) when
/// dropped; it derefs to its [`Location`].
pub struct Sqlite {
    location: Location,
    file: PathBuf,
}

impl std::ops::Deref for Sqlite {
    type Target = Location;

    fn deref(&self) -> &Location {
        &self.location
    }
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.file.display()));
        }
    }
}

pub fn sqlite() -> Sqlite {
    static N: AtomicU32 = AtomicU32::new(0);
    let file = scratch(&format!(
        "waitlist-{}-{}.db",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    Sqlite {
        location: file.display().to_string().parse().unwrap(),
        file,
    }
}

/// A PostgreSQL cluster of the test's own, stopped and removed when dropped.
pub struct Postgres {
    pub dir: PathBuf,
    pub location: Location,
}

impl Postgres {
    /// A cluster for tests that need speed over durability (fsync off).
    pub fn start() -> Self {
        Self::start_with(&["fsync=off"])
    }

    /// A cluster as PostgreSQL runs by default: every commit on the disk.
    pub fn start_durable() -> Self {
        Self::start_with(&[])
    }

    fn start_with(settings: &[&str]) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        // Under /tmp itself: as root, the cluster runs as `postgres`, which must reach it.
        let dir = PathBuf::from(format!(
            "/tmp/lathe-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let out = script()
            .args(["start", dir.to_str().unwrap()])
            .args(settings)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/postgres.sh start failed (make setup installs PostgreSQL):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8(out.stdout).unwrap();
        Self {
            dir,
            location: url.trim().parse().unwrap(),
        }
    }
}

impl Postgres {
    fn run(&self, command: &str) {
        let status = script()
            .args([command, self.dir.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success(), "scripts/postgres.sh {command}");
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every session is ended.
    pub fn restart(&self) {
        self.run("restart");
    }

    /// Stops the server, keeping its data, until [`Postgres::resume`].
    pub fn stop(&self) {
        self.run("pause");
    }

    /// Starts the server again after [`Postgres::stop`], on the same port.
    pub fn resume(&self) {
        self.run("resume");
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = script().args(["stop", self.dir.to_str().unwrap()]).status();
    }
}

pub fn script() -> Command {
    Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/postgres.sh"
    ))
}

/// The privacy notice version the tests sign up with.
pub const NOTICE: &str = "2026-11-22";

/// Posts `body` with `headers` (each a whole line).
pub fn post_with(address: SocketAddr, headers: &[&str], body: &[u8]) -> Reply {
    let mut request = format!(
        "POST /api/waitlist HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    send_bytes(address, &bytes)
}

/// Posts JSON as the site's own page does.
pub fn post(address: SocketAddr, body: &str) -> Reply {
    post_with(
        address,
        &[
            "Content-Type: application/json",
            &format!("Origin: http://{address}"),
            "Sec-Fetch-Site: same-origin",
        ],
        body.as_bytes(),
    )
}

pub fn sign_up(email: &str) -> String {
    serde_json::json!({
        "name": "Ada Lovelace",
        "email": email,
        "company": "Analytical Engines",
        "role": "CTO",
        "interest": "enterprise",
        "message": "A booking app, please.",
        "privacyNotice": NOTICE,
    })
    .to_string()
}

/// [`sign_up`] for `email`, with one field set to `value`.
pub fn sign_up_with(email: &str, field: &str, value: &str) -> String {
    let mut body: serde_json::Value = serde_json::from_str(&sign_up(email)).unwrap();
    body[field] = value.into();
    body.to_string()
}

pub fn json(reply: &Reply) -> serde_json::Value {
    serde_json::from_slice(&reply.body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&reply.body)))
}

pub fn error(reply: &Reply) -> String {
    json(reply)["error"].as_str().unwrap_or_default().to_owned()
}

// --- The binary ------------------------------------------------------------------------

/// `lathe-site serve` on a free port, killed when dropped; its standard error is kept.
pub struct Server {
    pub child: Child,
    pub address: SocketAddr,
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
            .args(["--port", "0", "--sign-ups-per-minute", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(database) = database {
            command.args(["--database", &database.display()]);
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
        // The "serving DIST on http://ADDRESS" line; the rest of standard output is read
        // and dropped, so that the server never blocks on a full pipe.
        let (found, bound) = std::sync::mpsc::channel();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(stdout).map_while(Result::ok) {
                let said = line.strip_prefix("serving ");
                if let Some((_, address)) = said.and_then(|rest| rest.rsplit_once(" on http://")) {
                    let _ = found.send(address.parse::<SocketAddr>().unwrap());
                }
            }
        });
        let started = Instant::now();
        let address = loop {
            if let Ok(address) = bound.recv_timeout(Duration::from_millis(20)) {
                break address;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the server did not start: {}",
                stderr.lock().unwrap()
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the server exited ({status}): {}", stderr.lock().unwrap());
            }
        };
        Self {
            child,
            address,
            stderr,
        }
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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Threads posting new sign-ups (addresses starting with `prefix`) until `stop`;
/// returns every address answered 2xx.
pub fn load(
    address: SocketAddr,
    prefix: &str,
    threads: usize,
    stop: &AtomicBool,
) -> BTreeSet<String> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut acknowledged = Vec::new();
                    let mut n = 0;
                    while !stop.load(Ordering::Relaxed) {
                        n += 1;
                        let email = format!("{prefix}{t}.n{n}@example.com");
                        if let Some(reply) = try_post(address, &sign_up(&email))
                            && (200..300).contains(&reply.status)
                        {
                            acknowledged.push(email);
                        }
                    }
                    acknowledged
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    })
}

/// A post that may find the server gone: `None` for no complete answer.
pub fn try_post(address: SocketAddr, body: &str) -> Option<Reply> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(2)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .ok()?;
    let request = format!(
        "POST /api/waitlist HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let status = text.split(' ').nth(1)?.parse().ok()?;
    text.contains("\r\n\r\n").then_some(Reply {
        status,
        headers: Vec::new(),
        body: Vec::new(),
    })
}
