//! The server as one [`Application`]: built from a [`Config`] (every listener bound, the
//! database opened and migrated, the routes put together), then run until told to stop,
//! with its background tasks (the outbox worker, the retention job, the metrics
//! listener, the rate limiter's sweep) and their shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower::ServiceBuilder;

use crate::config::{Config, WaitlistConfig};
use crate::hooks::Hooks;
use crate::http::connection::{self, Limits};
use crate::http::layers::{Headed, Meter, Metered};
use crate::http::{LoadError, Site};
use crate::mail::{Mailer, Outbox};
use crate::operations::health::Health;
use crate::operations::metrics::{self, MetricsError};
use crate::operations::{dashboard, logs, retention};
use crate::store::{Location, OpenError, Store, StoreError};
use crate::waitlist::{self, Waitlist};

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The build.
    #[error(transparent)]
    Site(#[from] LoadError),
    /// The site's own address.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The database.
    #[error(transparent)]
    Store(#[from] OpenError),
    /// The metrics' recorder or listener.
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// Whether webhooks are sent could not be recorded.
    #[error("cannot record whether webhooks are sent: {source}")]
    Webhooks {
        /// Why.
        source: StoreError,
    },
    /// What a referral is worth could not be recorded (or the line's keys remade).
    #[error("cannot set the places a referral is worth: {source}")]
    Places {
        /// Why.
        source: StoreError,
    },
}

/// A server, ready to run: its listeners bound, its database open.
pub struct Application {
    listener: TcpListener,
    address: SocketAddr,
    service: Headed<Router>,
    limits: Limits,
    draining: Arc<AtomicBool>,
    store: Option<Store>,
    outbox: Option<Outbox>,
    hooks: Option<Hooks>,
    metrics: Option<(TcpListener, PrometheusHandle)>,
    workers: bool,
    /// Tasks that run as long as the server does, whatever `workers` says.
    tasks: Vec<Task>,
    said: Vec<String>,
}

/// A background task, not started yet.
type Task = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

impl Application {
    /// Loads the build, opens the database, binds the listeners, and puts the routes
    /// together: files behind the guard, the waitlist's routes (or one that says the
    /// server is not collecting), both logged and metered; `/healthz` and `/readyz`; the
    /// build's headers around all. Nothing runs until [`Application::run_until_stopped`].
    ///
    /// # Errors
    /// See [`StartError`]: each says what and where, at once.
    pub async fn build(config: Config) -> Result<Self, StartError> {
        let site = Site::load(&config.dist, config.hsts)?;
        let mut said = Vec::new();
        let mut tasks: Vec<Task> = Vec::new();
        let metrics = match config.metrics {
            Some(address) => {
                let handle = metrics::install()?;
                let listener = metrics::listen(address).await?;
                // The address bound, so that port 0 says which port the system gave.
                let address = listener.local_addr().unwrap_or(address);
                said.push(format!(
                    "metrics on http://{address}/metrics, the list's figures on http://{address}/"
                ));
                Some((listener, handle))
            }
            None => None,
        };
        let collecting = match config.waitlist {
            Some(waitlist) => Some(Collecting::build(waitlist, &mut said, &mut tasks).await?),
            None => None,
        };
        let store = collecting.as_ref().map(|c| c.store.clone());
        let draining = Arc::new(AtomicBool::new(false));
        let health = Health {
            draining: draining.clone(),
            store: store.clone(),
        };
        let logged = ServiceBuilder::new()
            .layer(logs::requests())
            .layer(Metered::layer(Meter(route_class)))
            .service(
                Router::new()
                    .merge(
                        collecting
                            .as_ref()
                            .map_or_else(waitlist::not_collecting, |c| c.routes.clone()),
                    )
                    .fallback_service(site.files()),
            );
        // Probed every few seconds by a load balancer: not logged.
        let routed = Router::new()
            .merge(health.router())
            .fallback_service(logged);
        let service = site.headed(routed);
        let listener =
            TcpListener::bind(config.address)
                .await
                .map_err(|source| StartError::Listen {
                    address: config.address,
                    source,
                })?;
        // The address bound, so that port 0 says which port the system gave.
        let address = listener.local_addr().unwrap_or(config.address);
        said.push(format!(
            "serving {} on http://{address}",
            config.dist.display()
        ));
        if let Some(collecting) = &collecting {
            said.push(collecting_line(&collecting.location));
        }
        let (outbox, hooks) = collecting.map_or((None, None), |c| (c.outbox, c.hooks));
        Ok(Self {
            listener,
            address,
            service,
            limits: config.limits,
            draining,
            store,
            outbox,
            hooks,
            metrics,
            workers: config.workers,
            tasks,
            said,
        })
    }

    /// The address the site is served on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The port the site is served on.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// The whole of what is served, to call without a socket (tests use
    /// `tower::ServiceExt::oneshot`).
    pub fn service(&self) -> Headed<Router> {
        self.service.clone()
    }

    /// The outbox's worker, when the server confirms addresses (tests run its due
    /// deliveries by hand).
    pub fn outbox(&self) -> Option<&Outbox> {
        self.outbox.as_ref()
    }

    /// The waitlist's store, when the server collects (tests give the referral credits
    /// due by hand: [`Store::credit_due`]).
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The webhook worker, when the server has a receiver (tests run its due deliveries
    /// by hand).
    pub fn hooks(&self) -> Option<&Hooks> {
        self.hooks.as_ref()
    }

    /// What the server says when it starts, a line each: what it serves and where, and
    /// whether it collects and confirms.
    pub fn said(&self) -> &[String] {
        &self.said
    }

    /// Serves until `stop` resolves; then `/readyz` answers 503 while the server goes on
    /// serving for [`Limits::shutdown_delay`] (time for a load balancer to notice), then
    /// it finishes the requests under way ([`connection::serve`]), stops its background
    /// tasks and closes the database.
    ///
    /// # Errors
    /// The listener failing.
    pub async fn run_until_stopped(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let mut tasks: Vec<JoinHandle<()>> = self.tasks.into_iter().map(tokio::spawn).collect();
        if let Some((listener, handle)) = self.metrics {
            let owner = dashboard::router(handle, self.store.clone());
            tasks.push(tokio::spawn(async move {
                let _ = axum::serve(listener, owner).await;
            }));
        }
        if self.workers {
            if let Some(outbox) = self.outbox {
                tasks.push(outbox.spawn());
            }
            if let Some(hooks) = self.hooks {
                tasks.push(tokio::spawn(hooks.run()));
            }
            if let Some(store) = &self.store {
                tasks.push(retention::spawn(store.clone()));
                tasks.push(tokio::spawn(waitlist::credits::run(store.clone())));
                tasks.push(tokio::spawn(waitlist::counts::run(store.clone())));
            }
        }
        let draining = self.draining;
        let delay = self.limits.shutdown_delay;
        let stop = async move {
            stop.await;
            draining.store(true, Ordering::SeqCst);
            tokio::time::sleep(delay).await;
        };
        let served = connection::serve(self.listener, self.service, self.limits, stop).await;
        for task in tasks {
            task.abort();
        }
        if let Some(store) = self.store {
            store.close().await;
        }
        served
    }
}

/// The waitlist's part of a server: its store and routes, and its workers.
struct Collecting {
    store: Store,
    location: Location,
    routes: Router,
    outbox: Option<Outbox>,
    hooks: Option<Hooks>,
}

impl Collecting {
    /// Opens the database and puts the waitlist together as `waitlist` says, saying so in
    /// `said` and adding its tasks to `tasks`.
    async fn build(
        waitlist: WaitlistConfig,
        said: &mut Vec<String>,
        tasks: &mut Vec<Task>,
    ) -> Result<Self, StartError> {
        let store = Store::open(&waitlist.database).await?;
        store
            .set_places(waitlist.settings.places_per_referral)
            .await
            .map_err(|source| StartError::Places { source })?;
        let mut endpoint = Waitlist::new(store.clone(), waitlist.settings);
        if let Some(proofs) = waitlist.proofs {
            endpoint = endpoint.with_proofs(proofs);
            said.push("asking each sign-up for a proof of work (--proof-of-work)".into());
        }
        let mut outbox = None;
        if let Some(mail) = waitlist.mail {
            let worker = Outbox::new(
                store.clone(),
                Mailer::new(mail.server),
                mail.key.clone(),
                &mail.site_url,
            );
            endpoint = endpoint.confirming(mail.key, worker.waker());
            outbox = Some(worker);
            said.push("confirming addresses by email (--smtp)".into());
        } else {
            said.push("no --smtp: addresses are stored unconfirmed, and no email is sent".into());
        }
        if let Some(forgetting) = endpoint.forgetting() {
            tasks.push(Box::pin(forgetting));
        }
        store
            .set_webhooks(waitlist.webhooks.is_some())
            .await
            .map_err(|source| StartError::Webhooks { source })?;
        let hooks = waitlist.webhooks.map(|receiver| {
            said.push("telling the webhook receiver of each event (--webhook-url)".into());
            Hooks::new(store.clone(), receiver)
        });
        Ok(Self {
            store,
            location: waitlist.database,
            routes: endpoint.router(),
            outbox,
            hooks,
        })
    }
}

/// Which kind of route a path is, for the metrics' labels: few values, never the path.
fn route_class(path: &str) -> &'static str {
    if path == waitlist::PATH {
        "sign-up"
    } else if path.starts_with("/assets/") {
        "asset"
    } else {
        "page"
    }
}

fn collecting_line(location: &Location) -> String {
    format!(
        "collecting sign-ups at POST {} into {}",
        waitlist::PATH,
        location.display()
    )
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
