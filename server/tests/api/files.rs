//! The site's files as a client meets them, over raw sockets: what a browser sends, and
//! what an attacker sends byte for byte (no client tidies the request first). Each test
//! names the defect of the old Node server it guards against.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::OnceLock;

use lathe_site_testkit::{Reply, send_to};

use crate::helpers::{TestApp, config};

/// The application on an ephemeral loopback port, for the whole test binary.
fn server() -> SocketAddr {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(TestApp::site).address
}

fn send(head: &str) -> Reply {
    send_to(server(), head)
}

fn get(target: &str, extra: &str) -> Reply {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!("\r\n{extra}")
    };
    send(&format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1{extra}"))
}

fn alive() {
    assert_eq!(get("/", "").status, 200, "the server is still up");
}

#[test]
fn hostile_targets_get_400_and_never_crash_it() {
    // The old server died on the first three: `new URL` threw and nothing caught it.
    for target in [
        "///",
        "//[",
        "/\\[",
        "//contact",
        "/\\x",
        "/%",
        "/%zz",
        "/%ff",
        "/%00",
        "/../Cargo.toml",
        "/assets/../../x",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fx",
        "/a/../b",
        "/a%2Fb",
        "/a%5Cb",
        "/./x",
        "*",
    ] {
        let reply = get(target, "");
        assert_eq!(reply.status, 400, "{target}");
        // Errors carry the site's headers too.
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{target}"
        );
        alive();
    }
    // Absolute-form targets, one with a host that is not one.
    assert_eq!(
        send("GET http://127.0.0.1/contact HTTP/1.1\r\nHost: 127.0.0.1").status,
        200
    );
    assert_eq!(
        send("GET http://[/ HTTP/1.1\r\nHost: 127.0.0.1").status,
        400
    );
    assert_eq!(
        send("GET http://a b/ HTTP/1.1\r\nHost: 127.0.0.1").status,
        400
    );
    alive();
}

#[test]
fn clean_urls_and_the_404_page() {
    for target in ["/", "/contact", "/contact/", "/contact/index.html"] {
        let reply = get(target, "");
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8")
        );
    }
    let missing = get("/no-such-page", "");
    assert_eq!(missing.status, 404);
    assert!(String::from_utf8_lossy(&missing.body).contains("Page not found"));
    // The old server answered `//contact` and `/\x` with the home page: now 400, above.
}

#[test]
fn dotfiles_and_the_headers_file_are_not_served() {
    for target in ["/_headers", "/.env", "/%2eenv", "/assets/.x"] {
        let reply = get(target, "");
        assert_eq!(reply.status, 404, "{target}");
        assert!(!String::from_utf8_lossy(&reply.body).contains("SECRET"));
        assert!(!String::from_utf8_lossy(&reply.body).contains("nosniff"));
    }
}

#[test]
fn other_methods_get_405_with_allow_and_the_site_headers() {
    let reply = send("POST /contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0");
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let head = send("HEAD / HTTP/1.1\r\nHost: 127.0.0.1");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
}

#[test]
fn every_response_has_the_site_headers_and_no_hsts_unless_asked() {
    for target in ["/", "/assets/app-Ab12.js", "/missing", "//x"] {
        let reply = get(target, "");
        assert_eq!(
            reply.header("content-security-policy"),
            Some("default-src 'none'; frame-ancestors 'none'"),
            "{target}"
        );
        assert_eq!(reply.header("strict-transport-security"), None, "{target}");
    }
}

#[test]
fn encodings_follow_q_values_and_ignore_case() {
    let asset = "/assets/app-Ab12.js";
    let encoding = |accept: &str| {
        let reply = get(asset, &format!("Accept-Encoding: {accept}"));
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(reply.header("vary"), Some("accept-encoding"), "{accept}");
        reply.header("content-encoding").map(str::to_owned)
    };
    assert_eq!(encoding("gzip, br").as_deref(), Some("br"));
    assert_eq!(encoding("BR").as_deref(), Some("br"));
    assert_eq!(encoding("GZip").as_deref(), Some("gzip"));
    assert_eq!(encoding("br;q=0, gzip").as_deref(), Some("gzip"));
    assert_eq!(encoding("gzip;q=0").as_deref(), None);
    assert_eq!(encoding("br;q=0.1, gzip;q=0.9").as_deref(), Some("gzip"));
    assert_eq!(encoding("identity").as_deref(), None);
    // Vary even where nothing was asked for: a cache must not hand this to a br client.
    let plain = get(asset, "");
    assert_eq!(plain.header("vary"), Some("accept-encoding"));
    assert_eq!(
        get("/", "Accept-Encoding: br").header("vary"),
        Some("accept-encoding")
    );
}

#[test]
fn decoded_bodies_are_byte_identical_in_every_encoding() {
    for target in ["/", "/contact", "/assets/app-Ab12.js"] {
        let plain = get(target, "Accept-Encoding: identity").body;
        let mut from_br = Vec::new();
        brotli::Decompressor::new(&get(target, "Accept-Encoding: br").body[..], 4096)
            .read_to_end(&mut from_br)
            .unwrap();
        let mut from_gzip = Vec::new();
        flate2::read::GzDecoder::new(&get(target, "Accept-Encoding: gzip").body[..])
            .read_to_end(&mut from_gzip)
            .unwrap();
        assert!(!plain.is_empty());
        assert_eq!(from_br, plain, "{target}");
        assert_eq!(from_gzip, plain, "{target}");
    }
}

