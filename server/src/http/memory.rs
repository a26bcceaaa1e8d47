//! The build, read into memory once at start-up, as a tower-http `ServeDir` backend.
//!
//! `ServeDir` on the file system opens, stats and reads files through tokio's blocking
//! pool on every request: on two cores that held the server to a quarter of nginx's
//! requests per second. The whole build with its compressed variants is about a megabyte,
//! so it is read once; `ServeDir` still does everything HTTP (negotiation, conditional
//! requests, ranges), only its reads come from here. A new build needs a restart.

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::io::{self, Cursor};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use tower_http::services::fs::{Backend, File, Metadata};

/// One file or folder of the build.
#[derive(Clone, Debug)]
pub struct Entry {
    bytes: Option<Arc<[u8]>>,
    modified: SystemTime,
}

impl Metadata for Entry {
    fn is_dir(&self) -> bool {
        self.bytes.is_none()
    }

    fn modified(&self) -> io::Result<SystemTime> {
        Ok(self.modified)
    }

    fn len(&self) -> u64 {
        self.bytes.as_ref().map_or(0, |b| b.len() as u64)
    }
}

/// An opened file: a cursor over its bytes, shared with every other reader.
#[derive(Debug)]
pub struct Opened {
    entry: Entry,
    cursor: Cursor<Arc<[u8]>>,
}

impl tokio::io::AsyncRead for Opened {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.cursor).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncSeek for Opened {
    fn start_seek(mut self: std::pin::Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
        std::pin::Pin::new(&mut self.cursor).start_seek(position)
    }

    fn poll_complete(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<u64>> {
        std::pin::Pin::new(&mut self.cursor).poll_complete(cx)
    }
}

impl File for Opened {
    type Metadata = Entry;
    type MetadataFuture<'a> = Ready<io::Result<Entry>>;

    fn metadata(&self) -> Self::MetadataFuture<'_> {
        ready(Ok(self.entry.clone()))
    }
}

/// Every file and folder of the build, by the path `ServeDir` asks for.
#[derive(Clone, Debug)]
pub struct Memory(Arc<HashMap<PathBuf, Entry>>);

impl Memory {
    /// Reads every file under `dist` (folders included, so clean URLs resolve).
    ///
    /// # Errors
    /// A file or folder that cannot be read.
    pub fn load(dist: &Path) -> io::Result<Self> {
        let mut entries = HashMap::new();
        read(dist, &mut entries)?;
        Ok(Self(Arc::new(entries)))
    }

    fn find(&self, path: &Path) -> io::Result<&Entry> {
        self.0
            .get(path)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
}

fn read(dir: &Path, entries: &mut HashMap<PathBuf, Entry>) -> io::Result<()> {
    let modified = std::fs::metadata(dir)?.modified()?;
    entries.insert(
        dir.to_owned(),
        Entry {
            bytes: None,
            modified,
        },
    );
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        if path.is_dir() {
            read(&path, entries)?;
        } else {
            let modified = std::fs::metadata(&path)?.modified()?;
            let bytes = Some(Arc::from(std::fs::read(&path)?));
            entries.insert(path, Entry { bytes, modified });
        }
    }
    Ok(())
}

impl Backend for Memory {
    type File = Opened;
    type Metadata = Entry;
    type OpenFuture = Ready<io::Result<Opened>>;
    type MetadataFuture = Ready<io::Result<Entry>>;

    fn open(&self, path: PathBuf) -> Self::OpenFuture {
        ready(self.find(&path).and_then(|entry| {
            let bytes = entry
                .bytes
                .clone()
                .ok_or_else(|| io::Error::from(io::ErrorKind::IsADirectory))?;
            Ok(Opened {
                entry: entry.clone(),
                cursor: Cursor::new(bytes),
            })
        }))
    }

    fn metadata(&self, path: PathBuf) -> Self::MetadataFuture {
        ready(self.find(&path).cloned())
    }
}
