//! The files whose fdatasync makes a group commit durable.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Error;
use super::anchor::{Anchor, Mark};

/// How long after a folder's modification time a reading of it is known complete.
const MTIME_SETTLED: Duration = Duration::from_secs(1);

/// How a file's data is made durable. [`Fdatasync`] in service; fault tests wrap it to make a
/// sync fail, as a full disk or a failing device would, and check that nothing is then
/// acknowledged.
pub trait Durability: Send + 'static {
    /// Makes `file`'s written data durable (fdatasync), or says why it could not.
    fn sync_data(&mut self, file: &File) -> std::io::Result<()>;
}

/// The real thing: `File::sync_data`, i.e. fdatasync(2).
pub struct Fdatasync;

impl Durability for Fdatasync {
    fn sync_data(&mut self, file: &File) -> std::io::Result<()> {
        file.sync_data()
    }
}

/// The files whose fdatasync makes a commit durable.
pub(super) struct Disk {
    durability: Box<dyn Durability>,
    dir: PathBuf,
    /// sled 0.34 keeps its whole log in `<dir>/db`.
    data: File,
    /// Blob files already synced. sled writes values too big for its log as separate files
    /// under `blobs/` and never syncs them; our size limits should keep it from happening.
    synced_blobs: HashSet<OsString>,
    /// The last reading of `blobs/`, so that a commit reads it again only if it changed.
    blobs_seen: Option<BlobsSeen>,
    /// What was acknowledged, outside sled; set once the store is recovered.
    anchor: Option<Anchor>,
}

impl Disk {
    pub fn open(dir: &Path, durability: Box<dyn Durability>) -> Result<Disk, Error> {
        let data = File::open(dir.join("db"))?;
        // The directory entries of files sled just created must be durable too.
        File::open(dir)?.sync_all()?;
        Ok(Disk {
            durability,
            dir: dir.to_owned(),
            data,
            synced_blobs: HashSet::new(),
            blobs_seen: None,
            anchor: None,
        })
    }

    /// The way files are made durable, for files kept beside sled's.
    pub fn durability(&mut self) -> &mut dyn Durability {
        self.durability.as_mut()
    }

    pub fn set_anchor(&mut self, anchor: Anchor) {
        self.anchor = Some(anchor);
    }

    /// Anchors the group's new heads: after `sync`, so the anchor never names a head the
    /// store could lose in a crash, and before any ack, so every ack is anchored.
    pub fn anchor(&mut self, heads: &[(&str, Mark)]) -> Result<(), Error> {
        match &mut self.anchor {
            Some(anchor) => anchor.record(heads, self.durability.as_mut()),
            None => Ok(()),
        }
    }

    /// Makes everything sled holds for the group durable, with one wait on the device's
    /// cache per group. What each step guarantees (ext4 on a disk with a write-back cache,
    /// as here):
    ///
    /// 1. `tree.flush()`: sled seals its in-memory log buffer, `pwrite`s it into `db` (on one
    ///    of its I/O threads) and waits in `sync_file_range(WAIT_BEFORE | WRITE |
    ///    WAIT_AFTER)` until the device has taken those pages. After it the bytes are in the
    ///    file: they survive a killed process, but not a power cut or a kernel crash —
    ///    the device may still hold them only in its volatile cache, and a new file size
    ///    or extent is not committed to the file system's journal.
    /// 2. `fdatasync(db)`: writes what is still dirty (nothing: step 1 waited for it),
    ///    commits the metadata needed to read the data back (the file's size when sled's
    ///    log grew: a journal commit) and flushes the device's write cache. After it the
    ///    group survives a power cut. This is the store's one cache flush per group (the
    ///    anchor's line then needs its own, after this one: see [`Disk::anchor`]).
    /// 3. new blob files, if sled wrote any (see [`Disk::sync_blobs`]).
    ///
    /// Neither step makes the other redundant: step 1's wait is the write every fdatasync
    /// of those pages would wait for anyway (sled only does it earlier, on its own thread),
    /// and it never flushes the device's cache; step 2 alone would find the group still in
    /// sled's memory. sled 0.34 cannot be asked to write without its `sync_file_range`
    /// except by a temporary store, which deletes itself. `strace -f -c` of a run shows one
    /// fdatasync of `db` and one of `anchor.log` per group commit and no other sync per commit.
    pub fn sync(&mut self, tree: &sled::Db) -> Result<(), Error> {
        tree.flush()?;
        self.durability.sync_data(&self.data)?;
        self.sync_blobs()
    }

    /// Syncs blob files sled wrote since the last look. One `stat` per commit: the folder
    /// is read again only when its modification time moved, or while the last reading was
    /// too close to that time to be sure it saw every file created in the same clock tick.
    fn sync_blobs(&mut self) -> Result<(), Error> {
        let blobs = self.dir.join("blobs");
        let modified = match std::fs::metadata(&blobs) {
            Ok(meta) => meta.modified()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        if self.blobs_seen.is_some_and(|seen| seen.covers(modified)) {
            return Ok(());
        }
        let looked = SystemTime::now();
        let names = std::fs::read_dir(&blobs)?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<HashSet<_>, _>>()?;
        let fresh: Vec<&OsString> = names.difference(&self.synced_blobs).collect();
        for name in &fresh {
            File::open(blobs.join(name))?.sync_data()?;
        }
        if !fresh.is_empty() {
            File::open(&blobs)?.sync_all()?;
        }
        self.synced_blobs = names;
        self.blobs_seen = Some(BlobsSeen { modified, looked });
        Ok(())
    }
}

/// When `blobs/` was last read, and its modification time then.
#[derive(Clone, Copy)]
struct BlobsSeen {
    modified: SystemTime,
    looked: SystemTime,
}

impl BlobsSeen {
    /// Whether that reading saw everything in a folder now modified at `modified`. File
    /// times come from a coarse clock (one scheduler tick), so a file created just after the
    /// reading may carry the same time; a reading a second after the time rules that out.
    fn covers(&self, modified: SystemTime) -> bool {
        let settled = self
            .looked
            .duration_since(self.modified)
            .is_ok_and(|after| after >= MTIME_SETTLED);
        modified == self.modified && settled
    }
}
