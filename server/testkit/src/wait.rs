//! Waiting for something that happens elsewhere (another process, another thread): a
//! condition polled until it holds, never a sleep in its place.

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
