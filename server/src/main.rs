//! `lathe-site`: the Lathe site's server and build helper. See `lathe-site --help`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use lathe_site::connection::Limits;
use lathe_site::mail::Mailer;
use lathe_site::outbox::Outbox;
use lathe_site::store::{ErasedBy, Location, Status, Store};
use lathe_site::token::Key;
use lathe_site::waitlist::{Settings, Waitlist};
use lathe_site::{Site, compress, export, headers};

#[derive(Parser)]
#[command(
    version,
    about = "Serves the Lathe site's static build, and prepares it"
)]
struct Cli {
    /// How log lines are written, to standard error: text, or JSON (one object a line,
    /// for log shippers). Which lines: `RUST_LOG` (info by default).
    #[arg(long, global = true, env = "LATHE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// Logs to standard error at `RUST_LOG`'s levels (info unless it says otherwise).
///
/// Lines are formatted where they happen and written by a thread of their own, in
/// batches: a request's line no longer costs it a write to standard error (and the lock
/// around it), about a tenth of the server's requests per second. No line is dropped: when
/// the writer falls behind, loggers wait. The guard writes what is left when it drops, at
/// the end of `main`.
fn init_logs(format: LogFormat) -> tracing_appender::non_blocking::WorkerGuard {
    use std::io::IsTerminal;
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("logs")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_target(false);
    match format {
        LogFormat::Text => logs.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
    guard
}

#[derive(Subcommand)]
enum Command {
    /// Serves the built site: clean URLs, its 404 page, precompressed files, conditional
    /// requests and the headers of its _headers file. Ctrl-C or SIGTERM stop it gracefully.
    Serve {
        /// The built site.
        #[arg(long, env = "LATHE_DIST", default_value = "web/dist")]
        dist: PathBuf,
        /// The port to listen on.
        #[arg(long, env = "LATHE_PORT", default_value_t = 4173)]
        port: u16,
        /// The address to listen on: loopback unless told otherwise (0.0.0.0 for all).
        #[arg(long, env = "LATHE_HOST", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
        host: IpAddr,
        /// Send Strict-Transport-Security (only behind TLS).
        #[arg(long, env = "LATHE_HSTS", value_parser = clap::builder::BoolishValueParser::new())]
        hsts: bool,
        /// Collect the waitlist's sign-ups at POST /api/waitlist, into this database: a
        /// SQLite file (created if missing) or a postgres:// URL. Without it the server
        /// collects nothing (and the endpoint says so).
        #[arg(long, env = "LATHE_DATABASE")]
        database: Option<Location>,
        /// Sign-ups accepted per client per minute (0: no limit).
        #[arg(long, env = "LATHE_SIGN_UPS_PER_MINUTE", default_value_t = 5)]
        sign_ups_per_minute: u32,
        /// Another origin allowed to post sign-ups (repeat for several; in the
        /// environment, separated by commas), such as the site's own when this server is
        /// its form service on another host.
        #[arg(
            long = "allow-origin",
            env = "LATHE_ALLOW_ORIGIN",
            value_name = "ORIGIN",
            value_delimiter = ','
        )]
        allowed_origins: Vec<String>,
        /// Behind a proxy that appends the client's address to X-Forwarded-For and says
        /// its scheme in X-Forwarded-Proto, such as deploy/nginx/lathe-waitlist.conf: count
        /// sign-ups against the client it names, and take its scheme as the site's.
        #[arg(long, env = "LATHE_BEHIND_PROXY", value_parser = clap::builder::BoolishValueParser::new())]
        behind_proxy: bool,
        /// With --behind-proxy: how many proxies append to X-Forwarded-For (a CDN in front
        /// of nginx makes 2). The client is that many entries from the right; what a client
        /// writes into the header itself comes before them and is never read.
        #[arg(long, env = "LATHE_TRUSTED_PROXIES", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
        trusted_proxies: u16,
        /// Serve Prometheus metrics at `http://ADDRESS/metrics` (on a listener of its own:
        /// keep it off the public network, as 127.0.0.1:9464 does).
        #[arg(long, env = "LATHE_METRICS_ADDR", value_name = "ADDRESS")]
        metrics_addr: Option<SocketAddr>,
        #[command(flatten)]
        mail: Box<MailArgs>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// The owner's tools for the waitlist: what the GDPR page promises visitors.
    Waitlist {
        /// The database the server collects into (as `serve --database`).
        #[arg(long, env = "LATHE_DATABASE")]
        database: Location,
        #[command(subcommand)]
        command: WaitlistCommand,
    },
    /// Writes a brotli and a gzip variant, at the highest quality, beside every text and
    /// wasm file of the build (run by `make build`).
    Compress {
        /// The built site.
        #[arg(long, env = "LATHE_DIST", default_value = "web/dist")]
        dist: PathBuf,
    },
    /// Asks the server on this machine whether it is ready (`GET /readyz`): exit 0 when it
    /// answers 200 within 2 s. The container image's health check.
    Ready {
        /// The server's port (as `serve --port`).
        #[arg(long, env = "LATHE_PORT", default_value_t = 4173)]
        port: u16,
        /// The server's address (as `serve --host`); an unspecified one (0.0.0.0, ::) is
        /// asked on loopback.
        #[arg(long, env = "LATHE_HOST", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
        host: IpAddr,
    },
    /// Prints the build's site-wide headers as nginx `add_header` lines.
    NginxHeaders {
        /// The built site.
        #[arg(long, env = "LATHE_DIST", default_value = "web/dist")]
        dist: PathBuf,
    },
}

/// Confirming addresses by email (double opt-in). Without --smtp, sign-ups are stored
/// unconfirmed and no email is sent.
#[derive(Args)]
struct MailArgs {
    /// The mail server: `smtp://HOST:PORT` (plain, for a relay on this host or network),
    /// `smtp://HOST:587?tls=required` (STARTTLS) or `smtps://HOST:465`. User and password
    /// from `LATHE_SMTP_USER` and `LATHE_SMTP_PASSWORD`.
    #[arg(long, env = "LATHE_SMTP", value_name = "URL", requires_all = ["mail_from", "site_url"])]
    smtp: Option<String>,
    /// The emails' sender, whose name they call the product: "Lathe <hello@example.com>".
    #[arg(long, env = "LATHE_MAIL_FROM", value_name = "MAILBOX")]
    mail_from: Option<String>,
    /// The site's address, which the emails' links lead to: `https://lathe.example.com`.
    #[arg(long, env = "LATHE_SITE_URL", value_name = "URL")]
    site_url: Option<String>,
    /// A file holding the key the links are signed with (32 bytes or more; every instance
    /// needs the same: `openssl rand -base64 32`). Or the key itself in `LATHE_TOKEN_KEY`,
    /// or systemd's credential `token.key` (`LoadCredential=token.key:FILE`).
    #[arg(long, env = "LATHE_TOKEN_KEY_FILE", value_name = "FILE")]
    token_key_file: Option<PathBuf>,
}

impl MailArgs {
    /// The mailer and the links' key, when --smtp is given.
    fn confirming(&self) -> Result<Option<(Mailer, Key, String)>, String> {
        let Some(smtp) = &self.smtp else {
            return Ok(None);
        };
        let credentials = match (
            std::env::var("LATHE_SMTP_USER"),
            std::env::var("LATHE_SMTP_PASSWORD"),
        ) {
            (Ok(user), Ok(password)) => Some((user, password)),
            _ => None,
        };
        let from = self.mail_from.as_deref().unwrap_or_default();
        let mailer = Mailer::new(smtp, from, credentials)?;
        // Where systemd puts a unit's credentials (LoadCredential=token.key:FILE): a file
        // only root may read, handed to a service that runs as a user of its own.
        let credential = std::env::var_os("CREDENTIALS_DIRECTORY")
            .map(|dir| PathBuf::from(dir).join("token.key"))
            .filter(|file| file.exists());
        let key_text = match (
            self.token_key_file.as_ref().or(credential.as_ref()),
            std::env::var("LATHE_TOKEN_KEY"),
        ) {
            (Some(file), _) => std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read the token key {}: {e}", file.display()))?,
            (None, Ok(text)) => text,
            (None, Err(_)) => {
                return Err(
                    "--smtp needs the key its links are signed with: --token-key-file FILE, LATHE_TOKEN_KEY, or systemd's credential token.key"
                        .into(),
                );
            }
        };
        let key = Key::new(&key_text).map_err(|e| e.to_string())?;
        let site = self.site_url.clone().unwrap_or_default();
        if !(site.starts_with("https://") || site.starts_with("http://")) {
            return Err(format!(
                "--site-url must be the site's http(s):// address, not {site:?}"
            ));
        }
        Ok(Some((mailer, key, site)))
    }
}

/// What bounds each connection (see `connection.rs`). Durations as `10s`, `500ms`, `1m`.
#[derive(Args)]
struct LimitArgs {
    /// How long a request's head may take to arrive, from when the server starts waiting
    /// for it: on a new connection, or after the last response on a kept-alive one (so
    /// also how long an idle kept-alive connection stays open).
    #[arg(long, env = "LATHE_HEADER_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    header_timeout: Duration,
    /// How long a connection may go without a byte moving either way (a stalled upload,
    /// a client that stopped reading) before it is closed.
    #[arg(long, env = "LATHE_IDLE_TIMEOUT", default_value = "60s", value_parser = humantime::parse_duration)]
    idle_timeout: Duration,
    /// How long a sign-up's body may take to arrive whole (408 after it).
    #[arg(long, env = "LATHE_BODY_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    body_timeout: Duration,
    /// How many connections are served at once; by default, as many as the descriptor
    /// limit allows, less 64 kept for the database and files. Further ones wait in the
    /// listen queue.
    #[arg(long, env = "LATHE_MAX_CONNECTIONS")]
    max_connections: Option<usize>,
    /// On Ctrl-C or SIGTERM, how long the server goes on serving with /readyz answering
    /// 503, so that a load balancer stops sending it traffic first (behind one: a few
    /// seconds more than its check interval).
    #[arg(long, env = "LATHE_SHUTDOWN_DELAY", default_value = "0s", value_parser = humantime::parse_duration)]
    shutdown_delay: Duration,
    /// Then, how long requests under way may take to finish before the server exits
    /// anyway.
    #[arg(long, env = "LATHE_SHUTDOWN_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    shutdown_timeout: Duration,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        let defaults = Limits::default();
        Limits {
            header_timeout: self.header_timeout,
            idle_timeout: self.idle_timeout,
            max_connections: self
                .max_connections
                .unwrap_or(defaults.max_connections)
                .max(1),
            shutdown_timeout: self.shutdown_timeout,
            shutdown_delay: self.shutdown_delay,
        }
    }
}

