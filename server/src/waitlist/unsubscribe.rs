//! One-click unsubscribe (RFC 8058), the link of every invitation, served when the server
//! sends email: `/api/waitlist/unsubscribe?token=...`, the URL its `List-Unsubscribe`
//! header names and its text shows. The token is its own ([`Purpose::Unsubscribe`]): a
//! manage or confirmation link does nothing here, nor this one there.
//!
//! - `POST` unsubscribes at once and answers 200, a page that says so, never a redirect.
//!   It is what a mail provider sends when its reader presses Unsubscribe (the body
//!   `List-Unsubscribe=One-Click`, form-encoded or multipart, from the provider's own
//!   servers, maybe days later): no cookie, no Origin, no token but the URL's, so the
//!   URL's signed token is all that is checked, and the body is not read. A repeat (the
//!   entry is gone) is answered the same.
//! - `GET` (a reader whose mail client has no one-click, or a link scanner) changes
//!   nothing: a page with one button, which posts that same form.
//!
//! Unsubscribed means erased ([`ErasedBy::Unsubscribed`]): nothing is kept of the entry
//! but the erasure's time and reason, so no email of any kind goes to the address again
//! and no wave can invite it. Counted ([`metrics::UNSUBSCRIBES`]), logged without the
//! address, and told to a webhook receiver (`entry.unsubscribed`).

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde::Deserialize;

use super::links::Links;
use crate::domain::ErasedBy;
use crate::domain::token::{Claims, Purpose};
use crate::mail::ONE_CLICK;
use crate::operations::metrics;
use crate::operations::page::{self, escape};

/// The one-click unsubscribe's path (its token in the query: a mail provider posts to
/// the URL as the header gives it).
pub const UNSUBSCRIBE_PATH: &str = "/api/waitlist/unsubscribe";

/// `?token=...`; anything else in the query is ignored.
#[derive(Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// What the page says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Said {
    /// The entry is there: the button that unsubscribes.
    Ask,
    /// Unsubscribed now, or before.
    Done,
    /// A GET for an entry that is gone: nothing to do.
    Gone,
    /// Not a link of ours (cut short, altered, or another email's link).
    Invalid,
    /// The database cannot be reached.
    Unavailable,
}

/// `GET`: the page with one button; changes nothing.
pub async fn page(
    State(links): State<Links>,
    query: Result<Query<TokenQuery>, QueryRejection>,
) -> Response {
    let said = match verified(&links, query.ok().as_deref()) {
        None => Said::Invalid,
        Some(claims) => match links.store.find_managed(&claims.entry, &claims.nonce).await {
            Ok(Some(_)) => Said::Ask,
            Ok(None) => Said::Gone,
            Err(e) => {
                tracing::error!("the unsubscribe page cannot read its entry: {e}");
                Said::Unavailable
            }
        },
    };
    answer(said)
}

/// `POST`: unsubscribes (erases) at once.
pub async fn unsubscribe(
    State(links): State<Links>,
    query: Result<Query<TokenQuery>, QueryRejection>,
) -> Response {
    let said = match verified(&links, query.ok().as_deref()) {
        None => Said::Invalid,
        Some(claims) => {
            let erased = links
                .store
                .erase_managed(
                    &claims.entry,
                    &claims.nonce,
                    ErasedBy::Unsubscribed,
                    crate::now_ms(),
                )
                .await;
            match erased {
                Ok(true) => {
                    metrics::unsubscribed();
                    tracing::info!("entry erased by its one-click unsubscribe");
                    Said::Done
                }
                Ok(false) => Said::Done,
                Err(e) => {
                    tracing::error!("could not unsubscribe: {e}");
                    Said::Unavailable
                }
            }
        }
    };
    answer(said)
}

/// The claims of the query's token, if it is an unsubscribe token of ours.
fn verified(links: &Links, query: Option<&TokenQuery>) -> Option<Claims> {
    let token = query?.token.as_deref()?;
    links
        .key
        .verify(token, Purpose::Unsubscribe, crate::now_ms())
        .ok()
}

