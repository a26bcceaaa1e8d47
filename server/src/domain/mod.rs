//! What the waitlist is about, as plain types with no I/O: an entry and its status, the
//! emails it may be sent, the signed links in them, and the pace of a wave's emails.
//! Every other module builds on these; they depend on nothing of this crate.

pub mod email;
pub mod entry;
pub mod pace;
pub mod token;

pub use email::{Kind, Letter};
pub use entry::{Entry, ErasedBy, Status, time};
