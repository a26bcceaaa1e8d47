//! Who posts: whether from the site's own pages ([`FromOwnSite`]), and which client a
//! rate limit counts against ([`Client`]).

use std::marker::PhantomData;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::IntoResponse;

use super::Settings;

/// The client a rate limit counts against: the connection's address, or, behind
/// trusted proxies, the address the first of them saw.
#[derive(Debug, PartialEq, Eq)]
pub struct Client(IpAddr);

impl Client {
    /// The address counted against.
    pub fn ip(&self) -> IpAddr {
        self.0
    }
}

impl<S> FromRequestParts<S> for Client
where
    Arc<Settings>: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from(Ipv6Addr::UNSPECIFIED), |c| c.0.ip());
        let settings = Arc::<Settings>::from_ref(state);
        Ok(client(&parts.headers, peer, settings.trusted_proxies))
    }
}

/// Every `X-Forwarded-For` line, read as one list (RFC 9110 §5.3), in order.
fn forwarded_for(headers: &HeaderMap) -> Vec<&str> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|line| line.to_str().ok())
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .collect()
}

/// The client behind `trusted` proxies: each appends the address it was reached from, so
/// the entries a client wrote itself come first and the trusted ones last. The client is
/// the `trusted`-th from the right (the first trusted proxy's peer); a list shorter than
/// that has no entry a client wrote, and its first is taken. Counted per address, an IPv6
/// client per /64 (one household or host has a whole /64).
fn client(headers: &HeaderMap, peer: IpAddr, trusted: usize) -> Client {
    let address = if trusted == 0 {
        peer
    } else {
        let list = forwarded_for(headers);
        list.len()
            .checked_sub(trusted)
            .or((!list.is_empty()).then_some(0))
            .and_then(|i| list[i].parse::<IpAddr>().ok())
            .unwrap_or(peer)
    };
    Client(match address.to_canonical() {
        IpAddr::V6(v6) => {
            let [a, b, c, d, ..] = v6.segments();
            IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
        }
        v4 @ IpAddr::V4(_) => v4,
    })
}

/// A post that a browser says comes from the site's own pages, or from an allowed
/// origin; a post that says nothing of where it comes from is not a browser's (a script,
/// curl) and passes. What a browser says: `Origin` (scheme, host and port, compared
/// whole), or, without it, `Referer`'s origin, or `Sec-Fetch-Site: cross-site`. Refused
/// with the route family's error `E`, from [`OtherSite`].
pub struct FromOwnSite<E>(PhantomData<E>);

/// A post from another site's page.
#[derive(Debug)]
pub struct OtherSite;

impl<S, E> FromRequestParts<S> for FromOwnSite<E>
where
    Arc<Settings>: FromRef<S>,
    S: Send + Sync,
    E: From<OtherSite> + IntoResponse,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, E> {
        let settings = Arc::<Settings>::from_ref(state);
        let own = own_origin(&parts.headers, settings.trusted_proxies > 0);
        if from_own_site(&parts.headers, own.as_deref(), &settings.allowed_origins) {
            Ok(FromOwnSite(PhantomData))
        } else {
            Err(OtherSite.into())
        }
    }
}

/// The origin of the site's own pages: this server's host, by `http`, or by the scheme a
/// trusted proxy says it was reached with (`X-Forwarded-Proto`, the last one).
fn own_origin(headers: &HeaderMap, behind_proxy: bool) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let forwarded = || {
        let proto = headers.get_all("x-forwarded-proto").iter().next_back()?;
        let proto = proto.to_str().ok()?.rsplit(',').next()?.trim();
        matches!(proto, "http" | "https").then_some(proto)
    };
    let scheme = if behind_proxy { forwarded() } else { None }.unwrap_or("http");
    Some(format!("{scheme}://{}", host.to_ascii_lowercase()))
}

