//! The few pages the server makes itself (the owner's figures, the one-click unsubscribe):
//! one HTML document each, its style inline and nothing loaded from anywhere, under a
//! Content-Security-Policy that allows that style (by its hash) and nothing else but what
//! the page names.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// A page's Content-Security-Policy: nothing but its own inline `style`, no frames, no
/// base; `form_action` is where its forms may post (`'none'` or `'self'`).
///
/// # Panics
/// Never for the constant texts it is made from (ASCII).
pub fn policy(style: &str, form_action: &str) -> HeaderValue {
    let hash = STANDARD.encode(Sha256::digest(style.as_bytes()));
    HeaderValue::from_str(&format!(
        "default-src 'none'; style-src 'sha256-{hash}'; base-uri 'none'; \
         form-action {form_action}; frame-ancestors 'none'"
    ))
    .expect("a policy of ASCII text")
}

/// `document` answered with `status`, as HTML that is never stored (it may hold a
/// link's token, or figures of the moment) and never sniffed, under `policy`.
pub fn html(status: StatusCode, document: String, policy: HeaderValue) -> Response {
    let mut response = (status, document).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `text` with HTML's special characters as entities.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_text_never_markup() {
        assert_eq!(
            escape("<script>\"x\" & y</script>"),
            "&lt;script&gt;&quot;x&quot; &amp; y&lt;/script&gt;"
        );
    }

    #[test]
    fn the_policy_allows_the_pages_own_style_and_forms_where_told() {
        let policy = policy("p{color:red}", "'self'");
        let policy = policy.to_str().unwrap();
        assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(policy.contains("; form-action 'self';"));
        assert!(!policy.contains("unsafe"));
    }
}
