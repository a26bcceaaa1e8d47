//! PostgreSQL's sign-ups made together. A sign-up is one statement (`sign_ups.rs`), and
//! most of what a statement costs PostgreSQL is its own: the plan's five writes started
//! and ended, the commit, the wake-ups of both ends. Ten visitors signing up at once were
//! ten such statements, each four times the work of one plain INSERT. Here at most
//! [`AT_ONCE`] sign-up statements are in the database at a time; the sign-ups that arrive
//! meanwhile wait, and whoever's turn comes makes all those waiting (up to [`MOST`]) in one
//! statement, with one row of values each (a statement that takes longer than [`HOLD`]
//! gives its turn up). A sign-up alone is made as before, by the
//! statement of its own: one visitor at a time waits no longer than before.
//!
//! Rows a statement writes twice would fail it (PostgreSQL's "ON CONFLICT DO UPDATE
//! command cannot affect row a second time"), and sign-ups of one address, client or
//! proof must see each other's writes as they would one after the other: such a sign-up
//! waits for a statement after the one that takes the first. So do those of another
//! shape (what a new entry brings, the allowance's pace): one statement has one.
//!
//! A statement that fails is undone whole (autocommit): its sign-ups are then each made
//! alone, as without the others, so that one sign-up's failure is its own. If the
//! database is unreachable, each is told so, and none is tried again. The statement is
//! made in a task of its own: a visitor who leaves does not cancel the others'.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};
use tokio::sync::{Semaphore, oneshot};

use super::sign_ups::{Parts, Values, bind, bind_together};
use super::unreachable;

/// How many sign-up statements are in the database at a time. Two keep both of this
/// machine's PostgreSQL cores busy while the others' sign-ups gather; more made smaller
/// groups, and each statement's own cost came back (docs/server.md, "Sign-ups
/// together").
pub(super) const AT_ONCE: usize = 2;

/// How long a statement keeps its turn. One that takes longer is waiting (for a row
/// another transaction holds, or for a database under load): the sign-ups behind it do
/// not wait for it, and the pool's connections bound how many are in the database.
pub(super) const HOLD: std::time::Duration = std::time::Duration::from_millis(50);

/// The most sign-ups one statement makes.
pub(super) const MOST: usize = 64;

/// A sign-up to make: its parts (for its statement alone), values, and its allowance's
/// interval and tolerance (µs), if one is taken.
pub(super) struct SignUp {
    pub(super) parts: Parts,
    pub(super) values: Values,
    pub(super) gcra: Option<(i64, i64)>,
}

impl SignUp {
    /// Whether it can be made in one statement with `other`: the same shape.
    fn same_shape(&self, other: &Self) -> bool {
        self.parts.then == other.parts.then && self.gcra == other.gcra
    }
}

/// A sign-up waiting for its turn, and where its answer goes.
struct Waiting {
    sign_up: SignUp,
    answer: oneshot::Sender<Result<AnyRow, sqlx::Error>>,
}

/// The sign-ups waiting for a statement, and the turns.
pub(super) struct Together {
    waiting: Mutex<VecDeque<Waiting>>,
    turns: Semaphore,
}

impl Default for Together {
    fn default() -> Self {
        Self {
            waiting: Mutex::default(),
            turns: Semaphore::new(AT_ONCE),
        }
    }
}

impl std::fmt::Debug for Together {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Together")
            .field("waiting", &self.queue().len())
            .finish_non_exhaustive()
    }
}

impl Together {
    /// Makes `sign_up` on `pool`, with those waiting beside it: its answer's row (the
    /// columns of [`Parts::statement`]) once it is committed.
    pub(super) async fn sign_up(
        &self,
        pool: &AnyPool,
        sign_up: SignUp,
    ) -> Result<AnyRow, sqlx::Error> {
        let (answer, mut answered) = oneshot::channel();
        self.queue().push_back(Waiting { sign_up, answer });
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

    /// The first sign-up waiting and those after it that can go with it: of its shape,
    /// and of addresses, clients and proofs not already in the group. Sign-ups whose
    /// visitors left are dropped.
    fn take(&self) -> Vec<Waiting> {
        let mut queue = self.queue();
        queue.retain(|waiting| !waiting.answer.is_closed());
        let mut group: Vec<Waiting> = Vec::new();
        let (mut keys, mut clients, mut proofs) = (HashSet::new(), HashSet::new(), HashSet::new());
        let mut left = VecDeque::with_capacity(queue.len());
        for waiting in queue.drain(..) {
            let values = &waiting.sign_up.values;
            let fits = group.len() < MOST
                && group
                    .first()
                    .is_none_or(|first| first.sign_up.same_shape(&waiting.sign_up))
                && !keys.contains(&values.key)
                && values.client.as_ref().is_none_or(|c| !clients.contains(c))
                && values
                    .signature
                    .as_ref()
                    .is_none_or(|s| !proofs.contains(s));
            if fits {
                keys.insert(values.key.clone());
                if let Some(client) = &values.client {
                    clients.insert(client.clone());
                }
                if let Some(signature) = &values.signature {
                    proofs.insert(signature.clone());
                }
                group.push(waiting);
            } else {
                left.push_back(waiting);
            }
        }
        *queue = left;
        group
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Waiting>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Makes `group`: together if there are several, else (or after their statement failed)
/// each alone.
async fn make(pool: AnyPool, group: Vec<Waiting>) {
    if group.len() > 1 {
        match together(&pool, &group).await {
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
                    let _ = waiting.answer.send(row.ok_or(sqlx::Error::RowNotFound));
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
        let made = alone(&pool, &waiting.sign_up).await;
        let _ = waiting.answer.send(made);
    }
}

/// Several sign-ups of one shape in one statement ([`Parts::together`]).
async fn together(pool: &AnyPool, group: &[Waiting]) -> Result<Vec<AnyRow>, sqlx::Error> {
    let first = &group[0].sign_up;
    let statement = Parts::together(first.parts.then);
    let values: Vec<&Values> = group.iter().map(|w| &w.sign_up.values).collect();
    bind_together(
        &statement,
        first.parts.then,
        &values,
        first.gcra.unwrap_or((0, 0)),
    )
    .map_err(|e| sqlx::Error::Encode(Box::new(e)))?
    .fetch_all(pool)
    .await
}

/// A sign-up in a statement of its own ([`Parts::statement`]).
async fn alone(pool: &AnyPool, sign_up: &SignUp) -> Result<AnyRow, sqlx::Error> {
    let statement = sign_up.parts.statement();
    bind(
        &statement,
        &sign_up.parts,
        &sign_up.values,
        sign_up.gcra.unwrap_or((0, 0)),
    )
    .fetch_one(pool)
    .await
}

/// `e` again, for each sign-up of a group its database did not answer, still saying so.
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
