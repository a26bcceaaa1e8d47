//! `lathe-site`: the Lathe site's server and build helper. See `lathe-site --help`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lathe_site::{Site, compress, headers};

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

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Serve {
            dist,
            port,
            host,
            hsts,
        } => serve(&dist, SocketAddr::new(host, port), hsts),
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
async fn serve(dist: &std::path::Path, address: SocketAddr, hsts: bool) -> Result<(), String> {
    let site = Site::load(dist, hsts).map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    println!("serving {} on http://{address}", dist.display());
    lathe_site::serve(listener, site, stopped())
        .await
        .map_err(|e| format!("server error: {e}"))
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
