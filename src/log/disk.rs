//! The files whose fdatasync makes a group commit durable.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::Error;
use super::anchor::{Anchor, Mark};

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

    /// Durable means fdatasync. sled's `flush()` writes its buffers and ends in
    /// `sync_file_range`, which survives a killed process but not a power cut: it neither
    /// flushes the device's write cache nor file metadata. So flush first (to get the bytes
    /// into the file), then `sync_data()` the file, once per group.
    pub fn sync(&mut self, tree: &sled::Db) -> Result<(), Error> {
        tree.flush()?;
        self.durability.sync_data(&self.data)?;
        self.sync_blobs()
    }

    fn sync_blobs(&mut self) -> Result<(), Error> {
        let blobs = self.dir.join("blobs");
        let names = match std::fs::read_dir(&blobs) {
            Ok(entries) => entries
                .map(|e| e.map(|e| e.file_name()))
                .collect::<Result<HashSet<_>, _>>()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let fresh: Vec<&OsString> = names.difference(&self.synced_blobs).collect();
        for name in &fresh {
            File::open(blobs.join(name))?.sync_data()?;
        }
        if !fresh.is_empty() {
            File::open(&blobs)?.sync_all()?;
        }
        self.synced_blobs = names;
        Ok(())
    }
}
