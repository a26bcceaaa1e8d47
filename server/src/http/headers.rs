//! The site's response headers, read from the build's `_headers` file: the one source for
//! this server, for static hosts (Netlify and Cloudflare Pages read the same file) and for
//! nginx (`lathe-site nginx-headers` writes its `add_header` lines from it).
//!
//! The format is theirs: a line that starts at the margin is a path pattern (`/*`,
//! `/assets/*`, `/contact`); the indented `Name: value` lines under it are its headers;
//! lines starting with `#` and blank lines are ignored. A pattern ending in `*` matches
//! every path with that prefix; any other matches exactly.

use std::fmt::Write;

use axum::http::{HeaderName, HeaderValue};

/// The header a deployment without TLS must not send (`--hsts` turns it on).
pub const HSTS: &str = "strict-transport-security";

/// One path pattern and its headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `/*`, `/assets/*` or an exact path.
    pub pattern: String,
    /// Its headers, in file order.
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl Rule {
    /// Whether the rule applies to `path`.
    pub fn matches(&self, path: &str) -> bool {
        match self.pattern.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => path == self.pattern,
        }
    }
}

/// What is wrong with a `_headers` file, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("_headers line {line}: {problem}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong there.
    pub problem: &'static str,
}

/// Reads a `_headers` file.
///
/// # Errors
/// A header line before any pattern, a line without `Name: value`, or a name or value
/// that HTTP does not allow.
pub fn parse(text: &str) -> Result<Vec<Rule>, ParseError> {
    let mut rules: Vec<Rule> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if !raw.starts_with([' ', '\t']) {
            rules.push(Rule {
                pattern: trimmed.to_owned(),
                headers: Vec::new(),
            });
            continue;
        }
        let rule = rules.last_mut().ok_or(ParseError {
            line,
            problem: "a header before any path pattern",
        })?;
        let (name, value) = trimmed.split_once(':').ok_or(ParseError {
            line,
            problem: "expected `Name: value`",
        })?;
        let name = HeaderName::try_from(name.trim()).map_err(|_| ParseError {
            line,
            problem: "not a valid header name",
        })?;
        let value = HeaderValue::try_from(value.trim()).map_err(|_| ParseError {
            line,
            problem: "not a valid header value",
        })?;
        rule.headers.push((name, value));
    }
    Ok(rules)
}

/// The headers every response gets (the `/*` rule), for nginx's `add_header ... always`.
pub fn nginx(rules: &[Rule]) -> String {
    let mut out = String::from(
        "# Written by `lathe-site nginx-headers` from the build's _headers: do not edit.\n",
    );
    for rule in rules.iter().filter(|r| r.pattern == "/*") {
        for (name, value) in &rule.headers {
            let value = value.to_str().unwrap_or_default().replace('"', "\\\"");
            let _ = writeln!(out, "add_header {name} \"{value}\" always;");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# The site's headers\n/*\n  X-Content-Type-Options: nosniff\n  Content-Security-Policy: default-src 'none'; script-src 'self'\n\n/assets/*\n  # a year, for hashed names\n  Cache-Control: public, max-age=31536000, immutable\n";

    #[test]
    fn comments_and_blank_lines_are_ignored_anywhere() {
        let rules = parse(FILE).unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].pattern, "/*");
        assert_eq!(rules[0].headers.len(), 2);
        assert_eq!(rules[1].headers[0].0, "cache-control");
        assert_eq!(rules[1].headers[0].1, "public, max-age=31536000, immutable");
    }

    #[test]
    fn patterns_match_by_prefix_or_exactly() {
        let rules = parse(FILE).unwrap();
        assert!(rules[0].matches("/"));
        assert!(rules[1].matches("/assets/index-abc.js"));
        assert!(!rules[1].matches("/assets"));
        let exact = Rule {
            pattern: "/contact".into(),
            headers: vec![],
        };
        assert!(exact.matches("/contact"));
        assert!(!exact.matches("/contact/x"));
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            parse("  X-A: b\n").unwrap_err().to_string(),
            "_headers line 1: a header before any path pattern"
        );
        assert_eq!(
            parse("/*\n  no colon\n").unwrap_err().to_string(),
            "_headers line 2: expected `Name: value`"
        );
        assert_eq!(
            parse("/*\n  Bad Name: x\n").unwrap_err().problem,
            "not a valid header name"
        );
    }

    #[test]
    fn nginx_lines_carry_every_site_wide_header_always() {
        assert_eq!(
            nginx(&parse(FILE).unwrap()),
            "# Written by `lathe-site nginx-headers` from the build's _headers: do not edit.\nadd_header x-content-type-options \"nosniff\" always;\nadd_header content-security-policy \"default-src 'none'; script-src 'self'\" always;\n"
        );
    }
}