#[derive(Subcommand)]
enum WaitlistCommand {
    /// Writes every entry to standard output, oldest first, as the database hands them
    /// over (an export of any size takes little memory).
    Export {
        /// Which entries: those whose owners confirmed them (the only ones you may email
        /// where a confirmed opt-in is the law), those waiting for it, those stored by a
        /// server without --smtp, or all.
        #[arg(long, value_enum, default_value_t = StatusFilter::Confirmed)]
        status: StatusFilter,
        /// CSV (a header row, every cell quoted; a cell that a spreadsheet would run as a
        /// formula, also behind white space, starts with ', and control characters are
        /// written as U+FFFD) or JSON (an array, the text exactly as stored).
        #[arg(long, env = "LATHE_EXPORT_FORMAT", value_enum, default_value_t = Format::Csv)]
        format: Format,
    },
    /// Prints the entry for an address (as JSON), or says there is none (exit 1).
    Show {
        /// The address, in any case and either Unicode form (composed or not).
        email: String,
    },
    /// Erases the entry for an address, or says there is none (exit 1).
    Erase {
        /// The address, in any case and either Unicode form (composed or not).
        email: String,
    },
    /// Prints how many entries there are.
    Count,
    /// Prints how many emails are queued (or waiting to be tried again), sent and failed.
    Outbox,
    /// Deletes what the privacy notice says is kept no longer (the server does this when
    /// it starts and every day): addresses never confirmed 7 days after signing up,
    /// entries 2 years after their last interaction (sign-up, confirmation, email sent),
    /// and emails sent or failed over a day ago. Prints each entry that goes and why.
    Purge {
        /// Apply the rule as on this date (`2028-11-25`, midnight UTC) or time
        /// (`2028-11-25T12:00:00Z`) instead of now.
        #[arg(long, value_name = "DATE", value_parser = parse_date)]
        as_of: Option<i64>,
        /// Show what would go, and delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Writes a consistent copy of a SQLite database to FILE while the server goes on
    /// writing to it. To restore: stop the server, put FILE in the database's place
    /// (removing the old -wal and -shm files beside it), start the server. PostgreSQL:
    /// use `pg_dump`.
    Backup {
        /// Where to write the copy (a new file).
        file: PathBuf,
    },
}

/// A date (midnight UTC) or an RFC 3339 time, in ms since the Unix epoch.
fn parse_date(text: &str) -> Result<i64, String> {
    let time = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    let at = humantime::parse_rfc3339_weak(&time)
        .map_err(|_| format!("`{text}` is not a date like 2028-11-25 or 2028-11-25T12:00:00Z"))?;
    at.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .ok_or_else(|| format!("`{text}` is before 1970"))
}

#[derive(Clone, Copy, ValueEnum)]
enum StatusFilter {
    Confirmed,
    Pending,
    Unconfirmed,
    All,
}

impl StatusFilter {
    fn status(self) -> Option<Status> {
        match self {
            StatusFilter::Confirmed => Some(Status::Confirmed),
            StatusFilter::Pending => Some(Status::Pending),
            StatusFilter::Unconfirmed => Some(Status::Unconfirmed),
            StatusFilter::All => None,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Csv,
    Json,
}

/// mimalloc rather than the C library's allocator: every request allocates and frees
/// headers, spans and log lines, and `ServeDir` reads a file through a buffer of up to
/// 64 KB whenever it answers (the memo's first answers, ranges, `HEAD`), which glibc's
/// malloc consolidates on each free and musl's (the container image's) serialises; with
/// it the server answered about 7 % more requests per second (make bench, "Servers",
/// measured before the memo).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let logs = init_logs(cli.log_format);
    let result = match cli.command {
        Command::Serve {
            dist,
            port,
            host,
            hsts,
            database,
            sign_ups_per_minute,
            allowed_origins,
            behind_proxy,
            trusted_proxies,
            metrics_addr,
            mail,
            limits,
        } => {
            let settings = Settings {
                per_minute: NonZeroU32::new(sign_ups_per_minute),
                allowed_origins,
                trusted_proxies: if behind_proxy {
                    usize::from(trusted_proxies)
                } else {
                    0
                },
                body_timeout: limits.body_timeout,
            };
            serve(
                &dist,
                SocketAddr::new(host, port),
                hsts,
                limits.limits(),
                database.map(|d| (d, settings)),
                metrics_addr,
                &mail,
            )
        }
        Command::Waitlist { database, command } => waitlist(&database, command),
        Command::Compress { dist } => compress::compress(&dist)
            .map(|r| {
                println!(
                    "compressed {} files of {}: {} variants (brotli 11, gzip 9)",
                    r.files,
                    dist.display(),
                    r.variants
                );
            })
            .map_err(|e| format!("cannot compress {}: {e}", dist.display())),
        Command::Ready { port, host } => ready(SocketAddr::new(host, port)),
        Command::NginxHeaders { dist } => std::fs::read_to_string(dist.join("_headers"))
            .map_err(|e| format!("cannot read {}/_headers: {e}", dist.display()))
            .and_then(|text| headers::parse(&text).map_err(|e| e.to_string()))
            .map(|rules| print!("{}", headers::nginx(&rules))),
    };
    // Every log line out before the last word.
    drop(logs);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("lathe-site: {message}");
            ExitCode::FAILURE
        }
    }
}

