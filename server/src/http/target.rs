//! Which request targets are looked up as files at all.

/// Why a request target is refused before any file is looked for.
#[derive(Debug, PartialEq, Eq)]
pub enum BadTarget {
    /// Not a plain path: 400.
    Malformed,
    /// A dotfile or the build's `_headers`: 404, as if absent.
    Hidden,
}

/// Judges a request path (as sent, still percent-encoded).
///
/// # Errors
/// The [`BadTarget`], when the path is not one to look a file up for.
pub fn judge(path: &str) -> Result<(), BadTarget> {
    if !path.starts_with('/') || path.contains("//") || path.contains('\\') {
        return Err(BadTarget::Malformed);
    }
    let Ok(decoded) = percent_decode(path) else {
        return Err(BadTarget::Malformed);
    };
    if decoded.chars().any(char::is_control) || decoded.contains('\\') || decoded.contains("//") {
        return Err(BadTarget::Malformed);
    }
    let segments = || decoded.split('/').skip(1);
    let encoded = path.to_ascii_lowercase();
    if segments().any(|s| s == ".." || s == ".")
        || encoded.contains("%2f")
        || encoded.contains("%5c")
    {
        // A step out or in place, or a slash hidden from the path's own structure.
        return Err(BadTarget::Malformed);
    }
    if segments().any(|s| s.starts_with('.')) || decoded == "/_headers" {
        return Err(BadTarget::Hidden);
    }
    Ok(())
}

/// `%XX` decoding to UTF-8; `Err` for a broken escape or bytes that are not UTF-8.
fn percent_decode(path: &str) -> Result<String, ()> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(())?;
            let hex = std::str::from_utf8(hex).map_err(|_| ())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_pass() {
        for path in [
            "/",
            "/contact",
            "/contact/",
            "/assets/index-Ab_1.js",
            "/caf%C3%A9",
            "/a%20b",
        ] {
            assert_eq!(judge(path), Ok(()), "{path}");
        }
    }

    // Malformed targets are refused over real HTTP: tests/api/files.rs, hostile_targets_….

    #[test]
    fn dotfiles_and_the_headers_file_are_hidden() {
        for path in ["/_headers", "/.env", "/assets/.secret", "/.well-known/x"] {
            assert_eq!(judge(path), Err(BadTarget::Hidden), "{path}");
        }
    }
}