fn answer(said: Said) -> Response {
    let (status, title, text, button) = match said {
        Said::Ask => (
            StatusCode::OK,
            "Unsubscribe from the waitlist",
            "Press the button to leave the waitlist: we erase your entry at once and send \
             no more email to this address. You can join again later, at the back of the line.",
            true,
        ),
        Said::Done => (
            StatusCode::OK,
            "You are unsubscribed",
            "Your entry is erased and no more email will be sent to this address. We keep \
             only a note that an entry was erased, when, and why; nothing about whose.",
            false,
        ),
        Said::Gone => (
            StatusCode::OK,
            "Nothing to unsubscribe",
            "This address is not on the waitlist any more: no email will be sent to it.",
            false,
        ),
        Said::Invalid => (
            StatusCode::BAD_REQUEST,
            "This link is not one of ours",
            "Check that it was copied whole, or use the link in the email we sent you.",
            false,
        ),
        Said::Unavailable => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Please try again",
            "The waitlist cannot be reached just now: nothing has changed. Please try again \
             in a minute.",
            false,
        ),
    };
    // The form posts to the page's own URL (no action: the token stays in the query),
    // with the body a mail provider sends.
    let form = if button {
        let (name, value) = ONE_CLICK.split_once('=').expect("name=value");
        format!(
            "<form method=\"post\"><input type=\"hidden\" name=\"{name}\" value=\"{value}\">\
             <button type=\"submit\">Unsubscribe</button></form>"
        )
    } else {
        String::new()
    };
    let document = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex\">\
         <title>{title}</title><style>{STYLE}</style></head>\
         <body><main><h1>{title}</h1><p>{text}</p>{form}</main></body></html>\n",
        title = escape(title),
        text = escape(text),
    );
    page::html(status, document, POLICY.clone())
}

/// The site's colours (web/src/styles/tokens.css) in the reader's theme; the system's
/// font, as nothing is loaded.
const STYLE: &str = "\
:root{color-scheme:light dark;--bg:#f6f7fb;--surface:#fff;--text:#141629;--muted:#4a4f68;\
--border:#dcdfeb;--accent:#4f46e5;--accent-hover:#4338ca;--on-accent:#fff;--focus:#4f46e5}\
@media (prefers-color-scheme:dark){:root{--bg:#0b0d18;--surface:#141729;--text:#eef0fa;\
--muted:#aab0ca;--border:#2a2f4a;--accent:#8d8cff;--accent-hover:#a7a6ff;--on-accent:#0b0d18;\
--focus:#a7a6ff}}\
*{box-sizing:border-box}\
body{margin:0;background:var(--bg);color:var(--text);font:1rem/1.6 system-ui,sans-serif}\
main{max-width:34rem;margin:10vh auto 2rem;padding:2rem 1.5rem;background:var(--surface);\
border:1px solid var(--border);border-radius:1.25rem}\
@media (max-width:36rem){main{margin:0;border:0;border-radius:0;min-height:100vh}}\
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}\
p{margin:0 0 1.25rem;color:var(--muted)}p:last-child{margin-bottom:0}\
button{font:inherit;font-weight:600;color:var(--on-accent);background:var(--accent);border:0;\
border-radius:.75rem;padding:.75rem 1.5rem;min-height:2.75rem;cursor:pointer}\
button:hover{background:var(--accent-hover)}\
button:focus-visible{outline:3px solid var(--focus);outline-offset:3px}";

/// The page's Content-Security-Policy: its own style, and its form, which posts here.
static POLICY: std::sync::LazyLock<HeaderValue> =
    std::sync::LazyLock::new(|| page::policy(STYLE, "'self'"));

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn only_the_question_has_a_button_and_it_posts_the_one_click_body() {
        let form = "<form method=\"post\"><input type=\"hidden\" name=\"List-Unsubscribe\" \
                    value=\"One-Click\"><button type=\"submit\">Unsubscribe</button></form>";
        for (said, status) in [
            (Said::Ask, StatusCode::OK),
            (Said::Done, StatusCode::OK),
            (Said::Gone, StatusCode::OK),
            (Said::Invalid, StatusCode::BAD_REQUEST),
            (Said::Unavailable, StatusCode::SERVICE_UNAVAILABLE),
        ] {
            let response = answer(said);
            assert_eq!(response.status(), status, "{said:?}");
            let policy = response.headers()["content-security-policy"]
                .to_str()
                .unwrap();
            assert!(policy.contains("form-action 'self'"), "{policy}");
            let text = body(response).await;
            assert_eq!(text.contains(form), said == Said::Ask, "{said:?}: {text}");
            assert_eq!(
                text.contains("<form"),
                said == Said::Ask,
                "{said:?}: {text}"
            );
        }
    }
}
