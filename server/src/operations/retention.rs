//! The privacy notice's retention, kept by the server: a job that runs
//! [`Store::purge`] when the server starts and then once a day, and logs what went
//! (counts only: no address reaches a log). `lathe-site waitlist purge` runs the same
//! rule by hand, with `--as-of` and `--dry-run`.

use std::time::Duration;

use crate::domain::ErasedBy;
use crate::store::{Purged, Store};

/// How often the job runs.
pub const EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// Runs the purge now and then every [`EVERY`], until the process ends.
pub fn spawn(store: Store) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut daily = tokio::time::interval(EVERY);
        daily.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            daily.tick().await;
            match store.purge(crate::now_ms(), false).await {
                Ok(purged) => {
                    let (unconfirmed, retention) = counts(&purged);
                    tracing::info!(
                        unconfirmed,
                        retention,
                        emails = purged.emails,
                        "retention: purged"
                    );
                }
                // Tried again tomorrow; nothing was deleted.
                Err(e) => tracing::error!("retention: the purge failed: {e}"),
            }
        }
    })
}

/// How many entries went because nobody confirmed them, and because of inactivity.
pub fn counts(purged: &Purged) -> (usize, usize) {
    let by = |reason| purged.entries.iter().filter(|(_, b)| *b == reason).count();
    (by(ErasedBy::Unconfirmed), by(ErasedBy::Retention))
}
