//! The server's tests that need `lathe-site` as a process of its own: signals and kill -9,
//! descriptor limits, its command line and environment, its log and metrics (each the
//! process's), a real nginx in front, the systemd unit, and the container image.

mod faults;
mod image;
mod lifecycle;
mod mail;
mod observability;
mod server;
mod unsubscribe;
