//! The application in-process, as the tests drive it: [`TestApp`] builds it from a
//! [`Config`] on a port the system picks and serves it on a runtime of its own; its
//! outbox's due emails go when the test says ([`TestApp::deliver_due`]), not on a timer,
//! and so do the referral credits due ([`TestApp::credit_due`]).
//! And the owner's commands, which are a program's: [`owner`] runs the binary.

use std::net::SocketAddr;

use futures_util::TryStreamExt;
use lathe_site::config::{Config, MailConfig, WaitlistConfig};
use lathe_site::domain::Entry;
use lathe_site::domain::token::Key;
use lathe_site::hooks::Hooks;
use lathe_site::mail::{MailServer, Outbox};
use lathe_site::startup::Application;
use lathe_site::store::{Confirmed, Location, Store};
use lathe_site::waitlist::Settings;
use lathe_site_testkit::{Smtp, fixture};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;

/// The key the confirming test servers sign their links with.
pub const KEY: &str = "a test key of more than thirty-two bytes";

/// The application, served on loopback until dropped.
pub struct TestApp {
    /// Where it listens.
    pub address: SocketAddr,
    outbox: Option<Outbox>,
    hooks: Option<Hooks>,
    store: Option<Store>,
    stop: Option<oneshot::Sender<()>>,
    runtime: Runtime,
}

impl TestApp {
    /// Serves `config` (on port 0, without the background workers).
    pub fn start(mut config: Config) -> Self {
        config.address = SocketAddr::from(([127, 0, 0, 1], 0));
        config.workers = false;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let app = runtime.block_on(Application::build(config)).unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let (address, outbox) = (app.address(), app.outbox().cloned());
        let (hooks, store) = (app.hooks().cloned(), app.store().cloned());
        runtime.spawn(app.run_until_stopped(async {
            let _ = stopped.await;
        }));
        Self {
            address,
            outbox,
            hooks,
            store,
            stop: Some(stop),
            runtime,
        }
    }

    /// The site alone, collecting nothing.
    pub fn site() -> Self {
        Self::start(config())
    }

    /// The site, collecting into `database` with `settings`.
    pub fn collecting(database: &Location, settings: Settings) -> Self {
        Self::start(collecting(database, settings))
    }

    /// The site, collecting into `database` with no allowance, confirming through `smtp`.
    pub fn confirming(database: &Location, smtp: &Smtp) -> Self {
        let mut config = collecting(database, unlimited());
        if let Some(waitlist) = &mut config.waitlist {
            waitlist.mail = Some(mail(smtp));
        }
        Self::start(config)
    }

    /// Delivers the emails due now, as the worker would, until none is left due: how many
    /// it tried.
    pub fn deliver_due(&self) -> usize {
        self.deliver_due_at(lathe_site::now_ms())
    }

    /// One claim of the worker's as at `now`, its emails sent: how many it claimed.
    pub fn deliver_once_at(&self, now: i64) -> usize {
        let outbox = self.outbox.as_ref().expect("a confirming server");
        self.runtime.block_on(outbox.deliver_due(now)).unwrap()
    }

    /// [`TestApp::deliver_due`] as at `now` (ms since the Unix epoch): a clock moved
    /// past a retry's backoff.
    pub fn deliver_due_at(&self, now: i64) -> usize {
        let outbox = self.outbox.as_ref().expect("a confirming server");
        let mut tried = 0;
        loop {
            match self.runtime.block_on(outbox.deliver_due(now)).unwrap() {
                0 => return tried,
                n => tried += n,
            }
        }
    }
}

impl TestApp {
    /// Gives the referral credits due, as the server's worker would, until none is left
    /// due: how many friends it settled.
    pub fn credit_due(&self) -> usize {
        let store = self.store.as_ref().expect("a collecting server");
        let mut settled = 0;
        loop {
            let now = lathe_site::now_ms();
            match self
                .runtime
                .block_on(store.credit_due(now))
                .unwrap()
                .friends
            {
                0 => return settled,
                n => settled += n,
            }
        }
    }

