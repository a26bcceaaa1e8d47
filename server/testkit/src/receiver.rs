//! The emails the SMTP sink caught, read as a receiving mail system reads them
//! (`server/tests/mail_check.py`): Python's mail parser, dkimpy (DKIM's reference
//! implementation) and SpamAssassin, none of them ours.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// A Python that can `import` each of `modules`: Debian's own (`/usr/bin/python3`, which
/// Debian's `python3-…` packages are for), else the first on PATH.
///
/// # Panics
/// When neither can.
pub fn python_with(modules: &str, installed_by: &str) -> PathBuf {
    ["/usr/bin/python3", "python3"]
        .into_iter()
        .find(|python| {
            Command::new(python)
                .args(["-c", &format!("import {modules}")])
                .status()
                .is_ok_and(|s| s.success())
        })
        .unwrap_or_else(|| panic!("a Python with {modules} ({installed_by})"))
        .into()
}

/// What the receiving side makes of each of `files` (the sink's): per file, its headers,
/// `message_id_well_formed`, `date`, `content_type`, `charset` and `text`; with
/// `dkim_record` (the DNS TXT record's text), `dkim.verifies`,
/// `dkim.body_changed_verifies` and `dkim.subject_changed_verifies`; with `spamassassin`,
/// `spamassassin.score` and `spamassassin.rules`.
///
/// # Panics
/// When the checker fails (a message Python's strict parser refuses, for one).
pub fn read_as_received(
    files: &[PathBuf],
    dkim_record: Option<&str>,
    spamassassin: bool,
) -> Vec<Value> {
    let python = python_with(
        "dkim, nacl",
        "scripts/setup.sh installs python3-dkim and python3-nacl",
    );
    let mut command = Command::new(python);
    command.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/mail_check.py"
    ));
    if let Some(record) = dkim_record {
        command.args(["--dkim-record", record]);
    }
    if spamassassin {
        command.arg("--spamassassin");
    }
    let out = command.args(files).output().expect("mail_check.py runs");
    assert!(
        out.status.success(),
        "mail_check.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
