//! The Lathe site's core, compiled to WebAssembly: the waitlist form's validation and
//! submit state machine, and the decorative background simulation.
//!
//! [`validation`], [`form`], [`background`] and [`paint`] are plain Rust with no
//! wasm-bindgen in them, tested natively; `wasm` is the one thin binding layer over them.

pub mod background;
pub mod form;
pub mod line;
pub mod paint;
pub mod referral;
pub mod retention;
pub mod validation;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
