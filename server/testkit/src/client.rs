//! A raw HTTP/1.1 client: requests go over a socket byte for byte, as given, so a test
//! can send what no well-behaved client would.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A response as it came.
pub struct Reply {
    /// Its status code.
    pub status: u16,
    /// Its headers, in order.
    pub headers: Vec<(String, String)>,
    /// Its body, as sent (not decoded).
    pub body: Vec<u8>,
}

impl Reply {
    /// The first header called `name` (in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `head` (a request line and headers, without the final blank line) as it is.
pub fn send_to(address: SocketAddr, head: &str) -> Reply {
    send_bytes(
        address,
        format!("{head}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// `GET path`.
pub fn get(address: SocketAddr, path: &str) -> Reply {
    send_to(address, &format!("GET {path} HTTP/1.1\r\nHost: {address}"))
}

/// Sends `request` byte for byte and reads the response until the server closes.
///
/// # Panics
/// When no connection can be made, or no whole response comes.
pub fn send_bytes(address: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // A server may answer a malformed request line and close before the rest has been
    // written (a broken pipe here); what it said is still there to read.
    let _ = stream.write_all(request);
    let mut raw = Vec::new();
    let mut chunk = [0_u8; 16 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
        }
    }
    parse(&raw).expect("a complete response")
}

fn parse(raw: &[u8]) -> Option<Reply> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let text = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = text.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
    Some(Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    })
}

/// Posts `body` to `path` with `headers` (each a whole line).
pub fn post_to(address: SocketAddr, path: &str, headers: &[&str], body: &[u8]) -> Reply {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    send_bytes(address, &bytes)
}

/// Posts `body` to the sign-up endpoint with `headers` (each a whole line).
pub fn post_with(address: SocketAddr, headers: &[&str], body: &[u8]) -> Reply {
    post_to(address, "/api/waitlist", headers, body)
}

/// Posts JSON to the sign-up endpoint as the site's own page does.
pub fn post(address: SocketAddr, body: &str) -> Reply {
    post_json(address, "/api/waitlist", body)
}

/// Posts JSON to `path` as the site's own page does.
pub fn post_json(address: SocketAddr, path: &str, body: &str) -> Reply {
    post_to(
        address,
        path,
        &[
            "Content-Type: application/json",
            &format!("Origin: http://{address}"),
            "Sec-Fetch-Site: same-origin",
        ],
        body.as_bytes(),
    )
}

/// Posts a link's token to `path`, as the pages the emails link to do.
pub fn post_token(address: SocketAddr, path: &str, token: &str) -> Reply {
    post_json(
        address,
        path,
        &serde_json::json!({ "token": token }).to_string(),
    )
}

/// A post that may find the server gone: `None` for no complete answer.
pub fn try_post(address: SocketAddr, body: &str) -> Option<Reply> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(2)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .ok()?;
    let request = format!(
        "POST /api/waitlist HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    parse(&raw)
}

/// The body as JSON.
///
/// # Panics
/// When it is not JSON.
pub fn json(reply: &Reply) -> serde_json::Value {
    serde_json::from_slice(&reply.body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", reply.text()))
}

/// The body's `error`.
pub fn error(reply: &Reply) -> String {
    json(reply)["error"].as_str().unwrap_or_default().to_owned()
}

/// The status, and the refusal's `reason` (a sign-up's answer).
pub fn refusal(reply: &Reply) -> (u16, String) {
    (
        reply.status,
        json(reply)["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// The status, and the body's `status` (a link's answer).
pub fn status_of(reply: &Reply) -> (u16, String) {
    (
        reply.status,
        json(reply)["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// Sends `bytes` and reads until the server closes: how long that took, and what it
/// said.
///
/// # Panics
/// When no connection can be made.
pub fn held_for(address: SocketAddr, bytes: &[u8]) -> (Duration, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let started = Instant::now();
    stream.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    (
        started.elapsed(),
        String::from_utf8_lossy(&raw).into_owned(),
    )
}
