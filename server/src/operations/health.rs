//! `GET /healthz` and `GET /readyz`, for load balancers and orchestrators. `/healthz`
//! says the process answers; `/readyz` that it should be sent traffic: 200 while the
//! database (if it collects) answers within [`READY_TIMEOUT`], 503 with the reason
//! otherwise, and 503 from the moment it is told to stop (see
//! `--shutdown-delay`). Neither is cached or logged as a page.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::store::{Store, StoreError};

/// The liveness route.
pub const HEALTHZ: &str = "/healthz";
/// The readiness route.
pub const READYZ: &str = "/readyz";
/// How long the database may take to answer a readiness check.
pub const READY_TIMEOUT: Duration = Duration::from_secs(1);

/// What readiness depends on.
#[derive(Clone)]
pub struct Health {
    /// Set once the server is told to stop.
    pub draining: Arc<AtomicBool>,
    /// The waitlist's database, when the server collects.
    pub store: Option<Store>,
}

impl Health {
    /// The two routes.
    pub fn router(self) -> Router {
        Router::new()
            .route(HEALTHZ, get(healthz))
            .route(READYZ, get(readyz))
            .with_state(self)
    }
}

async fn healthz() -> Response {
    text(StatusCode::OK, "ok\n".to_owned())
}

async fn readyz(State(health): State<Health>) -> Response {
    if health.draining.load(Ordering::SeqCst) {
        return text(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting down\n".to_owned(),
        );
    }
    let Some(store) = health.store else {
        return text(StatusCode::OK, "ready\n".to_owned());
    };
    match tokio::time::timeout(READY_TIMEOUT, store.ready()).await {
        Ok(Ok(())) => text(StatusCode::OK, "ready\n".to_owned()),
        Ok(Err(StoreError::Unreachable(reason))) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the database is unreachable: {reason}\n"),
        ),
        Ok(Err(StoreError::Failed(e))) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the database failed: {e}\n"),
        ),
        Err(_) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the database did not answer within {} s\n",
                READY_TIMEOUT.as_secs()
            ),
        ),
    }
}

/// A plain-text answer that nothing stores.
fn text(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// How long [`probe`] waits for a whole answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Why [`probe`] had no answer.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Nothing listens there.
    #[error("cannot connect to {0}: {1}")]
    Connect(std::net::SocketAddr, #[source] std::io::Error),
    /// It did not speak HTTP.
    #[error("{0}")]
    Http(String),
    /// It did not answer in time.
    #[error("no answer from {0} within {PROBE_TIMEOUT:?}")]
    Silent(std::net::SocketAddr),
}

/// Asks the server at `address` for [`READYZ`] (the container image's health check,
/// `lathe-site ready`: the image has no curl) and gives the status it answered.
///
/// # Errors
/// No connection, no answer within [`PROBE_TIMEOUT`], or not HTTP.
pub async fn probe(address: std::net::SocketAddr) -> Result<StatusCode, ProbeError> {
    use http_body_util::Empty;
    use hyper::body::Bytes;
    let asked = async {
        let stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| ProbeError::Connect(address, e))?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(|e| ProbeError::Http(e.to_string()))?;
        tokio::spawn(connection);
        let request = hyper::Request::get(READYZ)
            .header(header::HOST, address.to_string())
            .body(Empty::<Bytes>::new())
            .map_err(|e| ProbeError::Http(e.to_string()))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| ProbeError::Http(e.to_string()))?;
        Ok(response.status())
    };
    tokio::time::timeout(PROBE_TIMEOUT, asked)
        .await
        .map_err(|_| ProbeError::Silent(address))?
}
