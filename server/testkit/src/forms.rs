//! Sign-ups as the form posts them, and a load of them.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::client::try_post;
use crate::wait::wait_for;

/// The privacy notice version the tests sign up with.
pub const NOTICE: &str = "2026-11-22";

/// A valid sign-up for `email`.
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
///
/// # Panics
/// Never: the sign-up is JSON.
pub fn sign_up_with(email: &str, field: &str, value: &str) -> String {
    let mut body: serde_json::Value = serde_json::from_str(&sign_up(email)).unwrap();
    body[field] = value.into();
    body.to_string()
}

/// What the threads of [`load`] share: when to stop, and how many sign-ups were answered
/// 2xx so far, so that a test acts after a number of them rather than after a time (a
/// busy machine answers fewer in a second; the count does not change with it).
#[derive(Default)]
pub struct Loading {
    stop: AtomicBool,
    acknowledged: AtomicUsize,
}

impl Loading {
    /// Sign-ups answered 2xx so far.
    pub fn acknowledged(&self) -> usize {
        self.acknowledged.load(Ordering::Relaxed)
    }

    /// Waits until `n` more sign-ups than now have been answered 2xx.
    ///
    /// # Panics
    /// When they are not, within 60 s.
    pub fn until_more(&self, n: usize) {
        let wanted = self.acknowledged() + n;
        wait_for(
            &format!("{n} more sign-ups"),
            Duration::from_secs(60),
            || self.acknowledged() >= wanted,
        );
    }

    /// Tells the threads to stop after the sign-up each has under way.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Threads posting new sign-ups (addresses starting with `prefix`) until `loading` is
/// stopped; returns every address answered 2xx.
///
/// # Panics
/// When a thread does.
pub fn load(
    address: SocketAddr,
    prefix: &str,
    threads: usize,
    loading: &Loading,
) -> BTreeSet<String> {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut acknowledged = Vec::new();
                    let mut n = 0;
                    while !loading.stop.load(Ordering::Relaxed) {
                        n += 1;
                        let email = format!("{prefix}{t}.n{n}@example.com");
                        if let Some(reply) = try_post(address, &sign_up(&email))
                            && (200..300).contains(&reply.status)
                        {
                            acknowledged.push(email);
                            loading.acknowledged.fetch_add(1, Ordering::Relaxed);
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