    /// Delivers the webhook events due at `now`, as the worker would, until none is left
    /// due: how many it tried.
    pub fn deliver_events_at(&self, now: i64) -> usize {
        let hooks = self
            .hooks
            .as_ref()
            .expect("a server with a webhook receiver");
        let mut tried = 0;
        loop {
            match self.runtime.block_on(hooks.deliver_due(now)).unwrap() {
                0 => return tried,
                n => tried += n,
            }
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The mailer's connection pool closes the connections it keeps on a task of the
        // runtime it was made on, so it is dropped there, not on the test's thread (where
        // it panicked whenever a connection was still pooled: "there is no reactor
        // running", one run in several).
        let _inside = self.runtime.enter();
        drop(self.outbox.take());
        drop(self.hooks.take());
    }
}

/// Serving the test site, with the command line's defaults.
pub fn config() -> Config {
    Config::new(fixture().to_owned())
}

/// Collecting into `database` with `settings`.
pub fn collecting(database: &Location, settings: Settings) -> Config {
    let mut config = config();
    config.waitlist = Some(WaitlistConfig {
        database: database.clone(),
        settings,
        mail: None,
        webhooks: None,
        proofs: None,
    });
    config
}

/// Confirming through `smtp`, sending as Lathe, links to `https://lathe.example.com`.
pub fn mail(smtp: &Smtp) -> MailConfig {
    mail_to(&smtp.url())
}

/// Confirming through the SMTP server at `url` (for a test that sends no email, one
/// where nothing listens).
pub fn mail_to(url: &str) -> MailConfig {
    MailConfig {
        server: MailServer::new(url, "Lathe <hello@example.com>", None).unwrap(),
        key: Key::new(KEY).unwrap(),
        site_url: "https://lathe.example.com".into(),
    }
}

/// Confirming through `smtp`, as [`mail`], giving each conversation with it `timeout`.
pub fn mail_within(smtp: &Smtp, timeout: std::time::Duration) -> MailConfig {
    let mut mail = mail(smtp);
    mail.server = mail.server.timeout(timeout);
    mail
}

/// The site, collecting into `database`, confirming addresses by email, never sending
/// one: for the link routes' refusals.
pub fn confirming_without_mail(database: &Location) -> Config {
    let mut config = collecting(database, unlimited());
    if let Some(waitlist) = &mut config.waitlist {
        waitlist.mail = Some(mail_to("smtp://127.0.0.1:9"));
    }
    config
}

/// No allowance: as many sign-ups from one client as a test sends.
pub fn unlimited() -> Settings {
    Settings {
        per_minute: None,
        ..Settings::default()
    }
}

/// Runs `future` on a runtime of its own.
pub fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Runtime::new().unwrap().block_on(future)
}

/// What `location` holds, read through a connection of its own.
pub fn stored(location: &Location) -> Vec<Entry> {
    run(async {
        let store = Store::open(location).await.unwrap();
        let entries = store.entries().try_collect().await.unwrap();
        store.close().await;
        entries
    })
}

/// Runs `statement` on `database`, through a connection of its own.
pub fn sql(database: &Location, statement: &str) {
    sqlx::any::install_default_drivers();
    run(async {
        let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
        sqlx::query(statement).execute(&pool).await.unwrap();
        pool.close().await;
    });
}

/// The first column of the first row `query` gives, as text, through a connection of
/// its own.
pub fn sql_text(database: &Location, query: &str) -> String {
    sqlx::any::install_default_drivers();
    run(async {
        let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
        let text: String = sqlx::query_scalar(&format!("SELECT CAST(({query}) AS TEXT)"))
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        text
    })
}

