//! Who holds a store open. sled takes an exclusive `flock` on `<dir>/db` for as long as a
//! process has the store open (a server, or an `import`/`export --data` running), and refuses
//! a second opener; that is a store in use, not a damaged one, and the operator is told which
//! process holds it.
//!
//! The holder is read from `/proc/locks` (the kernel's table of every lock, with the pid that
//! took it and the file's device and inode) rather than from a pid file the server would
//! write: the kernel's table cannot go stale after a kill -9, and it names any process that
//! holds the store, a command as well as a server.

use std::fs::{File, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::Error;

/// The file sled locks inside a store's directory.
const LOCKED_FILE: &str = "db";
/// At most this much of the holder's command line is quoted.
const COMMAND_CHARS: usize = 160;

/// Whether another open file (this process's or another's) holds the store's lock now.
pub(super) fn held(dir: &Path) -> bool {
    let Ok(file) = File::open(dir.join(LOCKED_FILE)) else {
        return false;
    };
    // Our probe's lock, if taken, goes when `file` is dropped at the end of this function.
    matches!(file.try_lock(), Err(TryLockError::WouldBlock))
}

/// [`Error::InUse`] for the store in `dir`: the process holding it, if it can be found, and
/// what to do instead.
pub fn in_use(dir: &Path) -> Error {
    let who = holder(&dir.join(LOCKED_FILE)).map_or_else(
        || "another process (which one could not be found)".to_owned(),
        describe,
    );
    Error::InUse(format!(
        "{who} holds the store in {} open. It is in use, not damaged: stop that process \
         first, or, while a server runs on it, go through the server instead of opening its \
         directory: `referee import --server URL` rather than `--data`; a game's files from \
         the console's downloads (GET /api/games/ID/download/log, pdn, pgn or audit) or the \
         gRPC ExportAudit rather than `referee export --data`",
        dir.display()
    ))
}

/// The pid holding a `flock` on `file`, from `/proc/locks`.
fn holder(file: &Path) -> Option<u32> {
    let meta = std::fs::metadata(file).ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let wanted = FileId::of(&meta);
    locks.lines().find_map(|line| holder_in(line, wanted))
}

/// A file as `/proc/locks` names it: the device's major and minor numbers and the inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    major: u64,
    minor: u64,
    inode: u64,
}

impl FileId {
    fn of(meta: &std::fs::Metadata) -> FileId {
        // glibc's encoding of a dev_t (gnu_dev_major / gnu_dev_minor).
        let dev = meta.dev();
        FileId {
            major: ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff),
            minor: (dev & 0xff) | ((dev >> 12) & !0xff),
            inode: meta.ino(),
        }
    }

    /// `MAJOR:MINOR:INODE`, the first two in hex, as the kernel writes it.
    fn parse(field: &str) -> Option<FileId> {
        let mut parts = field.split(':');
        let major = u64::from_str_radix(parts.next()?, 16).ok()?;
        let minor = u64::from_str_radix(parts.next()?, 16).ok()?;
        let inode = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(FileId {
            major,
            minor,
            inode,
        })
    }
}

/// The pid of a line of `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 4108 08:01:2242 0 EOF`)
/// that holds a lock on `wanted`; a waiter's line (`1: -> FLOCK ...`) holds nothing.
fn holder_in(line: &str, wanted: FileId) -> Option<u32> {
    if line.contains("->") {
        return None;
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    let at = fields.iter().position(|f| FileId::parse(f).is_some())?;
    let pid = fields.get(at.checked_sub(1)?)?.parse().ok()?;
    (FileId::parse(fields[at]) == Some(wanted) && pid > 0).then_some(pid)
}

/// `process 4108 (referee serve --data /srv/referee)`, or this process.
fn describe(pid: u32) -> String {
    if pid == std::process::id() {
        return format!("this process (pid {pid}: another handle in it)");
    }
    match command_line(pid) {
        Some(command) => format!("process {pid} ({command})"),
        None => format!("process {pid}"),
    }
}

fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let words: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    let command = words.join(" ");
    if command.is_empty() {
        return None;
    }
    Some(match command.char_indices().nth(COMMAND_CHARS) {
        Some((cut, _)) => format!("{}…", &command[..cut]),
        None => command,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_proc_locks_names_the_holder_of_that_file_only() {
        let id = FileId {
            major: 8,
            minor: 1,
            inode: 2242,
        };
        let line = "1: FLOCK  ADVISORY  WRITE 4108 08:01:2242 0 EOF";
        assert_eq!(holder_in(line, id), Some(4108));
        assert_eq!(
            holder_in("2: FLOCK  ADVISORY  WRITE 4108 08:01:2243 0 EOF", id),
            None
        );
        assert_eq!(
            holder_in("1: -> FLOCK  ADVISORY  WRITE 99 08:01:2242 0 EOF", id),
            None,
            "a waiter holds nothing"
        );
        let overlay = "3: FLOCK  ADVISORY  WRITE 77 00:2f:2242 0 EOF";
        let on_overlay = FileId {
            major: 0,
            minor: 0x2f,
            inode: 2242,
        };
        assert_eq!(holder_in(overlay, on_overlay), Some(77));
    }

    #[test]
    fn a_store_held_by_this_process_is_in_use_and_the_holder_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join(LOCKED_FILE);
        std::fs::write(&db, b"").expect("db");
        assert!(!held(dir.path()));
        let lock = File::open(&db).expect("open");
        lock.lock().expect("lock");
        assert!(held(dir.path()));
        let text = in_use(dir.path()).to_string();
        assert!(text.contains("in use, not damaged"), "{text}");
        assert!(!text.contains("is damaged"), "{text}");
        assert!(text.contains("--server"), "{text}");
        if std::path::Path::new("/proc/locks").exists() {
            let pid = std::process::id();
            assert!(text.contains(&format!("this process (pid {pid}")), "{text}");
        }
        drop(lock);
        assert!(!held(dir.path()));
    }
}
