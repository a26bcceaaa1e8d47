//! The one way a body is read on the waitlist's routes: JSON, within a size, within the
//! body's deadline. Each route family says what it takes ([`Posted`]) and how a body that
//! fails is answered (its error type, from [`BodyError`]), so every route answers a body
//! that is not JSON 415, one too large 413, and one too slow 408.

use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, header};
use axum::response::IntoResponse;
use serde::de::DeserializeOwned;

/// What a route takes as its body.
pub trait Posted: DeserializeOwned {
    /// The largest body accepted, in bytes.
    const LIMIT: usize;
    /// How the route answers a body it cannot take.
    type Error: From<BodyError> + IntoResponse;
}

/// Why a body was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Not sent as JSON (`Content-Type`).
    NotJson,
    /// Larger than the route's limit.
    TooLarge,
    /// Not arrived whole within the body's deadline (or the connection's idle timeout).
    TooSlow,
    /// Not what the route takes: broken JSON, not an object, a missing or unknown field,
    /// or a connection that broke; serde's (or the connection's) words.
    Invalid(String),
}

/// A body of `T`, read as [`Posted`] says.
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: Posted> FromRequest<S> for Json<T> {
    type Rejection = T::Error;

    async fn from_request(request: Request, _: &S) -> Result<Self, T::Error> {
        if !is_json(request.headers()) {
            return Err(BodyError::NotJson.into());
        }
        let body = axum::body::to_bytes(request.into_body(), T::LIMIT)
            .await
            .map_err(|e| T::Error::from(unread(&e)))?;
        // A JSON object (serde alone would also take an array for a struct).
        match serde_json::from_slice(&body) {
            Ok(object @ serde_json::Value::Object(_)) => serde_json::from_value(object),
            Ok(_) => return Err(BodyError::Invalid("expected a JSON object".into()).into()),
            Err(e) => Err(e),
        }
        .map(Json)
        .map_err(|e| BodyError::Invalid(e.to_string()).into())
    }
}

/// What reading a body failed on: its size, its deadline (or the connection's idle
/// timeout), or the connection.
fn unread(error: &axum::Error) -> BodyError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if e.is::<http_body_util::LengthLimitError>() {
            return BodyError::TooLarge;
        }
        let idle = e
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut);
        if idle || e.is::<tower_http::timeout::TimeoutError>() {
            return BodyError::TooSlow;
        }
        cause = e.source();
    }
    BodyError::Invalid(format!("the body could not be read: {error}"))
}

/// Whether the request says its body is JSON (`application/json`, any parameters).
pub fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn json_content_types() {
        for (value, json) in [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("Application/JSON", true),
            ("text/plain", false),
            ("application/x-www-form-urlencoded", false),
            ("application/jsonx", false),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            assert_eq!(is_json(&headers), json, "{value}");
        }
        assert!(!is_json(&HeaderMap::new()));
    }
}