/// A file of the test's own holding `text`, in the scratch folder.
pub fn scratch_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = lathe_site_testkit::scratch(&format!("{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `lathe-site waitlist invite ARGS` with `letter` as its letter: (success, what it
/// printed, what it said). Unless ARGS give a pace, at [`AT_ONCE`]: the tests that are
/// not about the pace (`invitations::a_wave_goes_at_its_pace`) send a wave's few emails
/// without moving a clock.
pub fn invite(database: &Location, letter: &str, args: &[&str]) -> (bool, String, String) {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = scratch_file(&format!("letter-{n}.txt"), letter);
    let mut all = vec!["invite", "--letter", file.to_str().unwrap()];
    all.extend_from_slice(args);
    if !args.contains(&"--mail-per-minute") {
        all.extend(["--mail-per-minute", AT_ONCE]);
    }
    lathe_site_testkit::owner(database, &all)
}

/// A pace at which a test's wave is due at once: `u32::MAX` a minute puts the first
/// 71,000 emails in the same millisecond.
pub const AT_ONCE: &str = "4294967295";

/// What a pending entry's links carry, read from the database by its address (the tests
/// that call the store directly, where no mail is sent to read them from).
pub struct Links {
    pub id: String,
    pub confirm_nonce: String,
    pub manage_nonce: String,
    pub referral_code: String,
}

/// The links of the pending entry `email`, through `db` (a pool or a connection).
pub async fn links<'c>(db: impl sqlx::Executor<'c, Database = sqlx::Any>, email: &str) -> Links {
    let (id, confirm_nonce, manage_nonce, referral_code) =
        sqlx::query_as::<_, (String, String, String, String)>(
            "SELECT id, confirm_nonce, manage_nonce, referral_code FROM waitlist
             WHERE email = $1",
        )
        .bind(email)
        .fetch_one(db)
        .await
        .unwrap();
    Links {
        id,
        confirm_nonce,
        manage_nonce,
        referral_code,
    }
}

/// Ada, signed up through `store` (and confirmed, if `confirmed`): her links, read through
/// `pool`. The referrer of the tests that call the store directly.
pub async fn referrer(store: &Store, pool: &sqlx::AnyPool, confirmed: bool) -> Links {
    store
        .sign_up(&entry("ada@example.com"), true, None, None, None)
        .await
        .unwrap()
        .unwrap();
    let ada = links(pool, "ada@example.com").await;
    if confirmed {
        assert_eq!(
            store
                .confirm(&ada.id, &ada.confirm_nonce, lathe_site::now_ms())
                .await
                .unwrap(),
            Confirmed::Now
        );
    }
    ada
}

/// A sign-up from `email` as the store takes it, made now (the tests that call the store
/// directly).
pub fn entry(email: &str) -> Entry {
    let values = lathe_core::validation::FormValues {
        name: "Ada Lovelace".into(),
        email: email.into(),
        company: String::new(),
        role: String::new(),
        message: "Through the store.".into(),
        interest: lathe_core::validation::Interest::Developer,
    };
    Entry::new(values, "v1".into(), lathe_site::now_ms())
}

/// Twenty sign-ups at once through `store`, one of them of `refused@example.com`, an
/// address its database refuses ("refused here", by a trigger the test made): that one
/// fails, the others are each stored.
pub async fn sign_up_twenty_one_refused(store: &Store) {
    let emails: Vec<String> = (0..20)
        .map(|n| {
            if n == 7 {
                "refused@example.com".to_owned()
            } else {
                format!("k{n:02}@example.com")
            }
        })
        .collect();
    let entries: Vec<Entry> = emails.iter().map(|email| entry(email)).collect();
    let answers = futures_util::future::join_all(
        entries
            .iter()
            .map(|entry| store.sign_up(entry, true, None, None, None)),
    )
    .await;
    for (email, answer) in emails.iter().zip(&answers) {
        if email == "refused@example.com" {
            let error = answer.as_ref().unwrap_err().to_string();
            assert!(error.contains("refused here"), "{error}");
        } else {
            assert!(matches!(answer, Ok(Ok(_))), "{email}: {answer:?}");
        }
    }
}

/// `database` brought to the schema before migration `version` (a list an older server
/// kept), and a pool on it. Async, so that the pool is used and closed in the runtime
/// that opened it: a PostgreSQL connection carried into another runtime fails once the
/// first is shut down ("A Tokio 1.x context was found, but it is being shutdown").
pub async fn schema_before(database: &Location, version: &str) -> sqlx::AnyPool {
    // A folder of its own for each database's run: the two run at once in this process
    // (with one folder, the first to finish removed it under the other). The process's
    // id first, where the scratch folder's clean-up reads it.
    let backend = if database.url.starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    };
    let schema = lathe_site_testkit::scratch(&format!(
        "migrations-{}-{version}-{backend}",
        std::process::id()
    ));
    std::fs::create_dir_all(&schema).unwrap();
    let folder = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"));
    for file in std::fs::read_dir(folder).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.as_str() < version {
            std::fs::copy(&path, schema.join(&name)).unwrap();
        }
    }
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&database.url).await.unwrap();
    let migrator = sqlx::migrate::Migrator::new(schema.as_path())
        .await
        .unwrap();
    migrator.run(&pool).await.unwrap();
    std::fs::remove_dir_all(&schema).unwrap();
    pool
}
