//! A small built site, compressed as `make build` does, in a scratch folder.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const HEADERS: &str = "# The site's headers (a comment: the old server failed every request on one)
/*
  X-Content-Type-Options: nosniff
  Content-Security-Policy: default-src 'none'; frame-ancestors 'none'
  Strict-Transport-Security: max-age=63072000; includeSubDomains

/assets/*
  Cache-Control: public, max-age=31536000, immutable
";

/// The site: a home page, `/contact`, the 404 page, one hashed asset, `_headers`, and a
/// dotfile that must never be served. Made once a test binary.
///
/// # Panics
/// When the scratch folder cannot be written.
pub fn fixture() -> &'static Path {
    static DIST: OnceLock<PathBuf> = OnceLock::new();
    DIST.get_or_init(|| {
        let dist = scratch(&format!("site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dist);
        std::fs::create_dir_all(dist.join("contact")).unwrap();
        std::fs::create_dir_all(dist.join("assets")).unwrap();
        let page = |title: &str| {
            format!(
                "<!doctype html><title>{title}</title>{}",
                "<p>Lathe</p>".repeat(100)
            )
        };
        std::fs::write(dist.join("index.html"), page("Home")).unwrap();
        std::fs::write(dist.join("contact/index.html"), page("Contact")).unwrap();
        std::fs::write(dist.join("404.html"), page("Page not found")).unwrap();
        std::fs::write(
            dist.join("assets/app-Ab12.js"),
            "console.log('lathe');\n".repeat(200),
        )
        .unwrap();
        std::fs::write(dist.join("_headers"), HEADERS).unwrap();
        std::fs::write(dist.join(".env"), "SECRET=1").unwrap();
        lathe_site::http::compress::compress(&dist).unwrap();
        dist
    })
}

/// A path for `name` in the tests' scratch folder, where what one test run leaves is
/// removed by the next: the files and folders of processes that have ended (their names
/// hold the process id: `NAME-PID`, `NAME-PID-N.db`).
///
/// # Panics
/// When the folder cannot be made.
pub fn scratch(name: &str) -> PathBuf {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    let folder = FOLDER.get_or_init(|| {
        let folder = std::env::temp_dir().join("lathe-site-tests");
        std::fs::create_dir_all(&folder).unwrap();
        for leftover in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let name = leftover.file_name().to_string_lossy().into_owned();
            let pid = name
                .split(['-', '.'])
                .find_map(|part| part.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let path = leftover.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
        folder
    });
    folder.join(name)
}