fn from_own_site(headers: &HeaderMap, own: Option<&str>, allowed: &[String]) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let welcome = |origin: &str| Some(origin) == own || allowed.iter().any(|a| a == origin);
    if let Some(origin) = text(header::ORIGIN) {
        return welcome(&origin.to_ascii_lowercase());
    }
    if text(header::HeaderName::from_static("sec-fetch-site")) == Some("cross-site") {
        return false;
    }
    match text(header::REFERER) {
        Some(referer) => referer_origin(referer).is_some_and(|origin| welcome(&origin)),
        None => true,
    }
}

/// `scheme://host[:port]` of a `Referer`, in lower case.
fn referer_origin(referer: &str) -> Option<String> {
    let (scheme, rest) = referer.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty() && !authority.contains('@'))
        .then(|| format!("{scheme}://{authority}").to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn origins() {
        let allowed = ["https://site.test".to_owned()];
        let check = |pairs: &[(&'static str, &str)]| {
            let h = headers(pairs);
            from_own_site(&h, own_origin(&h, false).as_deref(), &allowed)
        };
        for (sent, welcome) in [
            (&[][..], true),
            (
                &[("host", "a.test:8080"), ("origin", "http://a.test:8080")],
                true,
            ),
            (&[("host", "a.test"), ("origin", "https://site.test")], true),
            (
                &[("host", "a.test"), ("origin", "https://evil.test")],
                false,
            ),
            (&[("host", "a.test"), ("origin", "null")], false),
            // The scheme is part of the origin.
            (
                &[("host", "a.test:8080"), ("origin", "https://a.test:8080")],
                false,
            ),
            (&[("sec-fetch-site", "cross-site")], false),
            (&[("sec-fetch-site", "same-origin")], true),
            (
                &[("host", "a.test"), ("referer", "http://a.test/contact")],
                true,
            ),
            (
                &[("host", "a.test"), ("referer", "https://evil.test/a.test")],
                false,
            ),
            (
                &[("host", "a.test"), ("referer", "http://evil.test@a.test/")],
                false,
            ),
            (&[("host", "a.test"), ("referer", "nonsense")], false),
            (
                &[("host", "a.test"), ("referer", "https://site.test/x?y")],
                true,
            ),
        ] {
            assert_eq!(check(sent), welcome, "{sent:?}");
        }
    }

    #[test]
    fn behind_a_proxy_the_scheme_is_the_proxys() {
        let h = headers(&[("host", "lathe.test"), ("x-forwarded-proto", "https")]);
        assert_eq!(own_origin(&h, true).as_deref(), Some("https://lathe.test"));
        assert_eq!(own_origin(&h, false).as_deref(), Some("http://lathe.test"));
    }

    #[test]
    fn clients() {
        let peer: IpAddr = "10.0.0.1".parse().unwrap();
        let ip = |s: &str| Client(s.parse().unwrap());
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 2.2.2.2")]);
        assert_eq!(client(&h, peer, 0), Client(peer), "not trusted by default");
        assert_eq!(client(&h, peer, 1), ip("2.2.2.2"));
        assert_eq!(client(&h, peer, 2), ip("1.1.1.1"));
        assert_eq!(
            client(&h, peer, 3),
            ip("1.1.1.1"),
            "fewer entries than proxies"
        );
        assert_eq!(client(&HeaderMap::new(), peer, 1), Client(peer));
        // A client's own line first, the proxy's after: one list, read from the right.
        let two_lines = headers(&[
            ("x-forwarded-for", "203.0.113.7"),
            ("x-forwarded-for", "198.51.100.1, 192.0.2.1"),
        ]);
        assert_eq!(client(&two_lines, peer, 1), ip("192.0.2.1"));
        assert_eq!(client(&two_lines, peer, 2), ip("198.51.100.1"));
        // IPv6 per /64; IPv4 mapped into IPv6 as IPv4.
        let v6 = |s: &str| client(&headers(&[("x-forwarded-for", s)]), peer, 1);
        assert_eq!(v6("2001:db8:1:2:aaaa::1"), v6("2001:db8:1:2:bbbb::2"));
        assert_ne!(v6("2001:db8:1:2::1"), v6("2001:db8:1:3::1"));
        assert_eq!(v6("::ffff:192.0.2.9"), ip("192.0.2.9"));
    }
}
