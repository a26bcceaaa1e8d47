//! The command line: one clap parser, every `serve` setting also read from a `LATHE_…`
//! variable, and the one [`Config`] a server is built from, validated once at start
//! (the links' key and the mail server included) and shown with its secrets redacted.
//! The owner's waitlist tools are [`WaitlistCommand`].

mod waitlist;

pub use waitlist::{ExportFormat, StatusFilter, WaitlistCommand};

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::domain::token::{Key, ShortKey};
use crate::hooks::{Receiver, ReceiverError};
use crate::http::connection::Limits;
use crate::mail::dkim::{DkimKey, DkimKeyError, Published, Signer};
use crate::mail::{MailServer, MailerError};
use crate::operations::logs;
use crate::store::Location;
use crate::waitlist::Settings;
use crate::waitlist::proof::Proofs;

/// `lathe-site`'s command line.
#[derive(Parser)]
#[command(
    version,
    about = "Serves the Lathe site's static build, and prepares it"
)]
pub struct Cli {
    /// How log lines are written, to standard error: text, or JSON (one object a line,
    /// for log shippers). Which lines: `RUST_LOG` (info by default).
    #[arg(long, global = true, env = "LATHE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `--log-format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

impl From<LogFormat> for logs::Format {
    fn from(format: LogFormat) -> Self {
        match format {
            LogFormat::Text => logs::Format::Text,
            LogFormat::Json => logs::Format::Json,
        }
    }
}

/// `lathe-site`'s commands.
#[derive(Subcommand)]
pub enum Command {
    /// Serves the built site: clean URLs, its 404 page, precompressed files, conditional
    /// requests and the headers of its _headers file. Ctrl-C or SIGTERM stop it gracefully.
    Serve(Box<ServeArgs>),
    /// The owner's tools for the waitlist: what the GDPR page promises visitors.
    Waitlist {
        /// The database the server collects into (as `serve --database`).
        #[arg(long, env = "LATHE_DATABASE")]
        database: Location,
        /// Which tool.
        #[command(subcommand)]
        command: WaitlistCommand,
    },
    /// Writes a brotli and a gzip variant, at the highest quality, beside every text and
    /// wasm file of the build (run by `make build`).
    Compress(Dist),
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
    NginxHeaders(Dist),
    /// Prints the DNS TXT record that publishes the public half of --dkim-key-file, for
    /// receivers to verify the emails' signatures with: its name and its text.
    DkimRecord(DkimRecordArgs),
}

/// `lathe-site dkim-record`'s flags: the key and where it is published, as `serve` takes
/// them.
#[derive(Args)]
pub struct DkimRecordArgs {
    #[command(flatten)]
    dkim: DkimArgs,
    /// The emails' sender (as `serve --mail-from`), whose domain signs unless
    /// --dkim-domain is given.
    #[arg(long, env = "LATHE_MAIL_FROM", value_name = "MAILBOX")]
    mail_from: Option<String>,
}

impl DkimRecordArgs {
    /// The key and where its record goes.
    ///
    /// # Errors
    /// No key or selector, a key refused, no domain.
    pub fn key(self) -> Result<(DkimKey, Published), ConfigError> {
        let domain = match (&self.dkim.domain, &self.mail_from) {
            (Some(domain), _) => domain.clone(),
            (None, Some(from)) => MailServer::new("smtp://localhost", from, None)?
                .domain()
                .to_owned(),
            (None, None) => return Err(ConfigError::NoDkimDomain),
        };
        self.dkim.key(&domain)?.ok_or(ConfigError::NoDkimKey)
    }
}

/// The built site.
#[derive(Args)]
pub struct Dist {
    /// The built site.
    #[arg(long, env = "LATHE_DIST", default_value = "web/dist")]
    pub dist: PathBuf,
}

/// `lathe-site serve`'s flags.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    dist: Dist,
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
    /// Sign-ups accepted per client per minute (0: no limit), at most 60000000 (one a
    /// microsecond, the unit the allowance is kept in).
    #[arg(long, env = "LATHE_SIGN_UPS_PER_MINUTE", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(crate::store::MAX_PER_MINUTE)))]
    sign_ups_per_minute: u32,
    /// Places a confirmed friend moves their referrer ahead in the line (0: no
    /// referrals: no share links shown, nothing credited). Give every server on one
    /// database the same value: the one started last sets it for all.
    #[arg(long, env = "LATHE_PLACES_PER_REFERRAL", default_value_t = lathe_core::line::PLACES_PER_REFERRAL)]
    places_per_referral: u32,
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
    /// Ask each sign-up for a proof of work (ALTCHA v2), from challenges issued at GET
    /// /api/waitlist/challenge and signed with a key every instance shares (32 bytes or
    /// more; `openssl rand -base64 32`): see --proof-key-file. Each solution is accepted
    /// once.
    #[arg(long, env = "LATHE_PROOF_OF_WORK", value_parser = clap::builder::BoolishValueParser::new(), requires = "database")]
    proof_of_work: bool,
    /// A file holding the key challenges are signed with. Or the key itself in
    /// `LATHE_PROOF_KEY`, or systemd's credential `proof.key`
    /// (`LoadCredential=proof.key:FILE`).
    #[arg(long, env = "LATHE_PROOF_KEY_FILE", value_name = "FILE")]
    proof_key_file: Option<PathBuf>,
    /// Tell this receiver of each entry created (without --smtp), confirmed, invited and
    /// erased: a POST signed as Standard Webhooks says, with the secret in
    /// `LATHE_WEBHOOK_SECRET` (whsec_ and base64), retried until it answers 2xx (never
    /// after a 4xx).
    #[arg(
        long,
        env = "LATHE_WEBHOOK_URL",
        value_name = "URL",
        requires = "database"
    )]
    webhook_url: Option<String>,
    /// Serve Prometheus metrics at `http://ADDRESS/metrics` (on a listener of its own:
    /// keep it off the public network, as 127.0.0.1:9464 does).
    #[arg(long, env = "LATHE_METRICS_ADDR", value_name = "ADDRESS")]
    metrics_addr: Option<SocketAddr>,
    #[command(flatten)]
    mail: MailArgs,
    #[command(flatten)]
    limits: LimitArgs,
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
    /// The invitations' sender, if not --mail-from: "Lathe <news@example.com>". Receivers
    /// judge subscription mail and answers to a visitor's own action apart, by sender.
    #[arg(long, env = "LATHE_INVITATIONS_FROM", value_name = "MAILBOX")]
    invitations_from: Option<String>,
    /// The site's address, which the emails' links lead to: `https://lathe.example.com`.
    #[arg(long, env = "LATHE_SITE_URL", value_name = "URL")]
    site_url: Option<String>,
    /// A file holding the key the links are signed with (32 bytes or more; every instance
    /// needs the same: `openssl rand -base64 32`). Or the key itself in `LATHE_TOKEN_KEY`,
    /// or systemd's credential `token.key` (`LoadCredential=token.key:FILE`).
    #[arg(long, env = "LATHE_TOKEN_KEY_FILE", value_name = "FILE")]
    token_key_file: Option<PathBuf>,
    /// How long one conversation with the mail server may take (`10s`, `500ms`) before the
    /// email counts as not sent and is tried again later.
    #[arg(long, env = "LATHE_SMTP_TIMEOUT", default_value = "10s", value_parser = some_time)]
    smtp_timeout: Duration,
    #[command(flatten)]
    dkim: DkimArgs,
}

