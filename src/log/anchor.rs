//! The anchor: what the log has acknowledged, kept outside sled so that a damaged store is
//! found out instead of served.
//!
//! Each game's head hashes live in sled beside its records, so a store that rolls back (sled
//! recovers to an earlier point when a byte of its file is damaged) or comes back empty still
//! has a chain that verifies. The anchor is a second, much simpler file, `anchor.log` in the
//! data directory: after every group commit the writer appends one line per game whose head
//! moved — game number, last seq, head hash, game id — each line with its own checksum, and
//! fdatasyncs it before any ack. At open, every game the anchor names must be in the store at
//! (or, after a crash between the two syncs, beyond) its anchored head with the same hash.
//!
//! The file is plain text so that an operator can read it:
//! ```text
//! referee-anchor 1 <check>
//! <number> <last_seq> <head hash hex> <game id as a JSON string> <check>
//! ```
//! where `<check>` is the first 8 bytes of SHA-256 of the line before it, in hex. The last
//! line for a game wins; the file is rewritten with one line per game (write, sync, rename,
//! sync the directory) at open and whenever it grows past [`COMPACT_AT`] and four times its
//! compacted size.
//!
//! The text is followed by zero bytes written ahead ([`AHEAD`] at a time): an fdatasync of a
//! file whose size changed must also commit the file system's journal, which measured several
//! milliseconds per commit on this disk, while overwriting bytes already allocated is a data
//! sync only. The text ends at the first zero byte; anything but zeros after it is damage.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::disk::Durability;
use super::record::HASH_LEN;
use super::{Error, MAX_GAME_ID_BYTES};

/// The anchor's file name inside the data directory.
pub const ANCHOR_FILE: &str = "anchor.log";
/// Where a compaction writes before it renames over [`ANCHOR_FILE`].
const COMPACTING_FILE: &str = "anchor.log.new";
const MAGIC: &str = "referee-anchor 1";
/// The journal is compacted once it is this large and four times its compacted size.
const COMPACT_AT: u64 = 4 << 20;
/// Zero bytes written ahead of the text, so that appends overwrite allocated bytes.
const AHEAD: u64 = 1 << 20;

/// What the log acknowledged of one game: its head when it was last anchored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The game's number in the store's keys.
    pub number: u64,
    /// The last acknowledged seq.
    pub last_seq: u64,
    /// The hash of the record at `last_seq`.
    pub hash: [u8; HASH_LEN],
}

impl Mark {
    /// The mark of a game's head.
    pub(super) fn of(dir: &super::layout::DirEntry, head: &super::layout::Head) -> Mark {
        Mark {
            number: dir.number,
            last_seq: head.last_seq,
            hash: head.hash,
        }
    }
}

/// The last acknowledged seq of every game the anchor of `dir` names (`None`: no anchor),
/// read without opening the store: what a rebuild must restore even when sled cannot open.
pub fn acknowledged(dir: &Path) -> Result<Option<HashMap<String, u64>>, Error> {
    Ok(Anchor::read(dir)?.map(|read| {
        read.marks
            .into_iter()
            .map(|(game, mark)| (game, mark.last_seq))
            .collect()
    }))
}

/// The open anchor file and the latest mark of every game it names.
pub(super) struct Anchor {
    dir: PathBuf,
    file: File,
    marks: HashMap<String, Mark>,
    /// Bytes of text in the file now, and just after the last compaction.
    bytes: u64,
    compacted: u64,
    /// The file's size: text, then zeros.
    allocated: u64,
}

/// What reading the anchor found besides the marks.
pub(super) struct Read {
    pub marks: HashMap<String, Mark>,
    /// A last line cut short by a crash during its write: it was never acknowledged.
    pub torn_tail: bool,
}

