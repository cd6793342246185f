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
//! sync only.
//!
//! Reading it, each line stands alone (issue 33):
//! - the text ends after its last sound line; the zeros after it are padding, not data, and a
//!   byte rotted there is reported and cleared by the rewrite at open, never fatal;
//! - a last line without its newline was cut short by a crash before its sync (never
//!   acknowledged) and is ignored;
//! - any other line that fails its checksum is damaged. It can only have vouched for the game
//!   it named; if a later sound line names that game, nothing is lost. Otherwise that game is
//!   *unverified*: what was acknowledged of it cannot be checked, so it is not served until the
//!   operator adopts the store. If the damage leaves the line naming no known game, every game
//!   without a later sound line is unverified. Every other game is served.
//!
//! A game found unverified keeps that state across restarts in a line of its own (the rewrite
//! at open drops the damaged line, which would otherwise let the game through next time):
//! ```text
//! unverified <number> <game id as a JSON string> <why as a JSON string> <check>
//! ```
//! A later mark line for the game (only `store adopt` writes one) ends it.

use std::collections::{HashMap, HashSet};
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
/// No sound line is longer (an id of 128 bytes escaped at most six bytes to one, numbers, hash).
const LONGEST_LINE: usize = 1024;
/// The first word of a line naming a game that is unverified.
const UNVERIFIED: &str = "unverified";
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

/// A game whose last acknowledged head the anchor cannot say: its line was found damaged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Unverified {
    /// The game's number in the store's keys.
    pub number: u64,
    /// How it came to be unverified, as found then.
    pub why: String,
}

/// The open anchor file and the latest mark of every game it names.
pub(super) struct Anchor {
    dir: PathBuf,
    file: File,
    marks: HashMap<String, Mark>,
    unverified: HashMap<String, Unverified>,
    /// Bytes of text in the file now, and just after the last compaction.
    bytes: u64,
    compacted: u64,
    /// The file's size: text, then zeros.
    allocated: u64,
}

/// What reading the anchor found besides the marks.
pub(super) struct Read {
    /// Each game's last sound mark.
    pub marks: HashMap<String, Mark>,
    /// Games found unverified at an earlier open (and not marked since).
    pub unverified: HashMap<String, Unverified>,
    /// A last line cut short by a crash during its write: it was never acknowledged.
    pub torn_tail: bool,
    /// Lines that fail their checksum or cannot be read, in file order.
    pub damaged: Vec<DamagedLine>,
    /// Bytes other than zero in the padding after the text.
    pub rot: Option<Rot>,
}

/// A line of the anchor that fails its checksum (or its checksum holds but it cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DamagedLine {
    /// Its line number, from 1.
    pub line: usize,
    /// The game number its first field still reads as, if it does.
    pub number: Option<u64>,
    /// The game id its id field still reads as, if it does.
    pub game: Option<String>,
    /// Games with a sound line after it: whatever it said of them is superseded.
    pub superseded: HashSet<String>,
    /// It is the file's first line, the format line, which names no game.
    pub format_line: bool,
}

