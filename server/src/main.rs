//! `lathe-site`: the Lathe site's server and build helper. See `lathe-site --help`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use lathe_site::store::{Location, Store};
use lathe_site::waitlist::{Settings, Waitlist};
use lathe_site::{Site, compress, export, headers};

#[derive(Parser)]
#[command(
    version,
    about = "Serves the Lathe site's static build, and prepares it"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serves the built site: clean URLs, its 404 page, precompressed files, conditional
    /// requests and the headers of its _headers file. Ctrl-C or SIGTERM stop it gracefully.
    Serve {
        /// The built site.
        #[arg(long, default_value = "web/dist")]
        dist: PathBuf,
        /// The port to listen on.
        #[arg(long, default_value_t = 4173)]
        port: u16,
        /// The address to listen on: loopback unless told otherwise (0.0.0.0 for all).
        #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
        host: IpAddr,
        /// Send Strict-Transport-Security (only behind TLS).
        #[arg(long)]
        hsts: bool,
        /// Collect the waitlist's sign-ups at POST /api/waitlist, into this database: a
        /// SQLite file (created if missing) or a postgres:// URL. Without it the server
        /// collects nothing (and the endpoint says so).
        #[arg(long, env = "LATHE_DATABASE")]
        database: Option<Location>,
        /// Sign-ups accepted per client per minute (0: no limit).
        #[arg(long, default_value_t = 5)]
        sign_ups_per_minute: u32,
        /// Another origin allowed to post sign-ups (repeat for several), such as the
        /// site's own when this server is its form service on another host.
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allowed_origins: Vec<String>,
        /// Count sign-ups against the client in X-Forwarded-For's last entry (behind a
        /// proxy that sets it, such as deploy/nginx).
        #[arg(long)]
        behind_proxy: bool,
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
        #[arg(long, default_value = "web/dist")]
        dist: PathBuf,
    },
    /// Prints the build's site-wide headers as nginx `add_header` lines.
    NginxHeaders {
        /// The built site.
        #[arg(long, default_value = "web/dist")]
        dist: PathBuf,
    },
}

#[derive(Subcommand)]
enum WaitlistCommand {
    /// Writes every entry to standard output, oldest first.
    Export {
        /// CSV (a header row; cells that a spreadsheet would run as formulas are
        /// prefixed with ') or JSON (an array, as stored).
        #[arg(long, value_enum, default_value_t = Format::Csv)]
        format: Format,
    },
    /// Prints the entry for an address (as JSON), or says there is none (exit 1).
    Show {
        /// The address, in any case.
        email: String,
    },
    /// Erases the entry for an address, or says there is none (exit 1).
    Erase {
        /// The address, in any case.
        email: String,
    },
    /// Prints how many entries there are.
    Count,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Csv,
    Json,
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Serve {
            dist,
            port,
            host,
            hsts,
            database,
            sign_ups_per_minute,
            allowed_origins,
            behind_proxy,
        } => {
            let settings = Settings {
                per_minute: NonZeroU32::new(sign_ups_per_minute),
                allowed_origins,
                behind_proxy,
            };
            serve(
                &dist,
                SocketAddr::new(host, port),
                hsts,
                database.map(|d| (d, settings)),
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
        Command::NginxHeaders { dist } => std::fs::read_to_string(dist.join("_headers"))
            .map_err(|e| format!("cannot read {}/_headers: {e}", dist.display()))
            .and_then(|text| headers::parse(&text).map_err(|e| e.to_string()))
            .map(|rules| print!("{}", headers::nginx(&rules))),
    };
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
    database: Option<(Location, Settings)>,
) -> Result<(), String> {
    let mut site = Site::load(dist, hsts).map_err(|e| e.to_string())?;
    let mut store = None;
    if let Some((location, settings)) = database {
        let opened = open(&location).await?;
        site = site.with_waitlist(Waitlist::new(opened.clone(), settings));
        store = Some((opened, location));
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    println!("serving {} on http://{address}", dist.display());
    if let Some((_, location)) = &store {
        println!(
            "collecting sign-ups at POST /api/waitlist into {}",
            location.display()
        );
    }
    let served = lathe_site::serve(listener, site, stopped())
        .await
        .map_err(|e| format!("server error: {e}"));
    if let Some((store, _)) = store {
        store.close().await;
    }
    served
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
        WaitlistCommand::Export { format } => {
            let entries = store.entries().await.map_err(failed)?;
            let mut out = std::io::stdout().lock();
            match format {
                Format::Csv => export::csv(&entries, &mut out),
                Format::Json => export::json(&entries, &mut out),
            }
            .map_err(|e| format!("cannot write the export: {e}"))
        }
        WaitlistCommand::Show { email } => match store.find(&email).await.map_err(failed)? {
            Some(entry) => {
                let mut out = std::io::stdout().lock();
                export::json(&entry, &mut out).map_err(|e| format!("cannot write: {e}"))
            }
            None => Err(format!("no entry for {email}")),
        },
        WaitlistCommand::Erase { email } => {
            if store.erase(&email).await.map_err(failed)? {
                println!("erased the entry for {email}");
                Ok(())
            } else {
                Err(format!("no entry for {email}"))
            }
        }
        WaitlistCommand::Count => {
            println!("{}", store.count().await.map_err(failed)?);
            Ok(())
        }
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
