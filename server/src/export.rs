//! The waitlist as the owner takes it away: CSV for a spreadsheet, JSON for a program.
//! Times are RFC 3339, UTC, to the millisecond.

use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use serde::Serialize;

use crate::store::Entry;

/// An entry as exported: the stored one, with readable times.
#[derive(Serialize)]
struct Row<'a> {
    email: &'a str,
    name: &'a str,
    company: &'a str,
    role: &'a str,
    interest: &'a str,
    message: &'a str,
    privacy_notice: &'a str,
    created_at: String,
    updated_at: String,
}

fn time(ms: i64) -> String {
    let since_epoch = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(UNIX_EPOCH + since_epoch).to_string()
}

impl<'a> From<&'a Entry> for Row<'a> {
    fn from(entry: &'a Entry) -> Self {
        Self {
            email: &entry.email,
            name: &entry.name,
            company: &entry.company,
            role: &entry.role,
            interest: entry.interest.as_str(),
            message: &entry.message,
            privacy_notice: &entry.privacy_notice,
            created_at: time(entry.created_at),
            updated_at: time(entry.updated_at),
        }
    }
}

/// A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage
/// return first) gets a `'` in front: a visitor's text must never run on the owner's
/// machine. The JSON export keeps the text exactly.
fn defused(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// Writes `entries` as CSV with a header row.
///
/// # Errors
/// Writing failed.
pub fn csv(entries: &[Entry], out: impl Write) -> std::io::Result<()> {
    let mut writer = ::csv::Writer::from_writer(out);
    writer.write_record([
        "email",
        "name",
        "company",
        "role",
        "interest",
        "message",
        "privacy_notice",
        "created_at",
        "updated_at",
    ])?;
    for entry in entries {
        let row = Row::from(entry);
        writer.write_record([
            &*defused(row.email),
            &defused(row.name),
            &defused(row.company),
            &defused(row.role),
            row.interest,
            &defused(row.message),
            &defused(row.privacy_notice),
            &row.created_at,
            &row.updated_at,
        ])?;
    }
    writer.flush()
}

/// Something [`json`] can write: one entry, or a list.
pub trait Exported {
    /// As JSON.
    ///
    /// # Errors
    /// Never for an entry; serde's signature.
    fn to_json(&self) -> serde_json::Result<String>;
}

impl Exported for Entry {
    fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&Row::from(self))
    }
}

impl Exported for [Entry] {
    fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.iter().map(Row::from).collect::<Vec<_>>())
    }
}

impl Exported for Vec<Entry> {
    fn to_json(&self) -> serde_json::Result<String> {
        self.as_slice().to_json()
    }
}

/// Writes one entry, or a list of them, as pretty JSON and a newline.
///
/// # Errors
/// Writing failed.
pub fn json<T: Exported + ?Sized>(value: &T, mut out: impl Write) -> std::io::Result<()> {
    writeln!(out, "{}", value.to_json()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lathe_core::validation::{FormValues, Interest};

    fn entry(name: &str, message: &str) -> Entry {
        Entry::new(
            FormValues {
                name: name.into(),
                email: "ada@example.com".into(),
                company: String::new(),
                role: "CTO, \"Engines\"".into(),
                interest: Interest::Press,
                message: message.into(),
            },
            "2026-11-22".into(),
            1_795_000_000_123,
        )
    }

    #[test]
    fn csv_quotes_and_defuses() {
        let mut out = Vec::new();
        csv(&[entry("=HYPERLINK(\"x\")", "line 1\nline 2")], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "email,name,company,role,interest,message,privacy_notice,created_at,updated_at\n\
             ada@example.com,\"'=HYPERLINK(\"\"x\"\")\",,\"CTO, \"\"Engines\"\"\",press,\"line 1\nline 2\",2026-11-22,2026-11-18T11:06:40.123Z,2026-11-18T11:06:40.123Z\n"
        );
    }

    #[test]
    fn json_keeps_the_text_exactly() {
        let mut out = Vec::new();
        json(&vec![entry("=1+1", "hi")], &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value[0]["name"], "=1+1");
        assert_eq!(value[0]["interest"], "press");
        assert_eq!(value[0]["created_at"], "2026-11-18T11:06:40.123Z");
    }
}