/// Bytes other than zero found in the zero padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rot {
    /// How many.
    pub bytes: usize,
    /// The file offset of the first.
    pub first: usize,
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

    /// Writes `marks` and `unverified` as a fresh, compacted anchor (which also clears any
    /// rot in the padding) and opens it for appending.
    pub fn create(
        dir: &Path,
        marks: HashMap<String, Mark>,
        unverified: HashMap<String, Unverified>,
        durability: &mut dyn Durability,
    ) -> Result<Anchor, Error> {
        let (bytes, allocated) = rewrite(dir, &marks, &unverified, durability)?;
        let file = OpenOptions::new().write(true).open(dir.join(ANCHOR_FILE))?;
        Ok(Anchor {
            dir: dir.to_owned(),
            file,
            marks,
            unverified,
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
            self.unverified.remove(*game);
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
        let (bytes, allocated) = rewrite(&self.dir, &self.marks, &self.unverified, durability)?;
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
    unverified: &HashMap<String, Unverified>,
    durability: &mut dyn Durability,
) -> Result<(u64, u64), Error> {
    let mut games: Vec<(&String, &Mark)> = marks.iter().collect();
    games.sort_by_key(|(_, mark)| mark.number);
    let mut text = checked(MAGIC);
    for (game, mark) in games {
        text.push_str(&mark_line(game, mark));
    }
    // After the marks: an unverified line holds until a mark line after it.
    let mut doubtful: Vec<(&String, &Unverified)> = unverified.iter().collect();
    doubtful.sort_by_key(|(_, u)| u.number);
    for (game, u) in doubtful {
        text.push_str(&unverified_line(game, u));
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

fn unverified_line(game: &str, u: &Unverified) -> String {
    let id = serde_json::Value::from(game).to_string();
    let why = serde_json::Value::from(u.why.as_str()).to_string();
    checked(&format!("{UNVERIFIED} {} {id} {why}", u.number))
}

/// The line with its checksum and newline.
fn checked(line: &str) -> String {
    format!("{line} {}\n", check(line))
}

fn check(line: &str) -> String {
    hex::encode(&Sha256::digest(line.as_bytes())[..8])
}

/// A line of the anchor as written.
enum Line {
    Magic,
    Mark(String, Mark),
    Unverified(String, Unverified),
}

/// One stretch of the file up to a newline (the last one may have none).
struct Piece<'a> {
    at: usize,
    bytes: &'a [u8],
    ended: bool,
}

fn pieces(bytes: &[u8]) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let (len, ended) = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or((rest.len(), false), |n| (n, true));
        pieces.push(Piece {
            at,
            bytes: &rest[..len],
            ended,
        });
        at += len + usize::from(ended);
    }
    pieces
}

/// The marks of an anchor file, each line on its own (see the module's text). Refused only
/// when the file says nothing at all, or is of another format.
fn parse(bytes: &[u8]) -> Result<Read, String> {
    if bytes.iter().all(|&b| b == 0) {
        return Err("the file is empty".into());
    }
    let mut rot = Vec::new();
    let pieces = mend(pieces(bytes), &mut rot);
    let lines: Vec<Option<Line>> = pieces
        .iter()
        .map(|p| if p.ended { read_line(p.bytes) } else { None })
        .collect();
    if let Some(Some(line)) = lines.first()
        && !matches!(line, Line::Magic)
    {
        return Err(format!("line 1 is not {MAGIC:?}"));
    }
    let text_end = lines.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    let mut read = Read {
        marks: HashMap::new(),
        unverified: HashMap::new(),
        torn_tail: false,
        damaged: Vec::new(),
        rot: None,
    };
    let mut later = HashSet::new();
    for (i, line) in lines.iter().enumerate().take(text_end).rev() {
        match line {
            Some(Line::Mark(game, _) | Line::Unverified(game, _)) => {
                later.insert(game.clone());
            }
            Some(Line::Magic) => {}
            None => read.damaged.push(damaged_line(i, pieces[i].bytes, &later)),
        }
    }
    read.damaged.reverse();
    for line in lines.into_iter().take(text_end).flatten() {
        keep(&mut read, line);
    }
    after_text(&pieces, text_end, rot, &mut read);
    Ok(read)
}

/// What follows the last sound line: damaged lines, a torn last line, the padding.
fn after_text(pieces: &[Piece], text_end: usize, mut rot: Vec<usize>, read: &mut Read) {
    // Whether the pieces so far were text (damaged lines) rather than padding.
    let mut in_text = true;
    for (i, piece) in pieces.iter().enumerate().skip(text_end) {
        let stray: Vec<usize> = nonzero(piece);
        let starts_text = piece.bytes.first().is_some_and(|&b| b != 0);
        if piece.ended && stray.len() > 1 {
            // More than a stray byte before a newline is a line, whose checksum fails (a byte
            // of it zeroed included); rot in the padding is one byte here and there.
            read.damaged
                .push(damaged_line(i, piece.bytes, &HashSet::new()));
            continue;
        }
        if !piece.ended && in_text && starts_text {
            // The last write, cut short by a crash before its newline reached the disk.
            read.torn_tail = true;
            let cut = piece.bytes.iter().position(|&b| b == 0);
            let fragment = cut.unwrap_or(piece.bytes.len());
            let after = |at: &usize| *at >= piece.at + fragment;
            rot.extend(stray.into_iter().filter(after));
        } else {
            rot.extend(stray);
            if piece.ended {
                // A newline among zeros.
                rot.push(piece.at + piece.bytes.len());
            }
        }
        in_text = false;
    }
    rot.sort_unstable();
    read.rot = rot.first().map(|&first| Rot {
        bytes: rot.len(),
        first,
    });
}

/// The pieces, split again where a newline rotted into another byte: a piece that is not a
/// sound line but begins with one, followed by the byte where its newline was. The offsets of
/// those bytes go to `rot`.
fn mend<'a>(pieces: Vec<Piece<'a>>, rot: &mut Vec<usize>) -> Vec<Piece<'a>> {
    let mut mended = Vec::with_capacity(pieces.len());
    for mut piece in pieces {
        while let Some(k) = lost_newline(piece.bytes, piece.ended) {
            rot.push(piece.at + k);
            mended.push(Piece {
                at: piece.at,
                bytes: &piece.bytes[..k],
                ended: true,
            });
            piece = Piece {
                at: piece.at + k + 1,
                bytes: &piece.bytes[k + 1..],
                ended: piece.ended,
            };
        }
        mended.push(piece);
    }
    mended
}

