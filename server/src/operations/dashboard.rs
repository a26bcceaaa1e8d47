//! The owner's listener (`--metrics-addr`, never the site's port): `GET /metrics` for
//! Prometheus, and `GET /`, a page of the list's figures as charts, drawn here as inline
//! SVG (nothing loaded from anywhere, no script), in the reader's theme, readable from
//! 320 px. Every chart's figures are also text, for screen readers and for copying.

use std::fmt::Write as _;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use metrics_exporter_prometheus::PrometheusHandle;

use super::metrics;
use super::page::{self, escape};
use crate::domain::time;
use crate::store::{Stats, Store};

/// How many days the page charts, today included.
pub const DAYS: u32 = 30;

/// What the listener answers from.
#[derive(Clone)]
struct Owner {
    handle: PrometheusHandle,
    store: Option<Store>,
}

/// The listener's routes: `/` and `/metrics`.
pub fn router(handle: PrometheusHandle, store: Option<Store>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/metrics", get(scrape))
        .with_state(Owner { handle, store })
}

/// The metrics, with the entries by status counted now.
async fn scrape(State(owner): State<Owner>) -> String {
    if let Some(store) = &owner.store {
        match store.count_by_status().await {
            Ok(counts) => metrics::entries(&counts),
            Err(e) => tracing::warn!("the metrics cannot count the entries: {e}"),
        }
    }
    owner.handle.render()
}

async fn page(State(owner): State<Owner>) -> Response {
    let now = crate::now_ms();
    let body = match &owner.store {
        None => Ok(paragraph(
            "This server collects no sign-ups: start it with --database.",
        )),
        Some(store) => store.stats(now, DAYS).await.map(|stats| figures(&stats)),
    };
    match body {
        Ok(body) => html(StatusCode::OK, &document(now, &body)),
        Err(e) => {
            tracing::error!("the owner's page cannot read the figures: {e}");
            let said = paragraph("The figures cannot be read just now: the database failed.");
            html(StatusCode::SERVICE_UNAVAILABLE, &document(now, &said))
        }
    }
}

const STYLE: &str = "\
:root{color-scheme:light dark;--bg:#fff;--text:#1f2328;--muted:#59636e;--line:#d1d9e0;\
--a:#0b5cad;--b:#1a7f37;--c:#8250df;--track:#eef1f4}\
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--text:#e6edf3;--muted:#9198a1;\
--line:#3d444d;--a:#58a6ff;--b:#3fb950;--c:#d2a8ff;--track:#21262d}}\
*{box-sizing:border-box}\
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,sans-serif}\
main{max-width:52rem;margin:0 auto;padding:1rem}\
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.15rem;margin:1.75rem 0 .5rem}\
a{color:var(--a)}p{margin:.25rem 0}.muted{color:var(--muted)}\
.figure{font-size:2rem;font-weight:700}\
.bars{list-style:none;margin:0;padding:0;display:grid;gap:.4rem}\
.bars li{display:grid;grid-template-columns:minmax(6rem,9rem) 1fr 3.5rem;gap:.5rem;align-items:center}\
.bars span:last-child{text-align:right;font-variant-numeric:tabular-nums}\
.bars svg{width:100%;height:.9rem;display:block}\
.track{fill:var(--track)}.a{fill:var(--a)}.b{fill:var(--b)}.c{fill:var(--c)}\
.days{width:100%;height:10rem;display:block;border-bottom:1px solid var(--line)}\
.axis{display:flex;justify-content:space-between;font-size:.85rem}\
.legend{display:flex;flex-wrap:wrap;gap:1rem;margin:.5rem 0;padding:0;list-style:none}\
.legend svg{width:.9rem;height:.9rem;vertical-align:-.1rem;margin-right:.3rem}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums}\
th,td{border-bottom:1px solid var(--line);padding:.25rem .6rem;text-align:left;white-space:nowrap}\
td.n,th.n{text-align:right}";

/// The page's Content-Security-Policy, made once: its own style, no forms.
static POLICY: std::sync::LazyLock<HeaderValue> =
    std::sync::LazyLock::new(|| page::policy(STYLE, "'none'"));

fn html(status: StatusCode, document: &str) -> Response {
    page::html(status, document.to_owned(), POLICY.clone())
}

