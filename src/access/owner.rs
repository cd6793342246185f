//! Who the token files belong to. The server runs as its own user (the systemd unit's
//! `referee`) and must read what `token issue` writes; an operator often issues as root. The
//! files follow the data directory: created by root, they are given to the directory's owner.

use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A user and group id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Owner {
    pub(super) uid: u32,
    gid: u32,
}

impl Owner {
    /// The owner of `path`, or of its nearest ancestor that exists: who a directory created
    /// there belongs to.
    pub(super) fn of_nearest(path: &Path) -> std::io::Result<Owner> {
        let mut at = path;
        loop {
            match std::fs::metadata(at) {
                Ok(m) => return Ok(Owner::from(&m)),
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            at = match at.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
        }
    }

    /// The owner of `path`; None if nothing is there.
    pub(super) fn of(path: &Path) -> Option<Owner> {
        std::fs::metadata(path).ok().map(|m| Owner::from(&m))
    }

    /// The effective user of this process, from `/proc/self` (which belongs to it); None
    /// where there is no /proc.
    pub(super) fn me() -> Option<Owner> {
        Owner::of(Path::new("/proc/self"))
    }

    /// Whether this user may give files away (only root may).
    pub(super) fn is_root(&self) -> bool {
        self.uid == 0
    }

    /// The user's name from /etc/passwd, else `uid N`.
    pub(super) fn name(&self) -> String {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        passwd
            .lines()
            .map(|l| l.split(':').collect::<Vec<_>>())
            .find(|f| f.len() > 2 && f[2].parse() == Ok(self.uid))
            .map_or_else(|| format!("uid {}", self.uid), |f| f[0].to_string())
    }

    /// Gives `path` to this owner if it belongs to another user; true if it was given.
    pub(super) fn give(&self, path: &Path) -> std::io::Result<bool> {
        if Owner::of(path).is_some_and(|o| o.uid == self.uid) {
            return Ok(false);
        }
        std::os::unix::fs::chown(path, Some(self.uid), Some(self.gid))?;
        Ok(true)
    }
}

impl From<&std::fs::Metadata> for Owner {
    fn from(m: &std::fs::Metadata) -> Owner {
        Owner {
            uid: m.uid(),
            gid: m.gid(),
        }
    }
}

/// `dir` and those of its ancestors that do not exist yet, outermost first: what creating it
/// will create.
pub(super) fn missing(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = dir
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .take_while(|p| !p.exists())
        .map(Path::to_path_buf)
        .collect();
    paths.reverse();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_belongs_to_the_owner_of_its_nearest_ancestor() {
        let dir = tempfile::tempdir().expect("tempdir");
        let deep = dir.path().join("a/b/c");
        let here = Owner::of(dir.path()).expect("owner");
        assert_eq!(Owner::of_nearest(&deep).expect("owner"), here);
        assert_eq!(
            missing(&deep),
            ["a", "a/b", "a/b/c"].map(|p| dir.path().join(p))
        );
        assert!(missing(dir.path()).is_empty());
        let me = Owner::me().expect("/proc/self");
        assert_eq!(me, here, "a directory this process made is its own");
        assert!(!me.give(dir.path()).expect("own"), "nothing to give");
    }
}
