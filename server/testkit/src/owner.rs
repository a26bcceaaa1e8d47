//! The owner's commands (`lathe-site waitlist …`), run as the owner runs them: the
//! binary built beside the test.

use std::path::PathBuf;
use std::process::Command;

use lathe_site::store::Location;

/// The `lathe-site` binary of this build: beside the test binary's folder (`deps/`).
///
/// # Panics
/// When the test binary's path is not known.
pub fn binary() -> PathBuf {
    let test = std::env::current_exe().unwrap();
    let profile = test.parent().and_then(|deps| deps.parent()).unwrap();
    profile.join("lathe-site")
}

/// `lathe-site waitlist --database DATABASE ARGS`: (success, standard output, standard
/// error).
///
/// # Panics
/// When the binary cannot be run.
pub fn owner(database: &Location, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(binary())
        .args(["waitlist", "--database", &database.display()])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The entries as the owner exports them (JSON), every status.
///
/// # Panics
/// When the export fails.
pub fn export(database: &Location) -> Vec<serde_json::Value> {
    let (ok, out, err) = owner(database, &["export", "--format", "json", "--status", "all"]);
    assert!(ok, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The owner's view of the outbox: (queued, sent, failed).
///
/// # Panics
/// When the command fails.
pub fn outbox(database: &Location) -> (u64, u64, u64) {
    let (ok, text, err) = owner(database, &["outbox"]);
    assert!(ok, "{err}");
    let number = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    };
    (number("queued"), number("sent"), number("failed"))
}
