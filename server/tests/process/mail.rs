//! DKIM as an owner meets it: `lathe-site dkim-record` prints the record to publish; a
//! key that cannot sign stops the server at start with one clear line; a key from
//! systemd's credential signs emails that dkimpy verifies against the printed record.

use std::process::Command;

use lathe_site_testkit::{Smtp, fixture, post, read_as_received, scratch, sign_up, sqlite};

use crate::server::{KEY, Server, confirming_through};

fn key_file(name: &str) -> String {
    format!("{}/tests/fixtures/dkim/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `lathe-site ARGS` with no DKIM settings from the environment: (success, standard
/// output, standard error).
fn lathe_site(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe-site"))
        .args(args)
        .env("LATHE_TOKEN_KEY", KEY)
        .env_remove("CREDENTIALS_DIRECTORY")
        .env_remove("LATHE_DKIM_KEY")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn dkim_record_prints_the_record_to_publish() {
    let (ok, said, error) = lathe_site(&[
        "dkim-record",
        "--dkim-key-file",
        &key_file("ed25519.pem"),
        "--dkim-selector",
        "lathe2026",
        "--mail-from",
        "Lathe <hello@lists.example.com>",
    ]);
    assert!(ok, "{error}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines[0], "name: lathe2026._domainkey.lists.example.com");
    assert_eq!(lines[1], "type: TXT");
    let text = lines[2]
        .strip_prefix("text: v=DKIM1; k=ed25519; p=")
        .unwrap();
    assert_eq!(text.len(), 44, "32 bytes in base64");
    assert_eq!(
        lines[3],
        format!(
            "zone: lathe2026._domainkey.lists.example.com. IN TXT ( \"v=DKIM1; k=ed25519; p={text}\" )"
        )
    );
    // --dkim-domain chooses the domain; without it or --mail-from there is none.
    let (_, said, _) = lathe_site(&[
        "dkim-record",
        "--dkim-key-file",
        &key_file("rsa2048.pem"),
        "--dkim-selector",
        "s1",
        "--dkim-domain",
        "example.org",
    ]);
    assert!(
        said.starts_with("name: s1._domainkey.example.org\n"),
        "{said}"
    );
    let (ok, _, error) = lathe_site(&[
        "dkim-record",
        "--dkim-key-file",
        &key_file("rsa2048.pem"),
        "--dkim-selector",
        "s1",
    ]);
    assert!(!ok);
    assert_eq!(
        error,
        "lathe-site: dkim-record needs the signing domain: --dkim-domain DOMAIN, or --mail-from\n"
    );
}

#[test]
fn a_dkim_key_that_cannot_sign_stops_the_server_at_start_with_one_clear_line() {
    let database = sqlite();
    let dist = fixture().to_str().unwrap().to_owned();
    let mail = confirming_through("smtp://127.0.0.1:9");
    let mail = mail_args(&mail);
    let serve = |dkim: &[&str], with_mail: bool| {
        let mut args = vec!["serve", "--port", "0", "--dist", &dist];
        let location = database.display();
        args.extend(["--database", &location]);
        if with_mail {
            args.extend(mail.iter().copied());
        }
        args.extend(dkim);
        let (ok, _, error) = lathe_site(&args);
        assert!(!ok, "{args:?} started");
        error
    };
    let missing = "/nonexistent/dkim.pem";
    assert_eq!(
        serve(&["--dkim-key-file", missing, "--dkim-selector", "s"], true),
        format!(
            "lathe-site: cannot read the key {missing}: No such file or directory (os error 2)\n"
        )
    );
    for (file, why) in [
        (
            "rsa1024.pem",
            "an RSA key of 1024 bits: DKIM keys need at least 2048 (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048)",
        ),
        (
            "rsa2048-e3.pem",
            "an RSA key of 2048 bits that cannot sign: DKIM keys here are 2048 to 8192 bits, with a public exponent of 65537",
        ),
        (
            "README.md",
            "not an RSA private key (PEM, PKCS#1 or PKCS#8) or an Ed25519 private key (PEM, PKCS#8)",
        ),
    ] {
        let args = ["--dkim-key-file", &key_file(file), "--dkim-selector", "s"];
        assert_eq!(
            serve(&args, true),
            format!("lathe-site: --dkim-key-file: {why}\n")
        );
    }
    assert_eq!(
        serve(&["--dkim-key-file", &key_file("ed25519.pem")], true),
        "lathe-site: --dkim-key-file needs --dkim-selector, the name its public key is published under (SELECTOR._domainkey.DOMAIN)\n"
    );
    assert_eq!(
        serve(&["--dkim-selector", "s"], true),
        "lathe-site: --dkim-selector needs the key to sign with: --dkim-key-file FILE, LATHE_DKIM_KEY, or systemd's credential dkim.key\n"
    );
    assert_eq!(
        serve(
            &[
                "--dkim-key-file",
                &key_file("ed25519.pem"),
                "--dkim-selector",
                "s"
            ],
            false
        ),
        "lathe-site: --dkim-key-file and --dkim-selector sign emails: they need --smtp\n"
    );
    assert_eq!(
        serve(
            &[
                "--dkim-key-file",
                &key_file("ed25519.pem"),
                "--dkim-selector",
                "s",
                "--dkim-domain",
                "example.org",
            ],
            true
        ),
        "lathe-site: --dkim-domain example.org does not match the sender's domain example.com: receivers would ignore the signature (use the sender's domain or one it is under)\n"
    );
    // A selector that is no DNS name: clap's own message, with its usage hint.
    assert!(
        serve(
            &[
                "--dkim-key-file",
                &key_file("ed25519.pem"),
                "--dkim-selector",
                "a_b"
            ],
            true
        )
        .contains("`a_b` is not a DNS name"),
    );
}

#[test]
fn an_smtp_timeout_of_no_time_is_refused_with_its_reason() {
    let mail = confirming_through("smtp://127.0.0.1:9");
    let mut args = vec!["serve", "--port", "0", "--dist", "web/dist"];
    args.extend(mail_args(&mail));
    for (timeout, why) in [
        ("0s", "`0s` is no time: it must be more than 0"),
        ("soon", "expected number at 0"),
    ] {
        let mut args = args.clone();
        args.extend(["--smtp-timeout", timeout]);
        let (ok, _, error) = lathe_site(&args);
        assert!(!ok, "{args:?} started");
        assert!(
            error.contains(&format!(
                "invalid value '{timeout}' for '--smtp-timeout <SMTP_TIMEOUT>': {why}"
            )),
            "{error}"
        );
    }
}

fn mail_args(mail: &[String]) -> Vec<&str> {
    mail.iter().map(String::as_str).collect()
}

#[test]
fn a_key_from_systemds_credential_signs_what_the_printed_record_verifies() {
    let (ok, said, error) = lathe_site(&[
        "dkim-record",
        "--dkim-key-file",
        &key_file("rsa2048-pkcs1.pem"),
        "--dkim-selector",
        "lathe2026",
        "--mail-from",
        "Lathe <hello@example.com>",
    ]);
    assert!(ok, "{error}");
    let record = said
        .lines()
        .find_map(|l| l.strip_prefix("text: "))
        .unwrap()
        .to_owned();

    let credentials = scratch(&format!("dkim-credentials-{}", std::process::id()));
    std::fs::create_dir_all(&credentials).unwrap();
    std::fs::copy(key_file("rsa2048.pem"), credentials.join("dkim.key")).unwrap();
    let database = sqlite();
    let smtp = Smtp::start();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lathe-site"));
    command
        .env("LATHE_TOKEN_KEY", KEY)
        .env("CREDENTIALS_DIRECTORY", &credentials)
        .env("LATHE_DKIM_SELECTOR", "lathe2026");
    let mail = confirming_through(&smtp.url());
    let server = Server::start_with(command, Some(&database), &mail_args(&mail));
    post(server.address, &sign_up("ada@example.com"));
    smtp.wait_for_messages(1);
    let [email] = &read_as_received(&smtp.message_files(), Some(&record), false)[..] else {
        unreachable!()
    };
    assert_eq!(email["dkim"]["verifies"], true, "{email}");
    assert_eq!(email["dkim"]["body_changed_verifies"], false, "{email}");
    let _ = std::fs::remove_dir_all(&credentials);
}