/// Signing the emails (DKIM), for an owner who sends from their own mail server (a
/// provider's relay signs them itself). `lathe-site dkim-record` prints the DNS record
/// to publish.
#[derive(Args)]
struct DkimArgs {
    /// A file holding the private key the emails are signed with: RSA of 2048 bits or
    /// more (`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`) or Ed25519
    /// (`openssl genpkey -algorithm ed25519`), PEM. Or the key itself in `LATHE_DKIM_KEY`,
    /// or systemd's credential `dkim.key` (`LoadCredential=dkim.key:FILE`).
    #[arg(
        long = "dkim-key-file",
        env = "LATHE_DKIM_KEY_FILE",
        value_name = "FILE"
    )]
    key_file: Option<PathBuf>,
    /// The name the public key is published under: SELECTOR._domainkey.DOMAIN.
    #[arg(long = "dkim-selector", env = "LATHE_DKIM_SELECTOR", value_name = "SELECTOR", value_parser = dns_name)]
    selector: Option<String>,
    /// The domain that signs; by default --mail-from's.
    #[arg(long = "dkim-domain", env = "LATHE_DKIM_DOMAIN", value_name = "DOMAIN", value_parser = dns_name)]
    domain: Option<String>,
}

impl DkimArgs {
    /// The key, checked, and where it is published (`domain` unless --dkim-domain says
    /// otherwise); `None` when there is no key and no selector.
    fn key(self, domain: &str) -> Result<Option<(DkimKey, Published)>, ConfigError> {
        let pem = secret(self.key_file, "dkim.key", "LATHE_DKIM_KEY")?;
        match (pem, self.selector) {
            (None, None) => Ok(None),
            (None, Some(_)) => Err(ConfigError::NoDkimKey),
            (Some(_), None) => Err(ConfigError::NoDkimSelector),
            (Some(pem), Some(selector)) => Ok(Some((
                DkimKey::from_pem(&pem)?,
                Published {
                    selector,
                    domain: self.domain.unwrap_or_else(|| domain.to_owned()),
                },
            ))),
        }
    }
}