fn document(now: i64, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>The waitlist's figures</title><style>{STYLE}</style></head>\
         <body><main><h1>The waitlist's figures</h1>\
         <p class=\"muted\">As at {} (UTC). For Prometheus: <a href=\"/metrics\">/metrics</a>.</p>\
         {body}</main></body></html>\n",
        escape(&time(now)[..16].replace('T', " "))
    )
}

fn paragraph(text: &str) -> String {
    format!("<p>{}</p>", escape(text))
}

/// Every section of the page.
fn figures(stats: &Stats) -> String {
    let mut out = String::new();
    let statuses: Vec<(String, i64)> = stats
        .by_status
        .iter()
        .map(|(status, n)| (status.as_str().to_owned(), *n))
        .collect();
    let _ = write!(
        out,
        "<section aria-labelledby=\"entries\"><h2 id=\"entries\">Entries: {}</h2>{}</section>",
        stats.entries(),
        bars(&statuses, "By status")
    );
    let (confirmed, asked) = stats.confirmed_of_asked;
    let rate = stats.confirmation_rate().map_or_else(
        || "<p>Nobody was asked to confirm yet.</p>".to_owned(),
        |rate| {
            format!(
                "<p class=\"figure\">{:.0} %</p><p class=\"muted\">{confirmed} of the {asked} asked confirmed their address.</p>",
                rate * 100.0
            )
        },
    );
    let _ = write!(
        out,
        "<section aria-labelledby=\"rate\"><h2 id=\"rate\">Confirmation rate</h2>{rate}</section>"
    );
    out.push_str(&days(stats));
    let referrals = match (stats.referred_share(), stats.viral_coefficient()) {
        (Some(share), Some(coefficient)) => format!(
            "<p class=\"figure\">{:.0} %</p><p class=\"muted\">{} of the {} confirmed came through a friend's share link.</p>\
             <p>Viral coefficient: {coefficient:.2} ({} referrals credited, per confirmed entry).</p>",
            share * 100.0,
            stats.referred_confirmed,
            stats.confirmed(),
            stats.credits
        ),
        _ => "<p>Nobody has confirmed yet.</p>".to_owned(),
    };
    let _ = write!(
        out,
        "<section aria-labelledby=\"referrals\"><h2 id=\"referrals\">Referrals</h2>{referrals}</section>"
    );
    let _ = write!(
        out,
        "<section aria-labelledby=\"interest\"><h2 id=\"interest\">By interest</h2>{}</section>",
        bars(&stats.by_interest, "By interest")
    );
    out.push_str(&waves(stats));
    let o = stats.outbox;
    let _ = write!(
        out,
        "<section aria-labelledby=\"outbox\"><h2 id=\"outbox\">Emails</h2>\
         <p>{} queued, {} sent, {} failed (sent and failed ones are kept a day).</p></section>",
        o.queued, o.sent, o.failed
    );
    out
}

/// A horizontal bar a figure, each with its label and number as text.
fn bars(figures: &[(String, i64)], name: &str) -> String {
    let largest = figures.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let mut out = format!("<ul class=\"bars\" aria-label=\"{}\">", escape(name));
    for (label, n) in figures {
        let width = *n as f64 * 100.0 / largest as f64;
        let _ = write!(
            out,
            "<li><span>{}</span><svg viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" aria-hidden=\"true\">\
             <rect class=\"track\" width=\"100\" height=\"10\"/><rect class=\"a\" width=\"{width:.2}\" height=\"10\"/></svg>\
             <span>{n}</span></li>",
            escape(label)
        );
    }
    out.push_str("</ul>");
    out
}

