//! Brotli and gzip variants of the build's text and wasm files, made once at build time at
//! the highest quality (`make build` runs `lathe-site compress`), so that no request ever
//! waits for a compressor. A variant is kept only when it is smaller than the file.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

/// The extensions worth compressing; images other than SVG already are.
const COMPRESSIBLE: [&str; 9] = [
    "html", "js", "css", "wasm", "svg", "json", "txt", "xml", "map",
];

/// What `compress` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Files looked at.
    pub files: usize,
    /// Variants written (`.br` and `.gz` counted apart).
    pub variants: usize,
}

/// Writes `.br` and `.gz` beside every compressible file under `dist`.
///
/// # Errors
/// A file that cannot be read or written.
pub fn compress(dist: &Path) -> io::Result<Report> {
    let mut report = Report::default();
    visit(dist, &mut report)?;
    Ok(report)
}

fn visit(dir: &Path, report: &mut Report) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            visit(&path, report)?;
            continue;
        }
        let compressible = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| COMPRESSIBLE.contains(&e));
        if !compressible {
            continue;
        }
        report.files += 1;
        let data = fs::read(&path)?;
        for (suffix, packed) in [("br", brotli(&data)?), ("gz", gzip(&data)?)] {
            let mut name = path.clone().into_os_string();
            name.push(".");
            name.push(suffix);
            if packed.len() < data.len() {
                fs::write(&name, packed)?;
                report.variants += 1;
            } else if Path::new(&name).exists() {
                fs::remove_file(&name)?;
            }
        }
    }
    Ok(())
}

fn brotli(data: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        // Quality 11 (the highest), window 2^22.
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        writer.write_all(data)?;
    }
    Ok(out)
}

fn gzip(data: &[u8]) -> io::Result<Vec<u8>> {
    // No file name and a zero time in the header: the same input, the same bytes.
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(data)?;
    encoder.finish()
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn variants_decode_to_the_file_and_only_smaller_ones_are_kept() {
        let dir = std::env::temp_dir().join(format!("lathe-compress-{}", std::process::id()));
        fs::create_dir_all(dir.join("assets")).unwrap();
        let page = "<p>Chat with AI to Build Apps</p>\n".repeat(200);
        fs::write(dir.join("index.html"), &page).unwrap();
        fs::write(dir.join("assets/tiny.js"), "1").unwrap();
        fs::write(dir.join("photo.png"), [0_u8; 4096]).unwrap();

        let report = compress(&dir).unwrap();
        assert_eq!(
            report,
            Report {
                files: 2,
                variants: 2
            }
        );

        let mut unbrotli = Vec::new();
        brotli::Decompressor::new(&fs::read(dir.join("index.html.br")).unwrap()[..], 4096)
            .read_to_end(&mut unbrotli)
            .unwrap();
        assert_eq!(unbrotli, page.as_bytes());
        let mut ungzip = String::new();
        flate2::read::GzDecoder::new(&fs::read(dir.join("index.html.gz")).unwrap()[..])
            .read_to_string(&mut ungzip)
            .unwrap();
        assert_eq!(ungzip, page);
        assert!(
            !dir.join("assets/tiny.js.br").exists(),
            "not smaller: not kept"
        );
        assert!(!dir.join("photo.png.gz").exists(), "not compressible");
        // Again: the same bytes.
        let before = fs::read(dir.join("index.html.gz")).unwrap();
        compress(&dir).unwrap();
        assert_eq!(fs::read(dir.join("index.html.gz")).unwrap(), before);
        fs::remove_dir_all(&dir).unwrap();
    }
}