/// Where a sound line ends inside a piece, if the piece is not one itself. Its newline may
/// have rotted into any byte, zero included if text follows (the piece is `ended`); a zero
/// ending the last piece is the padding after a line cut short.
fn lost_newline(bytes: &[u8], ended: bool) -> Option<usize> {
    if read_line(bytes).is_some() {
        return None;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let last = if ended && end < bytes.len() {
        end
    } else {
        end.saturating_sub(1)
    };
    (1..=last.min(LONGEST_LINE)).find(|&k| read_line(&bytes[..k]).is_some())
}

/// Takes a sound line's word on its game: the last line for a game wins.
fn keep(read: &mut Read, line: Line) {
    match line {
        Line::Magic => {}
        Line::Mark(game, mark) => {
            read.unverified.remove(&game);
            read.marks.insert(game, mark);
        }
        Line::Unverified(game, u) => {
            read.unverified.insert(game, u);
        }
    }
}

/// The file offsets of a piece's bytes other than zero.
fn nonzero(piece: &Piece) -> Vec<usize> {
    let at = piece.at;
    piece
        .bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b != 0)
        .map(|(i, _)| at + i)
        .collect()
}

/// A line that is not sound, with whatever of its game it still says.
fn damaged_line(index: usize, bytes: &[u8], later: &HashSet<String>) -> DamagedLine {
    let text = String::from_utf8_lossy(bytes);
    let body = text.rsplit_once(' ').map_or(&*text, |(body, _)| body);
    let mut parts = body.splitn(4, ' ');
    let number = parts.next().and_then(|n| n.parse().ok());
    let game = parts
        .nth(2)
        .and_then(|id| serde_json::from_str::<String>(id).ok());
    // The format line (the file's first) vouches for no game: damage there costs nothing if
    // it is no longer than the format line (a newline lost there would merge a mark into it).
    let format_line = index == 0 && bytes.len() <= checked(MAGIC).len();
    DamagedLine {
        line: index + 1,
        number,
        game,
        superseded: later.clone(),
        format_line,
    }
}

/// The line, if its checksum holds and it reads as a line of the anchor.
fn read_line(bytes: &[u8]) -> Option<Line> {
    let body = verified(std::str::from_utf8(bytes).ok()?)?;
    if body == MAGIC {
        return Some(Line::Magic);
    }
    if let Some(rest) = body.strip_prefix(UNVERIFIED) {
        return parse_unverified(rest).map(|(game, u)| Line::Unverified(game, u));
    }
    parse_mark(body).map(|(game, mark)| Line::Mark(game, mark))
}

