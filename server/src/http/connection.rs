//! How connections are accepted, bounded and ended, so that no client can hold the server:
//!
//! - a request's head must arrive whole within [`Limits::header_timeout`] of the server
//!   starting to wait for it, on a new connection or after the last response of a kept-alive
//!   one (hyper's header read timeout);
//! - a connection on which no byte moves either way for [`Limits::idle_timeout`] is closed
//!   ([`Watched`]): a stalled body, a client that stopped reading;
//! - a sign-up's body has its own deadline, set where the waitlist's routes are (408);
//! - at most [`Limits::max_connections`] are served at once, below the process's
//!   descriptor limit, so that the database and the files always have descriptors; the
//!   next ones wait in the listen queue;
//! - on stop, the listener closes, idle connections close, requests under way finish, and
//!   whatever is still open after [`Limits::shutdown_timeout`] is dropped.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use std::convert::Infallible;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tower::{Service, ServiceExt};

/// Descriptors kept back from connections: the database's, its write-ahead log's, the
/// listener's, standard streams, and room to spare.
const RESERVED_DESCRIPTORS: u64 = 64;

/// The bounds on every connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long a request's head may take to arrive, counted from when the server starts
    /// waiting for it.
    pub header_timeout: Duration,
    /// How long a connection may go without a byte moving either way while the server
    /// waits on it.
    pub idle_timeout: Duration,
    /// How many connections are served at once; `None` for as many as the descriptor
    /// limit allows ([`max_connections`], which raises it first, when serving starts).
    pub max_connections: Option<usize>,
    /// How long requests under way may take to finish once the server stops accepting.
    pub shutdown_timeout: Duration,
    /// Told to stop, how long the server goes on accepting and serving, `/readyz`
    /// answering 503, before it stops accepting (time for a load balancer to notice).
    pub shutdown_delay: Duration,
}

impl Limits {
    /// `lathe-site serve`'s defaults (its flags say the same).
    pub const DEFAULT: Limits = Limits {
        header_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(60),
        max_connections: None,
        shutdown_timeout: Duration::from_secs(10),
        shutdown_delay: Duration::ZERO,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// As many connections as the descriptor limit allows, less [`RESERVED_DESCRIPTORS`],
/// after raising the limit to what the system allows this process (as Go and nginx do).
pub fn max_connections() -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX)
        .or_else(|_| rlimit::getrlimit(rlimit::Resource::NOFILE).map(|(soft, _)| soft))
        .unwrap_or(1024);
    let usable = limit.saturating_sub(RESERVED_DESCRIPTORS).clamp(1, 1 << 20);
    usize::try_from(usable).unwrap_or(1 << 20)
}

/// Serves `service` on `listener` within `limits` until `stop` resolves, then ends as the
/// module's documentation says.
///
/// # Errors
/// None today: a failed accept is retried (a full descriptor table frees up as
/// connections end). The `Result` leaves room for listener failures that cannot be.
pub async fn serve<S>(
    listener: TcpListener,
    service: S,
    limits: Limits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    let slots = limits
        .max_connections
        .unwrap_or_else(max_connections)
        .max(1);
    let slots = Arc::new(Semaphore::new(slots));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let mut stop = std::pin::pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_closed) => break,
            },
            () = &mut stop => break,
        };
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    if !is_connection_error(&e) {
                        // Out of descriptors, most likely: wait for some to free up.
                        tracing::error!("cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Without TCP_NODELAY, a response written in two parts waits for the client's
        // delayed acknowledgement: 40 ms a request on a kept-alive connection.
        let _ = tcp.set_nodelay(true);
        let service = service
            .clone()
            .map_request(move |request: hyper::Request<Incoming>| {
                let mut request = request.map(Body::new);
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            });
        let connection = http.serve_connection(
            TokioIo::new(Watched::new(tcp, limits.idle_timeout)),
            TowerToHyperService::new(service),
        );
        let connection = graceful.watch(connection);
        metrics::gauge!(crate::operations::metrics::OPEN_CONNECTIONS).increment(1);
        tokio::spawn(async move {
            let _ = connection.await;
            metrics::gauge!(crate::operations::metrics::OPEN_CONNECTIONS).decrement(1);
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "connections still open {} s after the stop were closed",
            limits.shutdown_timeout.as_secs_f32()
        );
    }
    Ok(())
}

/// An accept error that concerns one connection only (it went before it was accepted).
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

pin_project! {
    /// A connection that fails with `TimedOut` once no byte has moved either way for its
    /// idle timeout while the server waits to read or write.
    pub struct Watched<T> {
        #[pin]
        io: T,
        clock: IdleClock,
    }
}

impl<T> Watched<T> {
    /// `io`, closed after `idle` without progress.
    pub fn new(io: T, idle: Duration) -> Self {
        Self {
            io,
            clock: IdleClock {
                deadline: Box::pin(tokio::time::sleep(idle)),
                moved: Instant::now(),
                idle,
            },
        }
    }
}

/// When bytes last moved on a watched connection, and the timer that ends it.
///
/// Progress only notes the time; the timer is moved when it fires early. Resetting it
/// on every read and write took a lock on tokio's timer wheel three times a request.
struct IdleClock {
    deadline: Pin<Box<Sleep>>,
    moved: Instant,
    idle: Duration,
}

impl IdleClock {
    /// After an operation on the connection: if it `moved_bytes`, the time is noted; if it
    /// waits, it fails once the idle time has passed since bytes last moved. An operation
    /// that is done without moving a byte (a flush with nothing buffered, as hyper makes
    /// whenever its task wakes) is not progress: counted as such, a connection woken now
    /// and then was never closed.
    fn watch<T>(
        &mut self,
        result: Poll<io::Result<T>>,
        moved_bytes: bool,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        if moved_bytes {
            self.moved = Instant::now();
        }
        if result.is_ready() {
            return result;
        }
        while self.deadline.as_mut().poll(cx).is_ready() {
            let due = self.moved + self.idle;
            if due <= Instant::now() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the connection was idle too long",
                )));
            }
            self.deadline.as_mut().reset(due);
        }
        Poll::Pending
    }
}