/// Whether mail from `sender`'s domain signed by `domain` passes DMARC's relaxed
/// alignment: the same domain, or `sender` under `domain` (or the other way round).
fn aligned(sender: &str, domain: &str) -> bool {
    let (sender, domain) = (sender.to_ascii_lowercase(), domain.to_ascii_lowercase());
    sender == domain
        || sender.ends_with(&format!(".{domain}"))
        || domain.ends_with(&format!(".{sender}"))
}

/// A DNS name (a selector, a domain): labels of letters, digits and hyphens, between
/// dots.
fn dns_name(text: &str) -> Result<String, String> {
    let label = |l: &str| {
        !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if text.len() <= 253 && text.split('.').all(label) {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "`{text}` is not a DNS name (letters, digits and hyphens, between dots)"
        ))
    }
}

/// A duration longer than none (`10s`, `500ms`): a timeout of nothing would fail every try.
fn some_time(text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(time) if time.is_zero() => Err(format!("`{text}` is no time: it must be more than 0")),
        Ok(time) => Ok(time),
        Err(e) => Err(e.to_string()),
    }
}

/// What bounds each connection (see `http/connection.rs`). Durations as `10s`, `500ms`,
/// `1m`.
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

/// Why a server's settings were refused, before anything starts.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--smtp` without a key to sign the links with.
    #[error(
        "--smtp needs the key its links are signed with: --token-key-file FILE, LATHE_TOKEN_KEY, or systemd's credential token.key"
    )]
    NoKey,
    /// A key's file cannot be read.
    #[error("cannot read the key {}: {source}", path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The webhook receiver's address or secret.
    #[error(transparent)]
    Receiver(#[from] ReceiverError),
    /// `--proof-of-work` without its key.
    #[error(
        "--proof-of-work needs the key its challenges are signed with (32 bytes or more, the same for every instance): --proof-key-file FILE, LATHE_PROOF_KEY, or systemd's credential proof.key"
    )]
    NoProofKey,
    /// Not the site's address.
    #[error("--site-url must be the site's http(s):// address, not {given:?}")]
    SiteUrl {
        /// What was given.
        given: String,
    },
    /// The key is too short.
    #[error(transparent)]
    ShortKey {
        /// Why.
        #[from]
        source: ShortKey,
    },
    /// The mail server's URL or the sender.
    #[error(transparent)]
    Mailer(#[from] MailerError),
    /// The DKIM key cannot be used.
    #[error("--dkim-key-file: {0}")]
    DkimKey(#[from] DkimKeyError),
    /// A DKIM selector without a key.
    #[error(
        "--dkim-selector needs the key to sign with: --dkim-key-file FILE, LATHE_DKIM_KEY, or systemd's credential dkim.key"
    )]
    NoDkimKey,
    /// A DKIM key without a selector.
    #[error(
        "--dkim-key-file needs --dkim-selector, the name its public key is published under (SELECTOR._domainkey.DOMAIN)"
    )]
    NoDkimSelector,
    /// No domain to sign as.
    #[error("dkim-record needs the signing domain: --dkim-domain DOMAIN, or --mail-from")]
    NoDkimDomain,
    /// A signing domain the emails' senders are not at.
    #[error(
        "--dkim-domain {domain} does not match the sender's domain {sender}: receivers would ignore the signature (use the sender's domain or one it is under)"
    )]
    DkimNotAligned {
        /// The sender's domain.
        sender: String,
        /// The signing domain.
        domain: String,
    },
    /// DKIM settings for a server that sends no email.
    #[error("--dkim-key-file and --dkim-selector sign emails: they need --smtp")]
    DkimWithoutMail,
}

