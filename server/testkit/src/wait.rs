//! Waiting for something that happens elsewhere (another process, another thread): a
//! condition polled until it holds, never a sleep in its place.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Polls `check` every 20 ms until it holds, at most `limit`: whether it did.
pub fn until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

/// [`until`], failing the test with `what` if `check` never held.
///
/// # Panics
/// When `check` did not hold within `limit`.
pub fn wait_for(what: &str, limit: Duration, check: impl FnMut() -> bool) {
    assert!(until(limit, check), "no {what} within {limit:?}");
}

/// Every line a program says on `output` up to the first that holds `marker`, that one
/// last: how a test learns that a program it started is ready, and where (the port the
/// system gave it), by reading rather than by polling a port. The rest of `output` is read
/// and dropped in a thread of its own, so that the program never blocks on a full pipe.
///
/// # Errors
/// When no such line comes within `limit`: the output ended first (the program exited) or
/// the program is stuck.
pub fn lines_said(
    output: impl Read + Send + 'static,
    marker: &'static str,
    limit: Duration,
) -> Result<Vec<String>, mpsc::RecvTimeoutError> {
    let (said, heard) = mpsc::channel();
    std::thread::spawn(move || {
        let mut said = Some(said);
        let mut lines = Vec::new();
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if said.is_none() {
                continue;
            }
            let last = line.contains(marker);
            lines.push(line);
            if last && let Some(said) = said.take() {
                let _ = said.send(std::mem::take(&mut lines));
            }
        }
    });
    heard.recv_timeout(limit)
}

/// What a program says after `marker` on the first line of `output` that holds it
/// ([`lines_said`]).
///
/// # Panics
/// When no such line comes within `limit` (the program ended, or is stuck), naming `what`.
pub fn line_said(
    what: &str,
    output: impl Read + Send + 'static,
    marker: &'static str,
    limit: Duration,
) -> String {
    let lines = lines_said(output, marker, limit)
        .unwrap_or_else(|e| panic!("{what} never said \"{marker}...\" ({e})"));
    let last = lines.last().map(String::as_str).unwrap_or_default();
    last.split_once(marker)
        .map_or("", |(_, rest)| rest)
        .trim()
        .to_owned()
}

/// [`line_said`] for a program that says `listening on ADDRESS`: the address.
///
/// # Panics
/// As [`line_said`], or when what follows is not an address.
pub fn address_said(
    what: &str,
    output: impl Read + Send + 'static,
    marker: &'static str,
    limit: Duration,
) -> std::net::SocketAddr {
    let said = line_said(what, output, marker, limit);
    let address = said.split_whitespace().next().unwrap_or_default();
    address
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|e| panic!("{what} said \"{marker}{said}\": not an address ({e})"))
}