#[tokio::main]
async fn serve(
    dist: &std::path::Path,
    address: SocketAddr,
    hsts: bool,
    limits: Limits,
    database: Option<(Location, Settings)>,
    metrics_addr: Option<SocketAddr>,
    mail: &MailArgs,
) -> Result<(), String> {
    let mut site = Site::load(dist, hsts).map_err(|e| e.to_string())?;
    let confirming = mail.confirming()?;
    if let Some(address) = metrics_addr {
        lathe_site::prometheus::serve(address, lathe_site::prometheus::install()?).await?;
        println!("metrics on http://{address}/metrics");
    }
    let mut store = None;
    if let Some((location, settings)) = database {
        let opened = open(&location).await?;
        let mut waitlist = Waitlist::new(opened.clone(), settings);
        match confirming {
            Some((mailer, key, site_url)) => {
                let outbox = Outbox::new(opened.clone(), mailer, key.clone(), &site_url);
                waitlist = waitlist.confirming(key, outbox.waker());
                outbox.spawn();
                println!("confirming addresses by email (--smtp)");
            }
            None => println!("no --smtp: addresses are stored unconfirmed, and no email is sent"),
        }
        lathe_site::retention::spawn(opened.clone());
        site = site.with_waitlist(waitlist);
        store = Some((opened, location));
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    // The address bound, so that `--port 0` says which port the system gave.
    let address = listener.local_addr().unwrap_or(address);
    println!("serving {} on http://{address}", dist.display());
    if let Some((_, location)) = &store {
        println!(
            "collecting sign-ups at POST /api/waitlist into {}",
            location.display()
        );
    }
    let served = lathe_site::serve(listener, site, limits, stopped())
        .await
        .map_err(|e| format!("server error: {e}"));
    if let Some((store, _)) = store {
        store.close().await;
    }
    served
}

#[tokio::main(flavor = "current_thread")]
async fn ready(mut address: SocketAddr) -> Result<(), String> {
    if address.ip().is_unspecified() {
        address.set_ip(match address.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        });
    }
    match lathe_site::health::probe(address).await? {
        status if status.is_success() => Ok(()),
        status => Err(format!("{address} is not ready: {status}")),
    }
}

