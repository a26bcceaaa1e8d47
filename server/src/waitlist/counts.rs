//! The worker that keeps the line's counts compact ([`Store::fold_counts`]): every
//! [`FOLD_EVERY`], each bucket behind the last two is folded into one row, so that a
//! place reads a few hundred rows of counts at a million entries, not sixteen thousand.
//! Every instance runs it; two at once fold what the other left (a fold never waits).

use std::time::Duration;

use crate::store::Store;

/// How often the worker folds. A bucket is 4,096 entries of the line: even a launch
/// day's confirmations fill a few an hour.
pub const FOLD_EVERY: Duration = Duration::from_secs(60);

/// Folds the counts now and then every [`FOLD_EVERY`], until the task is dropped.
pub async fn run(store: Store) {
    let mut every = tokio::time::interval(FOLD_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match store.fold_counts().await {
            Ok(0) => {}
            Ok(removed) => tracing::debug!(removed, "the line's counts folded"),
            // Tried again at the next tick; each bucket's fold is whole or not at all.
            Err(e) => tracing::error!("the line's counts cannot be folded: {e}"),
        }
    }
}