/// Everything a server is built from (by `startup::Application::build`).
#[derive(Debug)]
pub struct Config {
    /// The built site.
    pub dist: PathBuf,
    /// Where to listen (port 0: any free one).
    pub address: SocketAddr,
    /// Whether to send `Strict-Transport-Security`.
    pub hsts: bool,
    /// What bounds each connection.
    pub limits: Limits,
    /// Where the owner's listener serves `/metrics`, if anywhere.
    pub metrics: Option<SocketAddr>,
    /// Where and how sign-ups are collected, if they are.
    pub waitlist: Option<WaitlistConfig>,
    /// Whether the outbox worker and the retention job run with the server: always from
    /// the command line; tests run them by hand instead.
    pub workers: bool,
}

impl Config {
    /// Serving `dist` on a free loopback port, with the defaults of `lathe-site serve`,
    /// collecting nothing.
    pub fn new(dist: PathBuf) -> Self {
        Self {
            dist,
            address: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            hsts: false,
            limits: Limits::default(),
            metrics: None,
            waitlist: None,
            workers: true,
        }
    }
}

/// Where and how sign-ups are collected.
#[derive(Debug)]
pub struct WaitlistConfig {
    /// The database.
    pub database: Location,
    /// The endpoint's settings.
    pub settings: Settings,
    /// Confirming addresses by email, if the server does.
    pub mail: Option<MailConfig>,
    /// The owner's webhook receiver, if there is one.
    pub webhooks: Option<Receiver>,
    /// Proofs of work, when sign-ups need one.
    pub proofs: Option<Proofs>,
}

/// Confirming addresses by email.
#[derive(Debug)]
pub struct MailConfig {
    /// The mail server and the sender (its credentials are never shown).
    pub server: MailServer,
    /// The key the links are signed with (shown as `Key(..)`).
    pub key: Key,
    /// The site's address, which the links lead to.
    pub site_url: String,
}

impl ServeArgs {
    /// The server's [`Config`], its secrets read and every setting checked.
    ///
    /// # Errors
    /// See [`ConfigError`].
    pub fn config(self) -> Result<Config, ConfigError> {
        let limits = &self.limits;
        let settings = Settings {
            per_minute: NonZeroU32::new(self.sign_ups_per_minute),
            allowed_origins: self.allowed_origins,
            trusted_proxies: if self.behind_proxy {
                usize::from(self.trusted_proxies)
            } else {
                0
            },
            body_timeout: limits.body_timeout,
            places_per_referral: self.places_per_referral,
        };
        let mail = self.mail.config()?;
        let proofs = if self.proof_of_work {
            let key = secret(self.proof_key_file, "proof.key", "LATHE_PROOF_KEY")?
                .ok_or(ConfigError::NoProofKey)?;
            Some(Proofs::new(&Key::new(&key)?))
        } else {
            None
        };
        let webhooks = match &self.webhook_url {
            Some(url) => Some(Receiver::new(
                url,
                std::env::var("LATHE_WEBHOOK_SECRET").ok().as_deref(),
            )?),
            None => None,
        };
        Ok(Config {
            dist: self.dist.dist,
            address: SocketAddr::new(self.host, self.port),
            hsts: self.hsts,
            limits: Limits {
                header_timeout: limits.header_timeout,
                idle_timeout: limits.idle_timeout,
                max_connections: limits.max_connections,
                shutdown_timeout: limits.shutdown_timeout,
                shutdown_delay: limits.shutdown_delay,
            },
            metrics: self.metrics_addr,
            waitlist: self.database.map(|database| WaitlistConfig {
                database,
                settings,
                mail,
                webhooks,
                proofs,
            }),
            workers: true,
        })
    }
}

