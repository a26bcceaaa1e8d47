//! What `lathe-site`'s integration tests share (`tests/api`, in-process, and
//! `tests/process`, the binary): a small built site ([`site`]), a raw HTTP/1.1 client that
//! sends bytes exactly as given ([`client`]), databases of a test's own ([`databases`]),
//! a real SMTP server ([`smtp`]) and the receiving side's checkers ([`receiver`]),
//! sign-ups as the form posts them ([`forms`]), the owner's commands
//! ([`owner`](mod@owner)), and waiting by polling a condition ([`wait`]).

pub mod client;
pub mod databases;
pub mod forms;
pub mod owner;
pub mod receiver;
pub mod sink;
pub mod site;
pub mod smtp;
pub mod wait;
pub mod webhooks;

pub use client::{
    Reply, error, get, held_for, json, post, post_json, post_to, post_token, post_with, refusal,
    send_bytes, send_to, status_of,
};
pub use databases::{Postgres, Sqlite, sqlite};
pub use forms::{Loading, NOTICE, load, sign_up, sign_up_with};
pub use owner::{export, outbox, owner};
pub use receiver::{python_with, read_as_received};
pub use sink::Reservation;
pub use site::{fixture, scratch};
pub use smtp::{Email, Smtp};
pub use wait::{address_said, line_said, lines_said, until, wait_for};