/// Whether a write moved bytes.
fn wrote(result: &Poll<io::Result<usize>>) -> bool {
    matches!(result, Poll::Ready(Ok(n)) if *n > 0)
}

impl<T: AsyncRead> AsyncRead for Watched<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let result = this.io.poll_read(cx, buf);
        this.clock.watch(result, buf.filled().len() > before, cx)
    }
}

impl<T: AsyncWrite> AsyncWrite for Watched<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let result = this.io.poll_write(cx, buf);
        let moved = wrote(&result);
        this.clock.watch(result, moved, cx)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let result = this.io.poll_flush(cx);
        this.clock.watch(result, false, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let result = this.io.poll_write_vectored(cx, bufs);
        let moved = wrote(&result);
        this.clock.watch(result, moved, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const IDLE: Duration = Duration::from_secs(2);

    /// Reads from `watched` until it fails, flushing it every `every` meanwhile (as hyper
    /// does when it has nothing to write); how long after `started` it failed, and how.
    async fn read_until_error(
        watched: &mut Watched<tokio::io::DuplexStream>,
        every: Duration,
        started: Instant,
    ) -> (Duration, io::ErrorKind) {
        let mut flushes = tokio::time::interval(every);
        let mut buf = [0; 16];
        let give_up = tokio::time::sleep(Duration::from_secs(60));
        tokio::pin!(give_up);
        loop {
            tokio::select! {
                read = watched.read(&mut buf) => match read {
                    Err(e) => return (started.elapsed(), e.kind()),
                    Ok(0) => panic!("the peer closed"),
                    Ok(_) => {}
                },
                _ = flushes.tick() => watched.flush().await.unwrap(),
                () = &mut give_up => panic!("still open after a minute"),
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn flushing_nothing_is_not_progress() {
        let (_peer, io) = tokio::io::duplex(64);
        let started = Instant::now();
        let mut watched = Watched::new(io, IDLE);
        let (after, kind) =
            read_until_error(&mut watched, Duration::from_millis(300), started).await;
        assert_eq!(kind, io::ErrorKind::TimedOut);
        assert_eq!(after, IDLE, "closed after {after:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn each_byte_that_moves_gives_another_idle_period() {
        let (mut peer, io) = tokio::io::duplex(64);
        let started = Instant::now();
        let mut watched = Watched::new(io, IDLE);
        let writer = tokio::spawn(async move {
            for _ in 0..4 {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                peer.write_all(b"x").await.unwrap();
            }
            peer
        });
        let (after, kind) =
            read_until_error(&mut watched, Duration::from_millis(700), started).await;
        assert_eq!(kind, io::ErrorKind::TimedOut);
        // The last byte came at 6 s.
        assert_eq!(
            after,
            Duration::from_secs(6) + IDLE,
            "closed after {after:?}"
        );
        drop(writer.await.unwrap());
    }
}