async fn open(location: &Location) -> Result<Store, String> {
    Store::open(location)
        .await
        .map_err(|e| format!("cannot open the database {}: {e}", location.display()))
}

#[tokio::main]
async fn waitlist(location: &Location, command: WaitlistCommand) -> Result<(), String> {
    let store = open(location).await?;
    let failed = |e: sqlx::Error| format!("the database failed: {e}");
    let result = match command {
        WaitlistCommand::Export { format, status } => {
            let out = std::io::BufWriter::new(std::io::stdout().lock());
            let entries = store.entries_with(status.status());
            match format {
                Format::Csv => export::csv(entries, out).await,
                Format::Json => export::json(entries, out).await,
            }
            .map_err(|e| e.to_string())?;
            if let Some(only) = status.status() {
                let left_out: Vec<String> = store
                    .count_by_status()
                    .await
                    .map_err(failed)?
                    .into_iter()
                    .filter(|&(other, n)| other != only && n > 0)
                    .map(|(other, n)| format!("{n} {}", other.as_str()))
                    .collect();
                if !left_out.is_empty() {
                    eprintln!(
                        "left out: {} (--status all exports every entry)",
                        left_out.join(", ")
                    );
                }
            }
            Ok(())
        }
        WaitlistCommand::Outbox => {
            let counts = lathe_site::outbox::counts(&store).await.map_err(failed)?;
            println!(
                "queued {}\nsent {}\nfailed {}",
                counts.queued, counts.sent, counts.failed
            );
            Ok(())
        }
        WaitlistCommand::Show { email } => match store.find(&email).await.map_err(failed)? {
            Some(entry) => {
                let mut out = std::io::stdout().lock();
                export::entry_json(&entry, &mut out).map_err(|e| format!("cannot write: {e}"))
            }
            None => Err(format!("no entry for {email}")),
        },
        WaitlistCommand::Erase { email } => {
            if store
                .erase(&email, ErasedBy::Owner, lathe_site::now_ms())
                .await
                .map_err(failed)?
            {
                println!("erased the entry for {email}");
                Ok(())
            } else {
                Err(format!("no entry for {email}"))
            }
        }
        WaitlistCommand::Purge { as_of, dry_run } => {
            let purged = store
                .purge(as_of.unwrap_or_else(lathe_site::now_ms), dry_run)
                .await
                .map_err(failed)?;
            for (email, by) in &purged.entries {
                println!("{email}\t{}", by.as_str());
            }
            let (unconfirmed, retention) = lathe_site::retention::counts(&purged);
            let verb = if dry_run { "would purge" } else { "purged" };
            eprintln!(
                "{verb} {unconfirmed} never confirmed, {retention} inactive, {} finished emails",
                purged.emails
            );
            Ok(())
        }
        WaitlistCommand::Count => {
            println!("{}", store.count().await.map_err(failed)?);
            Ok(())
        }
        WaitlistCommand::Backup { file } => match store.backup(&file).await {
            Ok(()) => {
                println!("backed up {} to {}", location.display(), file.display());
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        },
    };
    store.close().await;
    result
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
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