#[test]
fn an_answer_asked_for_again_is_the_same_in_every_encoding() {
    // The second of each is given from what the server kept of the first (memo.rs).
    for target in ["/", "/contact", "/assets/app-Ab12.js", "/assets/missing.js"] {
        for accept in ["", "Accept-Encoding: br", "Accept-Encoding: gzip, br;q=0"] {
            let first = get(target, accept);
            let again = get(target, accept);
            let without_date = |reply: &Reply| {
                let mut headers = reply.headers.clone();
                headers.retain(|(name, _)| name != "date");
                headers.sort();
                headers
            };
            assert_eq!(again.status, first.status, "{target} {accept}");
            assert_eq!(
                without_date(&again),
                without_date(&first),
                "{target} {accept}"
            );
            assert_eq!(again.body, first.body, "{target} {accept}");
        }
    }
    let gzip = get("/", "Accept-Encoding: gzip, br;q=0");
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(get("/", "").header("content-encoding"), None);
}

#[test]
fn conditional_requests_get_304() {
    for accept in ["", "Accept-Encoding: br", "Accept-Encoding: gzip"] {
        let first = get("/assets/app-Ab12.js", accept);
        let etag = first.header("etag").expect("an ETag").to_owned();
        let modified = first
            .header("last-modified")
            .expect("a Last-Modified")
            .to_owned();
        let extra = |h: String| {
            if accept.is_empty() {
                h
            } else {
                format!("{accept}\r\n{h}")
            }
        };
        let again = get(
            "/assets/app-Ab12.js",
            &extra(format!("If-None-Match: {etag}")),
        );
        assert_eq!(again.status, 304, "{accept}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), Some(etag.as_str()));
        let since = get(
            "/assets/app-Ab12.js",
            &extra(format!("If-Modified-Since: {modified}")),
        );
        assert_eq!(since.status, 304, "{accept}");
        let other = get(
            "/assets/app-Ab12.js",
            &extra("If-None-Match: \"other\"".into()),
        );
        assert_eq!(other.status, 200);
    }
    // Each encoding is its own representation, with its own tag.
    let br = get("/", "Accept-Encoding: br");
    let identity = get("/", "");
    assert_ne!(br.header("etag"), identity.header("etag"));
}

#[test]
fn a_304_varies_with_the_encoding_as_its_200_does() {
    for accept in ["Accept-Encoding: br", "Accept-Encoding: gzip", ""] {
        let first = get("/assets/app-Ab12.js", accept);
        let etag = first.header("etag").unwrap().to_owned();
        let extra = [accept, &format!("If-None-Match: {etag}")].join("\r\n");
        let again = get("/assets/app-Ab12.js", extra.trim_start_matches("\r\n"));
        assert_eq!(again.status, 304);
        assert_eq!(again.header("vary"), Some("accept-encoding"), "{accept:?}");
    }
}

#[test]
fn the_404_page_is_never_a_304_or_a_part() {
    let page = get("/404.html", "");
    let etag = page.header("etag").expect("an ETag").to_owned();
    let modified = page.header("last-modified").unwrap().to_owned();
    for extra in [
        format!("If-None-Match: {etag}"),
        format!("If-Modified-Since: {modified}"),
        "Range: bytes=0-9".to_owned(),
        format!("Range: bytes=0-9\r\nIf-Range: {etag}"),
    ] {
        let missing = get("/no-such-page", &extra);
        assert_eq!(missing.status, 404, "{extra}");
        assert_eq!(missing.header("content-range"), None, "{extra}");
        assert_eq!(missing.body, page.body, "the whole page: {extra}");
        // Nor does it offer what it will not honour (REDbot warns of each otherwise).
        for offer in ["etag", "last-modified", "accept-ranges"] {
            assert_eq!(missing.header(offer), None, "{offer}: {extra}");
        }
    }
}

#[test]
fn assets_are_immutable_only_when_they_exist_and_pages_are_no_cache() {
    assert_eq!(
        get("/assets/app-Ab12.js", "").header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let missing = get("/assets/app-Zz99.js", "");
    assert_eq!(missing.status, 404);
    // The old server cached this 404 for a year.
    assert_eq!(missing.header("cache-control"), Some("no-cache"));
    assert_eq!(get("/", "").header("cache-control"), Some("no-cache"));
    assert_eq!(
        get("/contact", "").header("cache-control"),
        Some("no-cache")
    );
}

#[test]
fn hsts_is_sent_with_the_flag() {
    let mut config = config();
    config.hsts = true;
    let app = TestApp::start(config);
    let reply = send_to(app.address, "GET /missing HTTP/1.1\r\nHost: x");
    assert_eq!(
        reply.header("strict-transport-security"),
        Some("max-age=63072000; includeSubDomains")
    );
}
