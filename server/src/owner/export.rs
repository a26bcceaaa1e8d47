//! The waitlist as the owner takes it away: CSV for a spreadsheet, JSON for a program.
//! Times are RFC 3339, UTC, to the millisecond. Both are written as the database hands
//! the entries over, one at a time: an export of any size takes little memory.

use std::borrow::Cow;
use std::io::Write;

use futures_util::{Stream, StreamExt};
use lathe_core::validation::is_control_or_format;
use serde::ser::{SerializeSeq, Serializer};

use crate::domain::{Entry, time};
use crate::store::StoreError;

use super::OwnerError;

/// The CSV's columns, in order: [`Entry`]'s fields.
const HEADER: [&str; 16] = [
    "email",
    "name",
    "company",
    "role",
    "interest",
    "message",
    "privacy_notice",
    "created_at",
    "repeats",
    "last_repeat_at",
    "status",
    "confirmed_at",
    "invited_at",
    "wave",
    "place",
    "referrals",
];

/// A visitor's text as a CSV cell that a spreadsheet shows and never runs, as OWASP's
/// CSV-injection guidance asks: a cell that would start a formula (`=`, `+`, `-`, `@`,
/// their full-width forms, a tab, a carriage return or a line feed), also behind white
/// space or invisible characters, which spreadsheets skip, gets a `'` in front; control
/// characters other than tabs and line breaks become U+FFFD, so no raw NUL or ESC reaches
/// the file. (Every cell is also quoted, and its quotes doubled, by the writer.) The JSON
/// export keeps the text exactly.
fn defused(text: &str) -> Cow<'_, str> {
    let raw = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    let visible = text.trim_start_matches(|c: char| c.is_whitespace() || is_control_or_format(c));
    let formula = text.starts_with(['\t', '\r', '\n'])
        || visible.starts_with([
            '=', '+', '-', '@', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
        ]);
    if !formula && !text.contains(raw) {
        return text.into();
    }
    let quote = formula.then_some('\'');
    quote
        .into_iter()
        .chain(text.chars().map(|c| {
            if raw(c) {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        }))
        .collect::<String>()
        .into()
}

/// Writes `entries` as CSV with a header row, every cell quoted.
///
/// # Errors
/// Reading or writing failed; what was written so far stays written.
pub async fn csv(
    entries: impl Stream<Item = Result<Entry, StoreError>>,
    out: impl Write,
) -> Result<(), OwnerError> {
    let mut writer = ::csv::WriterBuilder::new()
        .quote_style(::csv::QuoteStyle::Always)
        .from_writer(out);
    writer.write_record(HEADER)?;
    let mut entries = std::pin::pin!(entries);
    while let Some(entry) = entries.next().await {
        let entry = entry?;
        let number = |n: i64| n.to_string();
        let when = |ms: Option<i64>| ms.map(time).unwrap_or_default();
        writer.write_record([
            &*defused(&entry.email),
            &defused(&entry.name),
            &defused(&entry.company),
            &defused(&entry.role),
            entry.interest.as_str(),
            &defused(&entry.message),
            &defused(&entry.privacy_notice),
            &time(entry.created_at),
            &number(entry.repeats),
            &when(entry.last_repeat_at),
            entry.status.as_str(),
            &when(entry.confirmed_at),
            &when(entry.invited_at),
            &entry.wave.map(number).unwrap_or_default(),
            &entry.place.map(number).unwrap_or_default(),
            &number(entry.referrals),
        ])?;
    }
    writer.flush()?;
    Ok(())
}

/// Writes `entries` as one pretty JSON array and a newline.
///
/// # Errors
/// Reading or writing failed.
pub async fn json(
    entries: impl Stream<Item = Result<Entry, StoreError>>,
    mut out: impl Write,
) -> Result<(), OwnerError> {
    let mut serializer = serde_json::Serializer::pretty(&mut out);
    let mut array = serializer.serialize_seq(None)?;
    let mut entries = std::pin::pin!(entries);
    while let Some(entry) = entries.next().await {
        array.serialize_element(&entry?)?;
    }
    array.end()?;
    writeln!(out)?;
    Ok(())
}

