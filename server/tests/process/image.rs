//! The container image (`deploy/Containerfile`, built by `make image`): what it holds, and
//! that it serves the site, collects a sign-up onto its volume, passes its own health
//! check and stops on SIGTERM. Run by `make test-image`, which builds the image first and
//! names it in `LATHE_IMAGE`.
//!
//! It runs the image with `podman run` where containers can start. Where they cannot (a
//! sandbox that forbids crun to set `RLIMIT_NOFILE`), it runs the image's own entrypoint,
//! command, user and environment from the image's root by `chroot`, with a directory
//! bound at the volume's place (root only). It says which way it ran.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use lathe_site_testkit::{Reply, address_said, owner, post, send_to, sign_up};

/// The image's settings, as `podman image inspect` gives them.
struct Config {
    user: String,
    env: Vec<String>,
    entrypoint: Vec<String>,
    cmd: Vec<String>,
    volumes: Vec<String>,
    ports: Vec<String>,
    health: Vec<String>,
}

fn container() -> String {
    std::env::var("LATHE_CONTAINER").unwrap_or_else(|_| "podman".to_owned())
}

fn run(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

fn ok(program: &str, args: &[&str]) -> String {
    let out = run(program, args);
    assert!(
        out.status.success(),
        "{program} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| item.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn keys(value: &serde_json::Value) -> Vec<String> {
    value
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default()
}

fn inspect(image: &str) -> Config {
    let text = ok(&container(), &["image", "inspect", image]);
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    let image = &all[0];
    let config = &image["Config"];
    // podman keeps a docker-format health check beside the OCI config; docker inside it.
    let health = if image["Healthcheck"].is_null() {
        &config["Healthcheck"]
    } else {
        &image["Healthcheck"]
    };
    Config {
        user: config["User"].as_str().unwrap_or_default().to_owned(),
        env: strings(&config["Env"]),
        entrypoint: strings(&config["Entrypoint"]),
        cmd: strings(&config["Cmd"]),
        volumes: keys(&config["Volumes"]),
        ports: keys(&config["ExposedPorts"]),
        health: strings(&health["Test"]),
    }
}

fn get(address: SocketAddr, path: &str) -> Reply {
    send_to(address, &format!("GET {path} HTTP/1.1\r\nHost: {address}"))
}

fn ready_within(address: SocketAddr, limit: Duration, running: &mut dyn FnMut() -> bool) {
    let started = Instant::now();
    loop {
        if std::net::TcpStream::connect(address).is_ok() && get(address, "/readyz").status == 200 {
            return;
        }
        assert!(running(), "the server stopped before it was ready");
        assert!(
            started.elapsed() < limit,
            "not ready within {limit:?} on {address}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The image, running one way or the other.
enum Running {
    Container {
        name: String,
        volume: String,
    },
    Chroot {
        image: String,
        root: PathBuf,
        data: PathBuf,
        server: Child,
        env: Vec<String>,
        user: String,
    },
}

impl Running {
    /// `podman run`, with the port the engine published the site's on, or podman's reason
    /// when no container can start here.
    fn container(image: &str) -> Result<(Self, SocketAddr), String> {
        let name = format!("lathe-image-test-{}", std::process::id());
        let volume = format!("{name}-data");
        let out = run(
            &container(),
            &[
                "run",
                "--detach",
                "--name",
                &name,
                // A host port the engine picks, read back below.
                "--publish",
                "127.0.0.1::8080",
                "--volume",
                &format!("{volume}:/data"),
                image,
            ],
        );
        let running = Self::Container { name, volume };
        if out.status.success() {
            let Self::Container { name, .. } = &running else {
                unreachable!()
            };
            let published = ok(&container(), &["port", name, "8080/tcp"]);
            let address = published.lines().next().unwrap_or_default().trim().parse();
            Ok((running, address.map_err(|e| format!("{published}: {e}"))?))
        } else {
            Err(String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or_default()
                .to_owned())
        }
    }

    /// The image's entrypoint and command, as its user, with its environment, from its
    /// root, on a port the system picks (`LATHE_PORT=0`; then set to the one it gave, for
    /// the health check); a new directory at the volume's place, owned by that user as a
    /// new named volume would be.
    fn chroot(image: &str, config: &Config) -> (Self, SocketAddr) {
        let root = PathBuf::from(ok(&container(), &["image", "mount", image]).trim());
        let data = std::env::temp_dir().join(format!("lathe-image-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir(&data).unwrap();
        ok("chown", &[&config.user, data.to_str().unwrap()]);
        let volume = root.join(config.volumes[0].trim_start_matches('/'));
        ok(
            "mount",
            &["--bind", data.to_str().unwrap(), volume.to_str().unwrap()],
        );
        let on_port = |port: u16| [config.env.clone(), vec![format!("LATHE_PORT={port}")]].concat();
        let mut server = Self::in_root(
            &root,
            &config.user,
            &on_port(0),
            &config.entrypoint,
            &config.cmd,
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
        let stdout = server.stdout.take().unwrap();
        // Held before the wait, so that a server that never says where it listens is
        // stopped, its volume unmounted and the image too (a failed run had left both).
        let mut running = Self::Chroot {
            image: image.to_owned(),
            root,
            data,
            server,
            env: on_port(0),
            user: config.user.clone(),
        };
        let address = address_said("lathe-site", stdout, " on http://", Duration::from_secs(30));
        if let Self::Chroot { env, .. } = &mut running {
            *env = on_port(address.port());
        }
        (running, address)
    }

    fn in_root(
        root: &Path,
        user: &str,
        env: &[String],
        program: &[String],
        args: &[String],
    ) -> Command {
        let mut command = Command::new("chroot");
        command
            .arg(format!("--userspec={user}"))
            .arg(root)
            .args(program)
            .args(args)
            .env_clear();
        for pair in env {
            let (name, value) = pair.split_once('=').unwrap();
            command.env(name, value);
        }
        command
    }

    fn is_running(&mut self) -> bool {
        match self {
            Self::Container { name, .. } => {
                ok(
                    &container(),
                    &["inspect", "--format", "{{.State.Running}}", name],
                )
                .trim()
                    == "true"
            }
            Self::Chroot { server, .. } => server.try_wait().unwrap().is_none(),
        }
    }

    /// The image's health check, run the way the engine runs it: its exit status.
    fn health_check(&self, test: &[String]) -> bool {
        assert_eq!(
            test[0], "CMD",
            "an exec-form health check (there is no shell)"
        );
        match self {
            // podman runs the image's own check; docker has no command for it, so the same
            // command runs in the container.
            Self::Container { name, .. } if container() == "podman" => {
                run("podman", &["healthcheck", "run", name])
                    .status
                    .success()
            }
            Self::Container { name, .. } => Command::new(container())
                .args(["exec", name])
                .args(&test[1..])
                .status()
                .unwrap()
                .success(),
            Self::Chroot {
                root, env, user, ..
            } => Self::in_root(root, user, env, &test[1..], &[])
                .status()
                .unwrap()
                .success(),
        }
    }

    /// SIGTERM, as `podman stop` sends it: the exit code.
    fn stop(&mut self) -> i32 {
        match self {
            Self::Container { name, .. } => {
                ok(&container(), &["stop", "--time", "15", name]);
                ok(
                    &container(),
                    &["inspect", "--format", "{{.State.ExitCode}}", name],
                )
                .trim()
                .parse()
                .unwrap()
            }
            Self::Chroot { server, .. } => {
                ok("kill", &["-TERM", &server.id().to_string()]);
                let started = Instant::now();
                loop {
                    if let Some(status) = server.try_wait().unwrap() {
                        return status.code().unwrap_or(-1);
                    }
                    assert!(
                        started.elapsed() < Duration::from_secs(15),
                        "still running 15 s after SIGTERM"
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }

    /// Where the volume's files are on this machine.
    fn data(&self) -> PathBuf {
        match self {
            Self::Container { volume, .. } => PathBuf::from(
                ok(
                    &container(),
                    &["volume", "inspect", "--format", "{{.Mountpoint}}", volume],
                )
                .trim(),
            ),
            Self::Chroot { data, .. } => data.clone(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        match self {
            Self::Container { name, volume } => {
                let _ = run(&container(), &["rm", "--force", name]);
                let _ = run(&container(), &["volume", "rm", "--force", volume]);
            }
            Self::Chroot {
                image,
                root,
                data,
                server,
                ..
            } => {
                let _ = server.kill();
                let _ = server.wait();
                let _ = run("umount", &[root.join("data").to_str().unwrap()]);
                let _ = run(&container(), &["image", "unmount", image]);
                let _ = std::fs::remove_dir_all(data);
            }
        }
    }
}

/// The files of the image: a container created (never started) and exported.
fn files(image: &str) -> Vec<String> {
    let name = format!("lathe-image-files-{}", std::process::id());
    ok(&container(), &["create", "--name", &name, image]);
    let tar = std::env::temp_dir().join(format!("{name}.tar"));
    let exported = run(
        &container(),
        &["export", "--output", tar.to_str().unwrap(), &name],
    );
    let _ = run(&container(), &["rm", "--force", &name]);
    assert!(exported.status.success(), "{exported:?}");
    let list = ok("tar", &["--list", "--file", tar.to_str().unwrap()]);
    let _ = std::fs::remove_file(&tar);
    list.lines()
        .map(|line| line.trim_end_matches('/').to_owned())
        .filter(|line| !line.is_empty() && !line.contains('/'))
        .collect()
}

#[test]
#[ignore = "needs the image: make test-image builds it and runs this"]
fn the_image_serves_collects_onto_its_volume_checks_its_health_and_stops_on_sigterm() {
    let image =
        std::env::var("LATHE_IMAGE").expect("LATHE_IMAGE names the image (make test-image)");
    let config = inspect(&image);

    // Minimal: the static server, the site, the volume's directory and nothing else (no
    // shell, no libc: the server runs from this root, so it is linked statically).
    let mut top = files(&image);
    top.sort();
    assert_eq!(top, ["data", "lathe-site", "site"], "the image's root");
    // Not root, the database on a volume, a health check, the site's port.
    let uid = config.user.split(':').next().unwrap_or_default();
    assert!(
        !uid.is_empty() && uid != "0" && uid != "root",
        "runs as {:?}",
        config.user
    );
    assert_eq!(config.volumes, ["/data"]);
    assert!(
        config
            .env
            .iter()
            .any(|pair| pair == "LATHE_DATABASE=/data/waitlist.db")
    );
    assert_eq!(config.ports, ["8080/tcp"]);
    assert_eq!(config.health, ["CMD", "/lathe-site", "ready"]);

    let (mut running, address) = match Running::container(&image) {
        Ok(running) => {
            println!("image test: ran {image} with `{} run`", container());
            running
        }
        Err(reason) => {
            println!(
                "image test: `{} run` cannot start a container here ({reason}); ran the image's \
                 entrypoint from its root by chroot instead",
                container()
            );
            Running::chroot(&image, &config)
        }
    };
    ready_within(address, Duration::from_secs(20), &mut || {
        running.is_running()
    });

    let home = get(address, "/");
    assert_eq!(home.status, 200);
    let page = String::from_utf8_lossy(&home.body);
    assert!(page.contains("<title>Lathe"), "{page}");
    assert!(home.header("content-security-policy").is_some());
    assert_eq!(get(address, "/healthz").status, 200);
    assert_eq!(get(address, "/nowhere").status, 404);
    let added = post(address, &sign_up("ada@example.com"));
    assert_eq!(added.status, 201, "{}", added.text());
    assert!(
        running.health_check(&config.health),
        "the health check failed"
    );

    assert_eq!(running.stop(), 0, "the exit code after SIGTERM");
    // The sign-up is on the volume, for the next container to serve.
    let database = running.data().join("waitlist.db");
    let database = database.display().to_string().parse().unwrap();
    let (shown, entry, said) = owner(&database, &["show", "ada@example.com"]);
    assert!(shown, "{said}");
    assert!(entry.contains("Ada Lovelace"), "{entry}");
}
