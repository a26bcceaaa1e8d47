//! SQLite's group commit. SQLite writes one transaction at a time, and each COMMIT waits
//! for the disk (`synchronous=FULL`): ten visitors signing up at once were ten commits,
//! one after the other, most of each the disk's. Here the writes that arrive while one
//! is being made wait for the connection together, and whoever gets it makes them all in
//! one transaction, each in a savepoint of its own: one COMMIT, and each write answered
//! only once it is on the disk. A write alone is made as before, in a transaction of its
//! own.
//!
//! A write that fails undoes its group, and each of the group's writes is then made alone,
//! as it would have been without the group. A COMMIT that fails fails them all (none was
//! answered). The group is made in a task of its own: a visitor who leaves does not
//! cancel the others' writes. Sign-ups and confirmations go through here on SQLite
//! (`sign_ups.rs`, `confirmations.rs`); PostgreSQL takes concurrent commits together on
//! its own.

use std::collections::VecDeque;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use sqlx::any::AnyRow;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection};
use tokio::sync::oneshot;

/// A write: its statements, run on the connection inside the transaction it is given,
/// and the rows they answer. It may be made twice (alone, after its group failed), so it
/// owns what it binds.
pub(super) type Write = Box<
    dyn Fn(&mut AnyConnection) -> BoxFuture<'_, Result<Vec<AnyRow>, sqlx::Error>> + Send + Sync,
>;

/// Whether a write's rows are kept; if not, it is undone (its savepoint rolled back).
pub(super) type Keep = fn(&[AnyRow]) -> bool;

/// A write waiting for the connection, and where its answer goes.
struct Waiting {
    write: Write,
    keep: Keep,
    answer: oneshot::Sender<Result<Vec<AnyRow>, sqlx::Error>>,
}

/// The writes waiting for SQLite's one connection.
#[derive(Default)]
pub(super) struct Group {
    waiting: Mutex<VecDeque<Waiting>>,
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("waiting", &self.queue().len())
            .finish()
    }
}

impl Group {
    /// Makes `write` on `pool`'s connection, with the writes waiting beside it: its rows
    /// once they are committed (or undone, if `keep` says so).
    pub(super) async fn write(
        &self,
        pool: &AnyPool,
        write: Write,
        keep: Keep,
    ) -> Result<Vec<AnyRow>, sqlx::Error> {
        let (answer, mut answered) = oneshot::channel();
        self.queue().push_back(Waiting {
            write,
            keep,
            answer,
        });
        loop {
            tokio::select! {
                biased;
                // Made by whoever had the connection (this call, or another's).
                made = &mut answered => {
                    return made.unwrap_or_else(|_| Err(sqlx::Error::WorkerCrashed));
                }
                // Its turn, unless its write was in the group before: every write waiting.
                // (Given up here, it stays queued, and is skipped: no one waits for it.)
                connection = pool.acquire() => {
                    let connection = connection?;
                    let group: Vec<Waiting> = self
                        .queue()
                        .drain(..)
                        .filter(|waiting| !waiting.answer.is_closed())
                        .collect();
                    // A task that ends with its panic drops the answers: WorkerCrashed.
                    let _ = tokio::spawn(make(connection, group)).await;
                }
            }
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Waiting>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Makes `group` on `connection`: together if there are several, else (or after the
/// group failed) each alone.
async fn make(mut connection: PoolConnection<Any>, mut group: Vec<Waiting>) {
    if group.len() > 1 && together(&mut connection, &mut group).await {
        return;
    }
    for waiting in group {
        let made = alone(&mut connection, &waiting).await;
        let _ = waiting.answer.send(made);
    }
}

/// A write in a transaction of its own.
async fn alone(
    connection: &mut AnyConnection,
    waiting: &Waiting,
) -> Result<Vec<AnyRow>, sqlx::Error> {
    let mut tx = connection.begin().await?;
    let made = (waiting.write)(&mut tx).await?;
    if (waiting.keep)(&made) {
        tx.commit().await?;
    } else {
        tx.rollback().await?;
    }
    Ok(made)
}

/// Makes `group` in one transaction, each write in a savepoint: `true` once every write
/// is answered; `false` if one failed and the transaction was undone, every write still
/// to be made (alone).
async fn together(connection: &mut AnyConnection, group: &mut Vec<Waiting>) -> bool {
    let Ok(mut tx) = connection.begin().await else {
        return false;
    };
    let mut rows = Vec::with_capacity(group.len());
    for (i, waiting) in group.iter().enumerate() {
        // The last write's savepoint is released as the next one opens. Left open, they
        // nest, and SQLite keeps the pages every write changed in its statement journal
        // until the COMMIT: past 64 KiB that journal is a temporary file, written a page
        // per system call. Released, it is emptied after each write, in memory.
        let savepoint = if i == 0 {
            "SAVEPOINT write"
        } else {
            "RELEASE write; SAVEPOINT write"
        };
        let made = async {
            sqlx::query(savepoint).execute(&mut *tx).await?;
            let made = (waiting.write)(&mut tx).await?;
            if !(waiting.keep)(&made) {
                sqlx::query("ROLLBACK TO write").execute(&mut *tx).await?;
            }
            Ok::<_, sqlx::Error>(made)
        }
        .await;
        match made {
            Ok(made) => rows.push(made),
            Err(e) => {
                // Undone, then each alone; unless the connection may still be in the
                // transaction (see the pool's after_release): then it is not used again.
                let undone = tx.rollback().await.is_ok()
                    && connection.ping().await.is_ok()
                    && !connection.is_in_transaction();
                if undone {
                    return false;
                }
                fail(group, &e);
                return true;
            }
        }
    }
    match tx.commit().await {
        Ok(()) => {
            for (waiting, made) in group.drain(..).zip(rows) {
                let _ = waiting.answer.send(Ok(made));
            }
        }
        Err(e) => fail(group, &e),
    }
    true
}

/// Answers every write of `group` with its transaction's failure, `e`.
fn fail(group: &mut Vec<Waiting>, e: &sqlx::Error) {
    for waiting in group.drain(..) {
        let _ = waiting.answer.send(Err(sqlx::Error::AnyDriverError(
            format!("not stored: its transaction failed: {e}").into(),
        )));
    }
}
