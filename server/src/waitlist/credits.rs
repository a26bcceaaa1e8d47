//! The worker that gives referral credits ([`Store::credit_due`]): a moment after a
//! confirmation on this instance made one due, so that the confirmations of that moment
//! are credited together, in one transaction ([`GATHER`]); and every second for those
//! of other instances (or left by an instance that stopped). A credit is given once,
//! whichever instance's worker takes it (docs/server.md, "What a credit costs").

use std::time::Duration;

use crate::store::{CREDIT_BATCH, Store};

/// How long the worker lets credits gather after the first is due. A batch costs one
/// commit, as one credit would; on SQLite, whose commits are one at a time, a worker that
/// gave each credit as it came due took a commit from every other confirmation (2,190
/// confirmations a second without a referrer against 1,480 through a link, at a million
/// entries). So a referrer's place is at most this much (and a batch) behind its friend's
/// confirmation.
pub const GATHER: Duration = Duration::from_millis(100);
/// How often the worker looks for credits due without being woken (other instances').
const POLL: Duration = Duration::from_secs(1);

/// Gives due credits until the task is dropped.
pub async fn run(store: Store) {
    let wake = store.credits_waker();
    loop {
        match store.credit_due(crate::now_ms()).await {
            // A full batch: more may be due at once.
            Ok(settled) if settled.friends >= CREDIT_BATCH => {}
            Ok(_) => {
                tokio::select! {
                    () = wake.notified() => tokio::time::sleep(GATHER).await,
                    () = tokio::time::sleep(POLL) => {}
                }
            }
            Err(e) => {
                tracing::error!("the referral credits cannot read the database: {e}");
                tokio::time::sleep(POLL).await;
            }
        }
    }
}