/// Writes one entry as pretty JSON and a newline.
///
/// # Errors
/// Writing failed.
pub fn entry_json(entry: &Entry, mut out: impl Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut out, entry)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Status;
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

    fn run<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn stream(entries: Vec<Entry>) -> impl Stream<Item = Result<Entry, StoreError>> {
        futures_util::stream::iter(entries.into_iter().map(Ok))
    }

    #[test]
    fn csv_quotes_every_cell_and_defuses_formulas() {
        let mut repeated = entry("Ada", "line 1\nline 2");
        repeated.repeats = 2;
        repeated.last_repeat_at = Some(1_795_000_060_000);
        repeated.status = Status::Confirmed;
        repeated.confirmed_at = Some(1_795_000_120_000);
        repeated.place = Some(3);
        repeated.referrals = 1;
        let mut out = Vec::new();
        run(csv(
            stream(vec![entry("=HYPERLINK(\"x\")", "hi"), repeated]),
            &mut out,
        ))
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"email\",\"name\",\"company\",\"role\",\"interest\",\"message\",\"privacy_notice\",\"created_at\",\"repeats\",\"last_repeat_at\",\"status\",\"confirmed_at\",\"invited_at\",\"wave\",\"place\",\"referrals\"\n\
             \"ada@example.com\",\"'=HYPERLINK(\"\"x\"\")\",\"\",\"CTO, \"\"Engines\"\"\",\"press\",\"hi\",\"2026-11-22\",\"2026-11-18T11:06:40.123Z\",\"0\",\"\",\"unconfirmed\",\"\",\"\",\"\",\"\",\"0\"\n\
             \"ada@example.com\",\"Ada\",\"\",\"CTO, \"\"Engines\"\"\",\"press\",\"line 1\nline 2\",\"2026-11-22\",\"2026-11-18T11:06:40.123Z\",\"2\",\"2026-11-18T11:07:40.000Z\",\"confirmed\",\"2026-11-18T11:08:40.000Z\",\"\",\"\",\"3\",\"1\"\n"
        );
    }

    #[test]
    fn formulas_behind_white_space_and_invisible_characters_are_defused() {
        for text in [
            "=1+1",
            "+1",
            "-1",
            "@SUM(1)",
            " =1+1",
            "\u{a0}=1+1",
            "\u{feff}=1+1",
            "\n=1+1",
            "  +HYPERLINK(\"https://evil.example\")",
            " @SUM(1)",
            "\u{200b}\u{3000}-2",
            "\t=1",
            "\r=1",
            "\u{FF1D}1+1",
        ] {
            assert!(defused(text).starts_with('\''), "{text:?}");
        }
        for text in ["Ada", "a=b", "1-2", "ada@example.com", "", " x"] {
            assert_eq!(defused(text), text, "{text:?}");
        }
    }

    #[test]
    fn raw_control_bytes_never_reach_the_file() {
        assert_eq!(
            defused("a\u{0}b\u{1b}[31mc\u{7f}"),
            "a\u{fffd}b\u{fffd}[31mc\u{fffd}"
        );
        assert_eq!(defused("\u{0}=1"), "'\u{fffd}=1");
        assert_eq!(defused("tab\tand\nlines\r\n"), "tab\tand\nlines\r\n");
    }

    #[test]
    fn json_keeps_the_text_exactly() {
        let mut out = Vec::new();
        run(json(stream(vec![entry("=1+1\u{0}", "hi")]), &mut out)).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value[0]["name"], "=1+1\u{0}");
        assert_eq!(value[0]["interest"], "press");
        assert_eq!(value[0]["created_at"], "2026-11-18T11:06:40.123Z");
        assert_eq!(value[0]["repeats"], 0);
        assert_eq!(value[0]["last_repeat_at"], serde_json::Value::Null);
        let mut empty = Vec::new();
        run(json(stream(Vec::new()), &mut empty)).unwrap();
        assert_eq!(empty, b"[]\n");
    }
}
