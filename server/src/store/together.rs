//! PostgreSQL's writes made together: sign-ups (`sign_ups.rs`) and confirmations
//! (`confirmations.rs`). Each is one statement, and most of what a statement costs
//! PostgreSQL is its own: the plan's writes started and ended, the commit, the wake-ups of
//! both ends. Ten visitors signing up at once were ten such statements, each four times
//! the work of one plain INSERT. Here at most [`AT_ONCE`] statements of a kind are in the
//! database at a time; the writes that arrive meanwhile wait, and whoever's turn comes
//! makes all those waiting (up to [`MOST`]) in one statement, with one row of values each
//! (a statement that takes longer than [`HOLD`] gives its turn up). A write alone is made
//! as before, by the statement of its own: one visitor at a time waits no longer than
//! before.
//!
//! Rows a statement writes twice would fail it (PostgreSQL's "ON CONFLICT DO UPDATE
//! command cannot affect row a second time"), and writes of one address, client, proof
//! or entry must see each other's as they would one after the other: such a write (one
//! sharing a [`Batched::marks`] value) waits for a statement after the one that takes the
//! first. So do those of another shape ([`Batched::goes_with`]): one statement has one.
//!
//! A statement that fails is undone whole (autocommit): its writes are then each made
//! alone, as without the others, so that one write's failure is its own. If the
//! database is unreachable, each is told so, and none is tried again. The statement is
//! made in a task of its own: a visitor who leaves does not cancel the others'.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::sync::Mutex;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};
use tokio::sync::{Semaphore, oneshot};

use super::unreachable;

/// How many statements of a kind are in the database at a time. Two keep both of this
/// machine's PostgreSQL cores busy while the others' writes gather; more made smaller
/// groups, and each statement's own cost came back (docs/server.md, "Sign-ups
/// together").
pub(super) const AT_ONCE: usize = 2;

/// How long a statement keeps its turn. One that takes longer is waiting (for a row
/// another transaction holds, or for a database under load): the writes behind it do not
/// wait for it, and the pool's connections bound how many are in the database.
pub(super) const HOLD: std::time::Duration = std::time::Duration::from_millis(50);

/// The most writes one statement makes.
pub(super) const MOST: usize = 64;

/// A write PostgreSQL can make alone or in one statement with others of its kind.
pub(super) trait Batched: Send + Sync + Sized + 'static {
    /// Whether it can be made in one statement with `first`: the same shape (what its
    /// statement's text and shared parameters depend on).
    fn goes_with(&self, first: &Self) -> bool;

    /// The values (each with what it is: an address, a client...) that no two writes of
    /// one statement share.
    fn marks(&self) -> Vec<(&'static str, String)>;

    /// Makes `group` (several, of one shape, no mark shared) in one statement: a row for
    /// each that wrote one, saying whose by its index in `n`.
    fn together(
        pool: &AnyPool,
        group: &[&Self],
    ) -> impl Future<Output = Result<Vec<AnyRow>, sqlx::Error>> + Send;

    /// Makes it in a statement of its own: its row, if it wrote one.
    fn alone(
        &self,
        pool: &AnyPool,
    ) -> impl Future<Output = Result<Option<AnyRow>, sqlx::Error>> + Send;
}

/// The values of the writes of a statement together, as the JSON array it reads (with
/// `json_to_recordset`): an object each, numbered in `n` (its index), for the statement's
/// row for it to say whose it is.
pub(super) fn numbered<T: Serialize>(
    values: impl IntoIterator<Item = T>,
) -> Result<String, serde_json::Error> {
    /// A write's values, numbered.
    #[derive(Serialize)]
    struct Numbered<T> {
        n: usize,
        #[serde(flatten)]
        values: T,
    }
    let rows: Vec<Numbered<T>> = values
        .into_iter()
        .enumerate()
        .map(|(n, values)| Numbered { n, values })
        .collect();
    serde_json::to_string(&rows)
}

/// A write's answer: its row, if it wrote one, once committed.
type Answer = Result<Option<AnyRow>, sqlx::Error>;

/// A write waiting for its turn, its marks, and where its answer goes.
struct Waiting<B> {
    write: B,
    /// [`Batched::marks`], taken once.
    marks: Vec<(&'static str, String)>,
    answer: oneshot::Sender<Answer>,
}

/// The writes of a kind waiting for a statement, and the turns.
pub(super) struct Together<B> {
    waiting: Mutex<VecDeque<Waiting<B>>>,
    turns: Semaphore,
}

impl<B> Default for Together<B> {
    fn default() -> Self {
        Self {
            waiting: Mutex::default(),
            turns: Semaphore::new(AT_ONCE),
        }
    }
}

impl<B: Batched> std::fmt::Debug for Together<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Together")
            .field("waiting", &self.queue().len())
            .finish_non_exhaustive()
    }
}

