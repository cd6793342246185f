//! The access-control marker: a file in the data directory that says access control is on.
//!
//! It outlives the token file on purpose. Emptying or deleting `tokens.jsonl` (the way to
//! revoke every token) must not switch access control off; only `referee token off` removes
//! the marker, and it refuses while tokens remain.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The marker's name inside the data directory.
pub const MARKER_FILE: &str = "access-control";

const TEXT: &str = "access control is on: every call needs a token from tokens.jsonl.\n\
    Emptying or deleting tokens.jsonl refuses every call; it does not turn access control off.\n\
    To turn it off deliberately: referee token off --data <this directory>\n";

/// The marker of one data directory.
pub(super) struct Marker {
    dir: PathBuf,
    path: PathBuf,
}

impl Marker {
    pub(super) fn new(dir: &Path) -> Marker {
        Marker {
            dir: dir.to_path_buf(),
            path: dir.join(MARKER_FILE),
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn exists(&self) -> std::io::Result<bool> {
        self.path.try_exists()
    }

    /// Records durably that access control is on. Synced file and directory: a power cut
    /// right after the first token is issued must not leave a token file without its marker
    /// in a state that a later emptying turns off.
    pub(super) fn write(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&self.path)?;
        file.write_all(TEXT.as_bytes())?;
        file.sync_all()?;
        sync_dir(&self.dir)
    }

    /// Removes the marker; false if there was none. The directory is synced so that the
    /// removal, like the creation, survives a power cut.
    pub(super) fn remove(&self) -> std::io::Result<bool> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => sync_dir(&self.dir).map(|()| true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Makes the directory's entries (a created or removed file) durable.
pub(super) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
