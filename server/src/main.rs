//! `lathe-site`: the Lathe site's server and build helper. See `lathe-site --help`.
//! This file only parses the command line and hands it to the library.

use std::process::ExitCode;

use clap::Parser;
use lathe_site::config::{Cli, Command};
use lathe_site::mail::dkim;
use lathe_site::operations::logs;
use lathe_site::owner;
use lathe_site::startup::{Application, stop_signal};

/// mimalloc rather than the C library's allocator: every request allocates and frees
/// headers, spans and log lines, and `ServeDir` reads a file through a buffer of up to
/// 64 KB whenever it answers (the memo's first answers, ranges, `HEAD`), which glibc's
/// malloc consolidates on each free and musl's (the container image's) serialises; with
/// it the server answered about 7 % more requests per second (make bench, "Servers",
/// measured before the memo).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Failure = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let logs = logs::init(cli.log_format.into());
    let result = run(cli.command);
    // Every log line out before the last word.
    drop(logs);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("lathe-site: {failure}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Serve(args) => serve(args.config()?),
        Command::Waitlist { database, command } => {
            runtime()?.block_on(owner::waitlist(&database, command))?;
            Ok(())
        }
        Command::Compress(build) => Ok(owner::compress(&build.dist)?),
        Command::Ready { port, host } => {
            let asked = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            Ok(asked.block_on(owner::ready(host, port))?)
        }
        Command::NginxHeaders(build) => Ok(owner::nginx_headers(&build.dist)?),
        Command::DkimRecord(args) => {
            let (key, at) = args.key()?;
            print!("{}", dkim::dns_record(&key, &at));
            Ok(())
        }
    }
}

fn serve(config: lathe_site::config::Config) -> Result<(), Failure> {
    runtime()?.block_on(async {
        tracing::debug!(?config, "starting");
        let app = Application::build(config).await?;
        for line in app.said() {
            println!("{line}");
        }
        app.run_until_stopped(stop_signal())
            .await
            .map_err(|e| format!("server error: {e}"))?;
        Ok(())
    })
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}