impl<B: Batched> Together<B> {
    /// Makes `write` on `pool`, with those waiting beside it: its row, if it wrote one,
    /// once it is committed.
    pub(super) async fn make(&self, pool: &AnyPool, write: B) -> Answer {
        let (answer, mut answered) = oneshot::channel();
        let marks = write.marks();
        self.queue().push_back(Waiting {
            write,
            marks,
            answer,
        });
        loop {
            tokio::select! {
                biased;
                // Made by whoever had the turn (this call, or another's).
                made = &mut answered => {
                    return made.unwrap_or_else(|_| Err(sqlx::Error::WorkerCrashed));
                }
                // A turn: the first waiting and those that can go with it (this call's
                // own may wait for the next).
                turn = self.turns.acquire() => {
                    let Ok(turn) = turn else {
                        return Err(sqlx::Error::PoolClosed);
                    };
                    let group = self.take();
                    if !group.is_empty() {
                        // A task that ends with its panic drops the answers: WorkerCrashed.
                        let made = tokio::spawn(make(pool.clone(), group));
                        // A statement that waits (for a row another transaction holds)
                        // gives its turn up, and is answered when it is done.
                        let _ = tokio::time::timeout(HOLD, made).await;
                    }
                    drop(turn);
                }
            }
        }
    }

    /// The first write waiting and those after it that can go with it: of its shape, and
    /// sharing no mark with one already in the group. Writes whose visitors left are
    /// dropped.
    fn take(&self) -> Vec<Waiting<B>> {
        let mut queue = self.queue();
        queue.retain(|waiting| !waiting.answer.is_closed());
        let mut group: Vec<Waiting<B>> = Vec::new();
        let mut marked = HashSet::new();
        let mut left = VecDeque::with_capacity(queue.len());
        for waiting in queue.drain(..) {
            let fits = group.len() < MOST
                && group
                    .first()
                    .is_none_or(|first| waiting.write.goes_with(&first.write))
                && waiting.marks.iter().all(|mark| !marked.contains(mark));
            if fits {
                marked.extend(waiting.marks.iter().cloned());
                group.push(waiting);
            } else {
                left.push_back(waiting);
            }
        }
        *queue = left;
        group
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Waiting<B>>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Makes `group`: together if there are several, else (or after their statement failed)
/// each alone.
async fn make<B: Batched>(pool: AnyPool, group: Vec<Waiting<B>>) {
    if group.len() > 1 {
        let writes: Vec<&B> = group.iter().map(|waiting| &waiting.write).collect();
        match B::together(&pool, &writes).await {
            Ok(mut rows) => {
                // Each row says whose it is.
                let mut answers: Vec<Option<AnyRow>> = (0..group.len()).map(|_| None).collect();
                for row in rows.drain(..) {
                    let n = row
                        .try_get::<i64, _>("n")
                        .ok()
                        .and_then(|n| usize::try_from(n).ok());
                    if let Some(slot) = n.and_then(|n| answers.get_mut(n)) {
                        *slot = Some(row);
                    }
                }
                for (waiting, row) in group.into_iter().zip(answers) {
                    let _ = waiting.answer.send(Ok(row));
                }
                return;
            }
            Err(e) if unreachable(&e) => {
                for waiting in group {
                    let _ = waiting.answer.send(Err(again(&e)));
                }
                return;
            }
            // Undone whole: each alone.
            Err(_) => {}
        }
    }
    for waiting in group {
        let made = waiting.write.alone(&pool).await;
        let _ = waiting.answer.send(made);
    }
}

/// `e` again, for each write of a group its database did not answer, still saying so.
fn again(e: &sqlx::Error) -> sqlx::Error {
    match e {
        sqlx::Error::PoolTimedOut => sqlx::Error::PoolTimedOut,
        sqlx::Error::PoolClosed => sqlx::Error::PoolClosed,
        sqlx::Error::WorkerCrashed => sqlx::Error::WorkerCrashed,
        sqlx::Error::Io(io) => sqlx::Error::Io(std::io::Error::new(io.kind(), io.to_string())),
        other => sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            other.to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::again;
    use crate::store::unreachable;

    #[test]
    fn an_unreachable_database_is_said_again_as_unreachable_with_its_reason() {
        for e in [
            sqlx::Error::PoolTimedOut,
            sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "refused by the host",
            )),
            sqlx::Error::Protocol("a closed socket".to_owned()),
        ] {
            let said = again(&e);
            assert!(unreachable(&said), "{said}");
            assert!(
                said.to_string().contains(&e.to_string()) || matches!(e, sqlx::Error::PoolTimedOut),
                "{said} for {e}"
            );
        }
    }
}
