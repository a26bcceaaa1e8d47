//! `lathe-site`: serves the Lathe site's static build, and collects its waitlist.
//!
//! Read it from the top: [`startup`] builds the server from a [`config::Config`]; it
//! serves the build ([`http`]), the waitlist's routes ([`waitlist`]) and the owner's
//! probes and metrics ([`operations`]), which keep their data in the [`store`] and send
//! their emails through [`mail`]. [`owner`] holds the owner's other commands. [`domain`]
//! is what they all speak of. Each arrow goes one way: startup and owner, then http,
//! waitlist and operations, then mail, then store, then domain.
//!
//! An application, not a library for others: read its documentation with the private
//! items (`cargo doc -p lathe-site --document-private-items --open`), where the links public
//! items' documentation makes to private ones resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod config;
pub mod delivery;
pub mod domain;
pub mod hooks;
pub mod http;
pub mod mail;
pub mod operations;
pub mod owner;
pub mod startup;
pub mod store;
pub mod waitlist;

/// Now, in ms since the Unix epoch: the time the rules are given (they never read a
/// clock themselves).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Microseconds since the Unix epoch (the sign-up allowances' unit).
pub fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}