/// Sign-ups and confirmations a day: a column pair a day, and the figures as a table.
fn days(stats: &Stats) -> String {
    let largest = stats
        .days
        .iter()
        .map(|d| d.sign_ups.max(d.confirmations))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let width = 10.0;
    let mut columns = String::new();
    for (i, day) in stats.days.iter().enumerate() {
        let x = i as f64 * width;
        let height = |n: i64| n as f64 * 100.0 / largest;
        // The sign-ups' column in two: those who came by themselves, and on top those who
        // came through a share link.
        let _ = write!(
            columns,
            "<g><title>{}: {} sign-ups ({} through a share link), {} confirmations</title>\
             <rect class=\"a\" x=\"{:.1}\" y=\"{:.2}\" width=\"4\" height=\"{:.2}\"/>\
             <rect class=\"c\" x=\"{:.1}\" y=\"{:.2}\" width=\"4\" height=\"{:.2}\"/>\
             <rect class=\"b\" x=\"{:.1}\" y=\"{:.2}\" width=\"4\" height=\"{:.2}\"/></g>",
            &time(day.starts_at)[..10],
            day.sign_ups,
            day.referred,
            day.confirmations,
            x + 1.0,
            100.0 - height(day.sign_ups - day.referred),
            height(day.sign_ups - day.referred),
            x + 1.0,
            100.0 - height(day.sign_ups),
            height(day.referred),
            x + 5.0,
            100.0 - height(day.confirmations),
            height(day.confirmations),
        );
    }
    let (first, last) = (
        stats
            .days
            .first()
            .map(|d| time(d.starts_at)[..10].to_owned()),
        stats
            .days
            .last()
            .map(|d| time(d.starts_at)[..10].to_owned()),
    );
    let mut rows = String::new();
    for day in stats.days.iter().rev() {
        let _ = write!(
            rows,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            &time(day.starts_at)[..10],
            day.sign_ups,
            day.referred,
            day.confirmations
        );
    }
    let swatch = |class: &str| {
        format!(
            "<svg viewBox=\"0 0 10 10\" aria-hidden=\"true\"><rect class=\"{class}\" width=\"10\" height=\"10\"/></svg>"
        )
    };
    format!(
        "<section aria-labelledby=\"days\"><h2 id=\"days\">Sign-ups and confirmations, the last {n} days</h2>\
         <ul class=\"legend\"><li>{}Sign-ups</li><li>{}of them through a share link</li><li>{}Confirmations</li></ul>\
         <svg class=\"days\" viewBox=\"0 0 {w} 100\" preserveAspectRatio=\"none\" role=\"img\" \
         aria-label=\"Sign-ups and confirmations a day, from {first} to {last}: the table below has each day's figures\">{columns}</svg>\
         <p class=\"axis\"><span>{first}</span><span>{last}</span></p>\
         <details><summary>Each day's figures</summary><div class=\"scroll\"><table>\
         <thead><tr><th>Day (UTC)</th><th class=\"n\">Sign-ups</th><th class=\"n\">Through a link</th><th class=\"n\">Confirmations</th></tr></thead>\
         <tbody>{rows}</tbody></table></div></details></section>",
        swatch("a"),
        swatch("c"),
        swatch("b"),
        n = stats.days.len(),
        w = stats.days.len() * 10,
        first = first.unwrap_or_default(),
        last = last.unwrap_or_default(),
    )
}

/// The waves as a table.
fn waves(stats: &Stats) -> String {
    let unsubscribed = format!(
        "<p>Unsubscribed from an invitation's link (and so erased): {}.</p>",
        stats.unsubscribed
    );
    if stats.waves.is_empty() {
        return format!(
            "<section aria-labelledby=\"waves\"><h2 id=\"waves\">Invitations</h2>\
             <p>No wave yet: <code>lathe-site waitlist invite</code> sends one.</p>{unsubscribed}</section>"
        );
    }
    let mut rows = String::new();
    for wave in &stats.waves {
        let _ = write!(
            rows,
            "<tr><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            wave.number,
            &time(wave.created_at)[..10],
            wave.size,
            wave.sent,
            wave.queued,
            wave.failed,
            escape(&wave.subject)
        );
    }
    format!(
        "<section aria-labelledby=\"waves\"><h2 id=\"waves\">Invitations</h2><div class=\"scroll\"><table>\
         <thead><tr><th class=\"n\">Wave</th><th>Made</th><th class=\"n\">Invited</th><th class=\"n\">Sent</th>\
         <th class=\"n\">Queued</th><th class=\"n\">Failed</th><th>Subject</th></tr></thead>\
         <tbody>{rows}</tbody></table></div>{unsubscribed}</section>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_the_pages_own_style_only() {
        let policy = POLICY.to_str().unwrap();
        assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(policy.contains("form-action 'none'"));
        assert!(!policy.contains("unsafe"));
    }
}
