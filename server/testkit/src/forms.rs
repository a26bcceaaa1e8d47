//! Sign-ups as the form posts them, and a load of them.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::client::try_post;

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

/// Threads posting new sign-ups (addresses starting with `prefix`) until `stop`;
/// returns every address answered 2xx.
///
/// # Panics
/// When a thread does.
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
