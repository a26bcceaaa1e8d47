//! What the waitlist is about, as plain types with no I/O: an entry and its status, the
//! emails it may be sent, the signed links in them, the pace of a wave's emails, and
//! which referrals may earn a credit.
//! Every other module builds on these; they depend on nothing of this crate.

pub mod email;
pub mod entry;
pub mod pace;
pub mod referral;
pub mod token;

pub use email::{Kind, Letter};
pub use entry::{Entry, ErasedBy, Status, time};