impl Anchor {
    /// Reads the anchor of `dir`, or `None` if it has none.
    pub fn read(dir: &Path) -> Result<Option<Read>, Error> {
        let path = dir.join(ANCHOR_FILE);
        let text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::Storage(format!("{}: {e}", path.display()))),
        };
        parse(&text).map(Some).map_err(|why| {
            Error::Damaged(format!(
                "{}: {why}; the store cannot be checked against what was acknowledged",
                path.display()
            ))
        })
    }

    /// Writes `marks` as a fresh, compacted anchor and opens it for appending.
    pub fn create(
        dir: &Path,
        marks: HashMap<String, Mark>,
        durability: &mut dyn Durability,
    ) -> Result<Anchor, Error> {
        let (bytes, allocated) = rewrite(dir, &marks, durability)?;
        let file = OpenOptions::new().write(true).open(dir.join(ANCHOR_FILE))?;
        Ok(Anchor {
            dir: dir.to_owned(),
            file,
            marks,
            bytes,
            compacted: bytes,
            allocated,
        })
    }

    /// Appends the new heads and makes them durable: called after the store's own sync and
    /// before any ack, so the anchor never names a head the store has not made durable.
    pub fn record(
        &mut self,
        heads: &[(&str, Mark)],
        durability: &mut dyn Durability,
    ) -> Result<(), Error> {
        if heads.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for (game, mark) in heads {
            text.push_str(&mark_line(game, mark));
            self.marks.insert((*game).to_owned(), *mark);
        }
        let end = self.bytes + len_u64(text.len());
        if end > self.allocated {
            self.allocated = allocate(&self.file, self.allocated, end + AHEAD)?;
        }
        self.file.write_all_at(text.as_bytes(), self.bytes)?;
        durability.sync_data(&self.file)?;
        self.bytes = end;
        if self.bytes > COMPACT_AT && self.bytes > 4 * self.compacted {
            self.compact(durability)?;
        }
        Ok(())
    }

    fn compact(&mut self, durability: &mut dyn Durability) -> Result<(), Error> {
        let (bytes, allocated) = rewrite(&self.dir, &self.marks, durability)?;
        self.file = OpenOptions::new()
            .write(true)
            .open(self.dir.join(ANCHOR_FILE))?;
        self.bytes = bytes;
        self.compacted = bytes;
        self.allocated = allocated;
        Ok(())
    }
}

/// Writes the marks to a new file, syncs it, renames it over the anchor and syncs the
/// directory, so a crash leaves either the old anchor or the new one, never half of one.
/// Returns the text's length and the file's size.
fn rewrite(
    dir: &Path,
    marks: &HashMap<String, Mark>,
    durability: &mut dyn Durability,
) -> Result<(u64, u64), Error> {
    let mut games: Vec<(&String, &Mark)> = marks.iter().collect();
    games.sort_by_key(|(_, mark)| mark.number);
    let mut text = checked(MAGIC);
    for (game, mark) in games {
        text.push_str(&mark_line(game, mark));
    }
    let fresh = dir.join(COMPACTING_FILE);
    let mut file = File::create(&fresh)?;
    file.write_all(text.as_bytes())?;
    let bytes = len_u64(text.len());
    let allocated = allocate(&file, bytes, bytes + AHEAD)?;
    durability.sync_data(&file)?;
    std::fs::rename(&fresh, dir.join(ANCHOR_FILE))?;
    File::open(dir)?.sync_all()?;
    Ok((bytes, allocated))
}

/// Writes zeros from `from` to `to` (real bytes, not a hole, so that later writes there need
/// no allocation) and makes the new size durable; returns `to`.
fn allocate(file: &File, from: u64, to: u64) -> Result<u64, Error> {
    let zeros = vec![0; usize::try_from(to - from).unwrap_or(0)];
    file.write_all_at(&zeros, from)?;
    file.sync_all()?;
    Ok(to)
}

fn mark_line(game: &str, mark: &Mark) -> String {
    let id = serde_json::Value::from(game).to_string();
    checked(&format!(
        "{} {} {} {id}",
        mark.number,
        mark.last_seq,
        hex::encode(mark.hash)
    ))
}

/// The line with its checksum and newline.
fn checked(line: &str) -> String {
    format!("{line} {}\n", check(line))
}

fn check(line: &str) -> String {
    hex::encode(&Sha256::digest(line.as_bytes())[..8])
}

