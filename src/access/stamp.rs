//! A file's stamp: what `stat` says about it, enough to tell that it changed without
//! opening it. A server looks at the token store's stamps at most once a second
//! ([`SERVER_RECHECK`](super::SERVER_RECHECK)), and opens the file only when they changed.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How long after its last change a stamp is trusted. File-system timestamps are coarse (a
/// kernel tick, or a second or more on some file systems): a second change within the same
/// tick leaves the modification time unchanged. Like git's "racily clean" rule, a stamp read
/// within this time of its modification is not trusted, and the file is read again.
const SETTLE: Duration = Duration::from_secs(2);

/// Modification time, length and inode of a file or directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    modified: SystemTime,
    len: u64,
    inode: u64,
}

impl Stamp {
    /// The stamp of `path`; None if nothing is there.
    pub(super) fn of(path: &Path) -> std::io::Result<Option<Stamp>> {
        match std::fs::metadata(path) {
            Ok(m) => Ok(Some(Stamp {
                modified: m.modified()?,
                len: m.len(),
                inode: m.ino(),
            })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether any change made after `read` (when the file was read with this stamp) must
    /// give a different stamp. A modification time in the future (a clock set back) never is.
    pub(super) fn settled(&self, read: SystemTime) -> bool {
        read.duration_since(self.modified)
            .is_ok_and(|age| age >= SETTLE)
    }
}