impl MailArgs {
    /// The mailer and the links' key, when --smtp is given.
    fn config(self) -> Result<Option<MailConfig>, ConfigError> {
        let Some(smtp) = &self.smtp else {
            if self.dkim.key_file.is_some() || self.dkim.selector.is_some() {
                return Err(ConfigError::DkimWithoutMail);
            }
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
        let mut server = MailServer::new(smtp, from, credentials)?.timeout(self.smtp_timeout);
        if let Some(invitations_from) = &self.invitations_from {
            server = server.invitations_from(invitations_from)?;
        }
        if let Some((key, at)) = self.dkim.key(server.domain())? {
            // A receiver counts a signature only when its domain is the sender's, or one
            // the sender's is under (DMARC's relaxed alignment).
            for sender in [server.domain(), server.invitations_domain()] {
                if !aligned(sender, &at.domain) {
                    return Err(ConfigError::DkimNotAligned {
                        sender: sender.to_owned(),
                        domain: at.domain,
                    });
                }
            }
            server = server.signed_by(Signer::new(&key, &at));
        }
        let key_text = secret(self.token_key_file, "token.key", "LATHE_TOKEN_KEY")?
            .ok_or(ConfigError::NoKey)?;
        let key = Key::new(&key_text)?;
        let site_url = self.site_url.unwrap_or_default();
        if !(site_url.starts_with("https://") || site_url.starts_with("http://")) {
            return Err(ConfigError::SiteUrl { given: site_url });
        }
        Ok(Some(MailConfig {
            server,
            key,
            site_url,
        }))
    }
}

/// A secret from, in this order: the `file` given, systemd's credential named
/// `credential` (`LoadCredential=NAME:FILE`: a file only root may read, handed to a
/// service that runs as a user of its own), or the variable `variable`. `None` if none.
fn secret(
    file: Option<PathBuf>,
    credential: &str,
    variable: &str,
) -> Result<Option<String>, ConfigError> {
    let credential = std::env::var_os("CREDENTIALS_DIRECTORY")
        .map(|dir| PathBuf::from(dir).join(credential))
        .filter(|file| file.exists());
    match (file.or(credential), std::env::var(variable)) {
        (Some(path), _) => std::fs::read_to_string(&path)
            .map(Some)
            .map_err(|source| ConfigError::KeyFile { path, source }),
        (None, Ok(text)) => Ok(Some(text)),
        (None, Err(_)) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signing_domain_aligns_with_the_senders_as_dmarc_relaxed_alignment_does() {
        assert!(aligned("example.com", "example.com"));
        assert!(aligned("Example.COM", "example.com"));
        assert!(aligned("lists.example.com", "example.com"));
        assert!(aligned("example.com", "mail.example.com"));
        assert!(!aligned("example.com", "example.org"));
        assert!(!aligned("badexample.com", "example.com"));
    }

    #[test]
    fn a_config_shows_no_secret() {
        let mut config = Config::new("web/dist".into());
        config.waitlist = Some(WaitlistConfig {
            database: "postgres://lathe:s3cret-password@db/lathe".parse().unwrap(),
            settings: Settings::default(),
            webhooks: None,
            proofs: None,
            mail: Some(MailConfig {
                server: MailServer::new(
                    "smtp://lathe:url-password@127.0.0.1:2525",
                    "Lathe <hello@example.com>",
                    Some(("user".into(), "smtp-password".into())),
                )
                .unwrap(),
                key: Key::new("a key of more than thirty-two bytes, secret").unwrap(),
                site_url: "https://lathe.example.com".into(),
            }),
        });
        let shown = format!("{config:?}");
        assert!(shown.contains("postgres://lathe@db/lathe"), "{shown}");
        assert!(shown.contains("Key(..)"), "{shown}");
        for secret in [
            "s3cret-password",
            "smtp-password",
            "url-password",
            "thirty-two",
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }

    #[test]
    fn the_command_line_parses() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