/// The marks of an anchor file. A damaged line anywhere but at the very end is an error: the
/// file can no longer say what was acknowledged.
fn parse(bytes: &[u8]) -> Result<Read, String> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    if bytes[end..].iter().any(|&b| b != 0) {
        return Err(format!(
            "a zero byte at offset {end} is followed by more text"
        ));
    }
    let bytes = &bytes[..end];
    let text = std::str::from_utf8(bytes).map_err(|_| "the file is not UTF-8 text".to_owned())?;
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut marks = HashMap::new();
    let mut torn_tail = false;
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        // A last line without its newline was cut short by a crash before its sync: it was
        // never acknowledged. Any other line that fails its checksum is damage.
        if last && !complete && i > 0 {
            torn_tail = true;
            break;
        }
        let body = verified(line)
            .ok_or_else(|| format!("line {} is damaged (its checksum does not match)", i + 1))?;
        if i == 0 {
            if body != MAGIC {
                return Err(format!("line 1 is not {MAGIC:?}"));
            }
            continue;
        }
        let (game, mark) =
            parse_mark(body).ok_or_else(|| format!("line {} is malformed", i + 1))?;
        marks.insert(game, mark);
    }
    if lines.is_empty() {
        return Err("the file is empty".into());
    }
    Ok(Read { marks, torn_tail })
}

/// The line's content if its checksum matches.
fn verified(line: &str) -> Option<&str> {
    let (body, sum) = line.rsplit_once(' ')?;
    (check(body) == sum).then_some(body)
}

fn parse_mark(body: &str) -> Option<(String, Mark)> {
    let mut parts = body.splitn(4, ' ');
    let number = parts.next()?.parse().ok()?;
    let last_seq = parts.next()?.parse().ok()?;
    let hash = hex::decode(parts.next()?).ok()?.try_into().ok()?;
    let game: String = serde_json::from_str(parts.next()?).ok()?;
    (game.len() <= MAX_GAME_ID_BYTES).then_some((
        game,
        Mark {
            number,
            last_seq,
            hash,
        },
    ))
}

fn len_u64(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::Fdatasync;

    fn mark(number: u64, last_seq: u64) -> Mark {
        Mark {
            number,
            last_seq,
            hash: [u8::try_from(last_seq % 256).expect("byte"); HASH_LEN],
        }
    }

    #[test]
    fn the_last_mark_of_each_game_wins_and_survives_compaction() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut anchor = Anchor::create(dir.path(), HashMap::new(), &mut Fdatasync).expect("new");
        anchor
            .record(&[("a b", mark(1, 0)), ("c\"d", mark(2, 0))], &mut Fdatasync)
            .expect("record");
        anchor
            .record(&[("a b", mark(1, 7))], &mut Fdatasync)
            .expect("record");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.marks["a b"], mark(1, 7));
        assert_eq!(read.marks["c\"d"], mark(2, 0));
        assert!(!read.torn_tail);
        anchor.compact(&mut Fdatasync).expect("compact");
        let again = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(again.marks, read.marks);
    }

    #[test]
    fn a_torn_last_line_is_ignored_but_a_damaged_middle_line_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut anchor = Anchor::create(dir.path(), HashMap::new(), &mut Fdatasync).expect("new");
        anchor
            .record(&[("g", mark(1, 3))], &mut Fdatasync)
            .expect("record");
        anchor
            .record(&[("g", mark(1, 4))], &mut Fdatasync)
            .expect("record");
        let path = dir.path().join(ANCHOR_FILE);
        let full = std::fs::read(&path).expect("read");
        let end = full.iter().position(|&b| b == 0).expect("zeros ahead");
        // A crash during the last write: its last bytes never reached the disk.
        let mut torn = full.clone();
        torn[end - 5..end].fill(0);
        std::fs::write(&path, &torn).expect("cut");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert!(read.torn_tail);
        assert_eq!(
            read.marks["g"],
            mark(1, 3),
            "the torn mark was never acknowledged"
        );

        let mut stray = full.clone();
        stray[end + 100] = b'x';
        std::fs::write(&path, &stray).expect("stray");
        let err = Anchor::read(dir.path()).err().expect("damaged");
        assert!(err.to_string().contains("followed by more text"), "{err}");

        let mut damaged = full.clone();
        let second_line = full.iter().position(|&b| b == b'\n').expect("newline") + 3;
        damaged[second_line] ^= 1;
        std::fs::write(&path, &damaged).expect("flip");
        let err = Anchor::read(dir.path()).err().expect("damaged");
        assert!(err.to_string().contains("line 2 is damaged"), "{err}");
    }
}