fn parse_unverified(rest: &str) -> Option<(String, Unverified)> {
    let (number, json) = rest.trim_start().split_once(' ')?;
    let mut values = serde_json::Deserializer::from_str(json).into_iter::<String>();
    let game = values.next()?.ok()?;
    let why = values.next()?.ok()?;
    let number = number.parse().ok()?;
    Some((game, Unverified { number, why }))
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
        let mut anchor = Anchor::create(dir.path(), HashMap::new(), HashMap::new(), &mut Fdatasync)
            .expect("new");
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
    fn a_torn_last_line_is_ignored_and_a_damaged_middle_line_is_read_around() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut anchor = Anchor::create(dir.path(), HashMap::new(), HashMap::new(), &mut Fdatasync)
            .expect("new");
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

        let mut damaged = full.clone();
        let second_line = full.iter().position(|&b| b == b'\n').expect("newline") + 3;
        damaged[second_line] ^= 1;
        std::fs::write(&path, &damaged).expect("flip");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.damaged.len(), 1);
        let line = &read.damaged[0];
        assert_eq!((line.line, line.number), (2, Some(1)));
        assert_eq!(line.game.as_deref(), Some("g"));
        assert!(
            line.superseded.contains("g"),
            "line 3 names the game after it"
        );
        assert_eq!(read.marks["g"], mark(1, 4));
    }

    /// The anchor of `dir` with games "a" (1) and "b" (2), compacted, as after a start.
    fn two_games(dir: &Path) -> Vec<u8> {
        let marks = HashMap::from([("a".to_owned(), mark(1, 5)), ("b".to_owned(), mark(2, 9))]);
        Anchor::create(dir, marks, HashMap::new(), &mut Fdatasync).expect("new");
        std::fs::read(dir.join(ANCHOR_FILE)).expect("read")
    }

    #[test]
    fn rot_in_the_padding_is_reported_not_taken_for_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        let full = two_games(dir.path());
        let end = full.iter().position(|&b| b == 0).expect("zeros ahead");
        let path = dir.path().join(ANCHOR_FILE);
        // A newline rotted between two sound lines is no loss either.
        let newline = full.iter().enumerate().filter(|(_, b)| **b == b'\n');
        let second = newline.map(|(i, _)| i).nth(1).expect("line 2");
        for (at, value) in [
            (end + 100, b'x'),
            (end + 1, 0x80),
            (full.len() - 1, b'\n'),
            (second, b'x'),
        ] {
            let mut rotten = full.clone();
            rotten[at] = value;
            std::fs::write(&path, &rotten).expect("rot");
            let read = Anchor::read(dir.path()).expect("read").expect("exists");
            assert_eq!(
                read.rot,
                Some(Rot {
                    bytes: 1,
                    first: at
                }),
                "at {at}"
            );
            assert!(read.damaged.is_empty() && !read.torn_tail, "at {at}");
            assert_eq!(read.marks.len(), 2);
        }
        std::fs::write(&path, &full).expect("whole");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.rot, None);
    }

    #[test]
    fn a_damaged_line_names_what_it_still_can_and_a_zeroed_byte_is_not_padding() {
        let dir = tempfile::tempdir().expect("tempdir");
        let full = two_games(dir.path());
        let path = dir.path().join(ANCHOR_FILE);
        let line_start = |n: usize| -> usize {
            let newlines = full.iter().enumerate().filter(|(_, b)| **b == b'\n');
            newlines.map(|(i, _)| i + 1).nth(n - 2).expect("line")
        };
        // A byte of the hash of line 3 (game "b", the last line) zeroed.
        let mut zeroed = full.clone();
        zeroed[line_start(3) + 10] = 0;
        std::fs::write(&path, &zeroed).expect("zero");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.rot, None);
        assert_eq!(read.damaged.len(), 1, "{:?}", read.damaged);
        let line = &read.damaged[0];
        assert_eq!((line.line, line.number), (3, Some(2)));
        assert_eq!(line.game.as_deref(), Some("b"));
        assert!(line.superseded.is_empty());
        assert!(!read.marks.contains_key("b"));
        assert_eq!(read.marks["a"], mark(1, 5));

        // The id of line 2 (game "a") damaged: its number still names it; "b" comes after.
        let mut flipped = full.clone();
        let quote = line_start(2)
            + full[line_start(2)..]
                .iter()
                .position(|&b| b == b'"')
                .expect("id");
        flipped[quote + 1] ^= 0x20;
        std::fs::write(&path, &flipped).expect("flip");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        let line = &read.damaged[0];
        assert_eq!((line.line, line.number), (2, Some(1)));
        assert_eq!(line.game.as_deref(), Some("A"));
        assert!(line.superseded.contains("b") && !line.superseded.contains("a"));
    }

    #[test]
    fn an_unverified_game_survives_compaction_until_a_mark_comes_after_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let doubt = Unverified {
            number: 2,
            why: "line 3 is \"damaged\"".into(),
        };
        let marks = HashMap::from([("a".to_owned(), mark(1, 5)), ("b".to_owned(), mark(2, 4))]);
        let unverified = HashMap::from([("b".to_owned(), doubt.clone())]);
        let mut anchor =
            Anchor::create(dir.path(), marks, unverified, &mut Fdatasync).expect("new");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.unverified["b"], doubt);
        assert_eq!(read.marks["b"], mark(2, 4), "the older mark is kept");
        anchor.compact(&mut Fdatasync).expect("compact");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert_eq!(read.unverified["b"], doubt);
        assert!(read.damaged.is_empty());
        anchor
            .record(&[("b", mark(2, 9))], &mut Fdatasync)
            .expect("record");
        let read = Anchor::read(dir.path()).expect("read").expect("exists");
        assert!(read.unverified.is_empty(), "a later mark ends it");
        assert_eq!(read.marks["b"], mark(2, 9));
    }
}
