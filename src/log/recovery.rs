//! Opening a store without trusting it: sled's files are read so that a panic inside sled
//! becomes an error, and every game's head is checked against the anchor of what was
//! acknowledged (see `anchor`). A game whose store falls short of, or differs from, its
//! anchored head is damaged: `DataLoss` naming the missing seqs, never served; every other
//! game is served as usual.

use std::any::Any;
use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, Once};

use tokio::sync::watch;

use super::anchor::{ANCHOR_FILE, Anchor, DamagedLine, Mark, Read, Unverified};
use super::chain::Chain;
use super::disk::Disk;
use super::layout::{self, DirEntry, Head};
use super::sled_log::Game;
use super::{Error, HASH_LEN};

/// sled's page cache. Its default is 1 GiB, which a hall's worth of watchers reading old
/// games can fill. sled counts less than it holds: at 64 MiB the server's RSS reached 200 MB
/// after a million appended events, at 8 MiB 99 MB, with no fewer events per second (issue 17,
/// `cargo bench --bench memory`). Records are small and reads sequential; the OS's page cache
/// serves what falls out.
const CACHE_BYTES: u64 = 8 << 20;

/// Whether to hold the store to its anchor or accept it as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// Every anchored game must be in the store at its anchored head (the default).
    Anchor,
    /// Take the store as it is and anchor it anew: after restoring a copy on purpose, or
    /// when the anchor itself is damaged. Each game's tail is still checked against its head;
    /// `referee store adopt` verifies every whole chain.
    Adopt,
}

/// A game the store cannot serve, found at open.
#[derive(Clone, Debug)]
pub(super) struct Damage {
    pub number: u64,
    /// The head acknowledged for it, if the anchor knows it.
    pub mark: Option<Mark>,
    /// What is wrong, as every request for the game will be told.
    pub error: Error,
    /// Whether the game is only unverified (its anchor line damaged), not found damaged.
    pub unverified: bool,
}

/// What opening found: the games to serve, the damaged ones, and the anchor to go on with.
pub(super) struct Recovered {
    pub games: HashMap<String, Arc<Game>>,
    pub damaged: HashMap<String, Damage>,
    pub next_number: u64,
    pub anchor: Anchor,
    /// What an operator should know, for the start-up report (damage is in `damaged`).
    pub notes: Vec<String>,
}

/// Opens sled's files; a panic inside sled (seen on damaged files) becomes an error. A store
/// that cannot be opened is called damaged only when nothing else explains it: another process
/// holding it is [`Error::InUse`], a full file system [`Error::NoSpace`], a refusal by the file
/// system (permissions, read-only) [`Error::Storage`]; advice to restore a copy given to a
/// healthy store could have an operator overwrite it.
pub(super) fn open_tree(path: &Path) -> Result<sled::Db, Error> {
    let config = sled::Config::new()
        .path(path)
        .cache_capacity(CACHE_BYTES)
        // The writer flushes and fdatasyncs every group itself; sled's timer would only add
        // a second, unsynced flush on its own thread.
        .flush_every_ms(None);
    match guarded("opening the store", || Ok(config.open())) {
        Ok(Ok(tree)) => Ok(tree),
        Ok(Err(e)) => Err(open_failure(path, e)),
        Err(Error::Damaged(why)) => Err(Error::Damaged(format!("{}: {why}", path.display()))),
        Err(other) => Err(other),
    }
}

/// Why sled could not open the store in `path`, by cause.
pub(super) fn open_failure(path: &Path, e: sled::Error) -> Error {
    use std::io::ErrorKind;
    if let sled::Error::Io(io) = &e {
        // sled's own text for a lock it could not take; the probe covers a holder that let go
        // since, and is the only test once sled's wording changes.
        if io.to_string().contains("could not acquire lock") || super::lock::held(path) {
            return super::lock::in_use(path);
        }
        let at = path.display();
        match io.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
                return Error::NoSpace(format!("{at}: {io}"));
            }
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
                return Error::Storage(format!("cannot open the store in {at}: {io}"));
            }
            _ => {}
        }
    }
    let why = match Error::from(e) {
        Error::Damaged(why) => why,
        other => other.to_string(),
    };
    Error::Damaged(format!("{}: {why}", path.display()))
}

/// Runs `f`, turning a panic into `Error::Damaged`: sled 0.34 panics on some damaged files.
/// The panic is reported by that error, so the process's panic hook stays quiet about it
/// (see [`quiet_guarded_panics`]): an operator sees what to do, not a backtrace.
pub(super) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    quiet_guarded_panics();
    let outer = GUARDED.replace(true);
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.set(outer);
    result.unwrap_or_else(|panic| {
        Err(Error::Damaged(format!(
            "sled panicked while {what}: {}",
            panic_text(panic.as_ref())
        )))
    })
}

thread_local! {
    /// Whether this thread is inside [`guarded`], where a panic becomes an error.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Wraps the process's panic hook, once: a panic inside [`guarded`] is logged as one line
/// (it is reported as an error where it is caught); every other panic goes to the hook that
/// was installed before, as it would without this.
fn quiet_guarded_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(wrap_panic_hook);
}

fn wrap_panic_hook() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if GUARDED.get() {
            let at = info.location().map(ToString::to_string).unwrap_or_default();
            tracing::warn!(at, "a panic inside sled, caught and reported as damage");
        } else {
            before(info);
        }
    }));
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// Loads every game, checks it against the anchor and writes the anchor anew.
pub(super) fn recover(
    path: &Path,
    tree: &sled::Db,
    disk: &mut Disk,
    trust: Trust,
) -> Result<Recovered, Error> {
    let mut found = guarded("reading the game directory", || load_games(tree))?;
    let anchored = guarded("reading the store", || Ok(tree.get(layout::ANCHORED)?))?.is_some();
    let read = match Anchor::read(path) {
        Ok(Some(read)) => Some(read),
        Ok(None) if anchored && trust == Trust::Anchor => {
            return Err(Error::Damaged(format!(
                "{ANCHOR_FILE} is missing although this store was anchored, so what was \
                 acknowledged cannot be checked"
            )));
        }
        Ok(None) => None,
        Err(e) if trust == Trust::Adopt => {
            found.notes.push(format!("the anchor is not used: {e}"));
            None
        }
        Err(e) => return Err(e),
    };
    if let Some(read) = &read {
        note_reading(&mut found, read);
    }
    let (marks, unverified) = match (read, trust) {
        (Some(read), Trust::Anchor) => {
            let unverified = unverified_games(&mut found, &read);
            (read.marks, unverified)
        }
        (read, _) => {
            note_adoption(&mut found, read.as_ref());
            (HashMap::new(), HashMap::new())
        }
    };
    let kept = reconcile(tree, &mut found, &marks, &unverified)?;
    let anchor = Anchor::create(path, kept, unverified, disk.durability())?;
    if !anchored {
        tree.insert(layout::ANCHORED, &[1])?;
        disk.sync(tree)?;
    }
    Ok(Recovered {
        next_number: found.next_number(&marks),
        games: found.games,
        damaged: found.damaged,
        anchor,
        notes: found.notes,
    })
}

/// Notes on what reading the anchor met that costs nothing acknowledged.
fn note_reading(found: &mut Found, read: &Read) {
    if read.torn_tail {
        found.notes.push(format!(
            "{ANCHOR_FILE}: its last line was cut short by a crash before it was synced \
             (never acknowledged); ignored"
        ));
    }
    if let Some(rot) = read.rot {
        found.notes.push(format!(
            "{ANCHOR_FILE}: {} byte(s) rotted where it holds no data (its zero padding after \
             the text, or a newline between two sound lines; the first at offset {}): rot of \
             the file, not data, so nothing acknowledged is affected; the anchor is written \
             anew at every start, which clears them",
            rot.bytes, rot.first
        ));
    }
}

/// The games the anchor can no longer vouch for: those an earlier start found so, and those
/// a damaged line may have named (see `anchor`); each damaged line gets a note.
fn unverified_games(found: &mut Found, read: &Read) -> HashMap<String, Unverified> {
    let mut unverified = read.unverified.clone();
    let known = known_games(found, read);
    for line in &read.damaged {
        let n = line.line;
        if line.format_line {
            found.notes.push(format!(
                "{ANCHOR_FILE}: line 1 (the format line, which names no game) is damaged; the \
                 lines after it are read as format 1 and the anchor is written anew"
            ));
            continue;
        }
        let (traced, doubted) = doubted(line, &known);
        let why = if traced {
            format!("{ANCHOR_FILE} line {n} is damaged and may hold its last acknowledged head")
        } else {
            format!(
                "{ANCHOR_FILE} line {n} is damaged and cannot be traced to a game; it may hold \
                 this game's last acknowledged head"
            )
        };
        found.notes.push(damaged_line_note(line, traced, &doubted));
        for (game, number) in doubted {
            unverified.entry(game).or_insert_with(|| Unverified {
                number,
                why: why.clone(),
            });
        }
    }
    unverified
}

/// Every game the store or the anchor knows, with its number.
fn known_games(found: &Found, read: &Read) -> Vec<(String, u64)> {
    let mut known: HashMap<&str, u64> = HashMap::new();
    let stored = found.games.iter().map(|(g, game)| (g, game.dir.number));
    let damaged = found.damaged.iter().map(|(g, d)| (g, d.number));
    let marked = read.marks.iter().map(|(g, m)| (g, m.number));
    let doubted = read.unverified.iter().map(|(g, u)| (g, u.number));
    for (game, number) in stored.chain(damaged).chain(marked).chain(doubted) {
        known.entry(game.as_str()).or_insert(number);
    }
    let mut known: Vec<(String, u64)> = known.into_iter().map(|(g, n)| (g.to_owned(), n)).collect();
    known.sort_by_key(|(_, n)| *n);
    known
}

/// The games a damaged line may have been the last word on: those its number or id still
/// name (traced), else every known game; less those with a sound line after it.
fn doubted(line: &DamagedLine, known: &[(String, u64)]) -> (bool, Vec<(String, u64)>) {
    let names = |(game, number): &&(String, u64)| {
        line.number == Some(*number) || line.game.as_deref() == Some(game.as_str())
    };
    let traced = known.iter().any(|g| names(&g));
    let doubted = known
        .iter()
        .filter(|g| !traced || names(g))
        .filter(|(game, _)| !line.superseded.contains(game))
        .cloned()
        .collect();
    (traced, doubted)
}

fn damaged_line_note(line: &DamagedLine, traced: bool, doubted: &[(String, u64)]) -> String {
    let n = line.line;
    let games: Vec<String> = doubted.iter().map(|(g, _)| format!("{g:?}")).collect();
    let (shown, more) = (
        games.iter().take(10).cloned().collect::<Vec<_>>(),
        games.len().saturating_sub(10),
    );
    let mut list = shown.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    match (traced, games.is_empty()) {
        (true, true) => format!(
            "{ANCHOR_FILE}: line {n} is damaged; every game it may name has a sound line after \
             it, so nothing is unverified; the anchor is written anew without it"
        ),
        (false, true) => format!(
            "{ANCHOR_FILE}: line {n} is damaged and cannot be traced to a game; every game has a \
             sound line after it, so nothing is unverified"
        ),
        (true, false) => format!(
            "{ANCHOR_FILE}: line {n} is damaged: {list} cannot be checked against what was \
             acknowledged and is not served (DATA_LOSS) until adopted; every other game is \
             checked and served as usual"
        ),
        (false, false) => format!(
            "{ANCHOR_FILE}: line {n} is damaged and cannot be traced to a game: the {} games \
             without a sound line after it ({list}) cannot be checked against what was \
             acknowledged and are not served (DATA_LOSS) until adopted; every other game is \
             checked and served as usual",
            games.len()
        ),
    }
}

/// What the store holds, before the anchor is consulted.
struct Found {
    games: HashMap<String, Arc<Game>>,
    damaged: HashMap<String, Damage>,
    notes: Vec<String>,
}

impl Found {
    fn next_number(&self, marks: &HashMap<String, Mark>) -> u64 {
        let stored = self.games.values().map(|g| g.dir.number);
        let damaged = self.damaged.values().map(|d| d.number);
        let anchored = marks.values().map(|m| m.number);
        stored.chain(damaged).chain(anchored).max().unwrap_or(0) + 1
    }

    fn damage(&mut self, name: &str, number: u64, mark: Option<Mark>, error: Error) {
        self.games.remove(name);
        let damage = Damage {
            number,
            mark,
            error,
            unverified: false,
        };
        self.damaged.insert(name.to_owned(), damage);
    }

    /// Like [`Found::damage`], for a game that is only unverified.
    fn doubt(&mut self, name: &str, number: u64, mark: Option<Mark>, error: Error) {
        self.damage(name, number, mark, error);
        if let Some(damage) = self.damaged.get_mut(name) {
            damage.unverified = true;
        }
    }
}

fn note_adoption(found: &mut Found, read: Option<&Read>) {
    let count = found.games.len();
    let Some(Read {
        marks, unverified, ..
    }) = read
    else {
        if count > 0 {
            found.notes.push(format!(
                "no anchor (a store written before anchors existed): its {count} games are \
                 taken as they are and anchored now"
            ));
        }
        return;
    };
    found.notes.push(format!(
        "adopting the store as it is: its {count} games are anchored anew"
    ));
    for (name, mark) in marks {
        let now = found.games.get(name).map(|g| g.head.borrow().last_seq);
        match now {
            Some(seq) if seq == mark.last_seq => {}
            Some(seq) => found.notes.push(format!(
                "game {name:?}: acknowledged up to seq {}, adopted at seq {seq}",
                mark.last_seq
            )),
            None => found.notes.push(format!(
                "game {name:?}: acknowledged up to seq {}, absent from the adopted store",
                mark.last_seq
            )),
        }
    }
    for (name, u) in unverified {
        let now = found.games.get(name).map(|g| g.head.borrow().last_seq);
        let adopted = now.map_or("absent from the adopted store".into(), |seq| {
            format!("adopted at seq {seq}")
        });
        found
            .notes
            .push(format!("game {name:?}: unverified ({}); {adopted}", u.why));
    }
}

/// Checks every anchored game against the store and every stored game's tail; returns the
/// marks the new anchor starts from.
fn reconcile(
    tree: &sled::Db,
    found: &mut Found,
    marks: &HashMap<String, Mark>,
    unverified: &HashMap<String, Unverified>,
) -> Result<HashMap<String, Mark>, Error> {
    let mut kept = HashMap::new();
    for (name, mark) in marks {
        let Some(game) = found.games.get(name).cloned() else {
            if let Some(damage) = found.damaged.get_mut(name) {
                damage.mark = Some(*mark);
            } else {
                let error = missing(name, mark);
                found.damage(name, mark.number, Some(*mark), error);
            }
            kept.insert(name.clone(), *mark);
            continue;
        };
        match against_mark(tree, name, &game, mark) {
            Ok(()) => {}
            Err(error) => found.damage(name, game.dir.number, Some(*mark), error),
        }
        kept.insert(name.clone(), *mark);
    }
    let unanchored: Vec<(String, Arc<Game>)> = found
        .games
        .iter()
        .filter(|(name, _)| !marks.contains_key(*name))
        .map(|(name, game)| (name.clone(), Arc::clone(game)))
        .collect();
    for (name, game) in unanchored {
        if let Err(error) = tail_holds(tree, &name, &game) {
            found.damage(&name, game.dir.number, None, error);
            continue;
        }
        if !marks.is_empty() && !unverified.contains_key(&name) {
            found.notes.push(format!(
                "game {name:?} is in the store but not in the anchor (created in the last \
                 commit before a crash, or added to the store by other means); anchored now"
            ));
        }
    }
    // Checked against an older sound line if there is one (a failure there says more), an
    // unverified game is still not served: a later acknowledgement may be what was lost.
    for (name, u) in unverified {
        if found.damaged.contains_key(name) {
            continue;
        }
        let older = marks.get(name).copied();
        found.doubt(name, u.number, older, unverified_loss(name, u, older));
    }
    for (name, game) in &found.games {
        kept.insert(name.clone(), mark_of(game));
    }
    Ok(kept)
}

fn unverified_loss(name: &str, u: &Unverified, older: Option<Mark>) -> Error {
    let from = older.map_or(0, |m| m.last_seq + 1);
    let vouched = match older {
        Some(m) => format!("an older sound line vouches for seqs 0..={}", m.last_seq),
        None => "no sound line vouches for any of it".into(),
    };
    loss(
        name,
        from,
        format!(
            "unverified: {}, so what was acknowledged of it from seq {from} on cannot be \
             checked ({vouched}); it is not served. If `referee store check` finds its chain \
             whole and it agrees with the scoresheet, accept the store as it is with `referee \
             store adopt`",
            u.why
        ),
    )
}

fn mark_of(game: &Game) -> Mark {
    let head = *game.head.borrow();
    Mark {
        number: game.dir.number,
        last_seq: head.last_seq,
        hash: head.hash,
    }
}

/// The store's game holds its anchored head: the same record at the anchored seq, and a
/// sound chain from there to the store's head (which is beyond it only if the process died
/// between the store's sync and the anchor's).
fn against_mark(tree: &sled::Db, name: &str, game: &Game, mark: &Mark) -> Result<(), Error> {
    let head = *game.head.borrow();
    if game.dir.number != mark.number {
        return Err(loss(
            name,
            0,
            format!(
                "the store files the game under number {} but it was acknowledged as number {}",
                game.dir.number, mark.number
            ),
        ));
    }
    if head.last_seq < mark.last_seq {
        return Err(short(name, head.last_seq, mark));
    }
    let records = read_chain(tree, name, game, mark.last_seq, &head)?;
    let at_mark = records.first().map(|r| r.hash);
    if at_mark != Some(mark.hash) {
        return Err(loss(
            name,
            mark.last_seq,
            format!(
                "the stored record at seq {} is not the one acknowledged (hash {} was \
                 acknowledged)",
                mark.last_seq,
                short_hex(&mark.hash)
            ),
        ));
    }
    Ok(())
}

/// A game the anchor does not know: at least its last record must match its head.
fn tail_holds(tree: &sled::Db, name: &str, game: &Game) -> Result<(), Error> {
    let head = *game.head.borrow();
    read_chain(tree, name, game, head.last_seq, &head).map(|_| ())
}

fn read_chain(
    tree: &sled::Db,
    name: &str,
    game: &Game,
    from: u64,
    head: &Head,
) -> Result<Vec<super::Record>, Error> {
    let chain = Chain {
        tree,
        game: name,
        number: game.dir.number,
    };
    chain.read(from, head.last_seq, head)
}

fn short(name: &str, stored: u64, mark: &Mark) -> Error {
    loss(
        name,
        stored + 1,
        format!(
            "acknowledged up to seq {}, but the store holds only seqs 0..={stored}: seqs {}..={} \
             are missing (the store was rolled back or truncated)",
            mark.last_seq,
            stored + 1,
            mark.last_seq
        ),
    )
}

fn missing(name: &str, mark: &Mark) -> Error {
    loss(
        name,
        0,
        format!(
            "acknowledged up to seq {}, but the game is missing from the store: seqs 0..={} \
             are missing (the store was emptied, truncated or rolled back)",
            mark.last_seq, mark.last_seq
        ),
    )
}

fn short_hex(hash: &[u8; HASH_LEN]) -> String {
    hex::encode(&hash[..8])
}

/// Every game of the directory with its head; a game whose entries cannot be read is damaged.
fn load_games(tree: &sled::Tree) -> Result<Found, Error> {
    let mut found = Found {
        games: HashMap::new(),
        damaged: HashMap::new(),
        notes: Vec::new(),
    };
    for item in tree.scan_prefix([layout::DIRECTORY]) {
        let (key, value) = item?;
        let name = match layout::directory_game(&key) {
            Some(name) => name.to_owned(),
            None => {
                let name = String::from_utf8_lossy(&key[1..]).into_owned();
                found.notes.push(format!(
                    "a directory key is not UTF-8 ({name:?}): the store is damaged there"
                ));
                continue;
            }
        };
        let Some(dir) = DirEntry::decode(&value) else {
            let error = loss(&name, 0, "its directory entry is damaged");
            found.damage(&name, 0, None, error);
            continue;
        };
        match load_head(tree, &name, dir.number) {
            Ok(head) => {
                let game = Game {
                    dir,
                    head: watch::Sender::new(head),
                };
                found.games.insert(name, Arc::new(game));
            }
            Err(error) => found.damage(&name, dir.number, None, error),
        }
    }
    Ok(found)
}

fn load_head(tree: &sled::Tree, name: &str, number: u64) -> Result<Head, Error> {
    let head = tree
        .get(layout::head_key(number))?
        .ok_or_else(|| loss(name, 0, "its head is missing"))?;
    Head::decode(&head).ok_or_else(|| loss(name, 0, "its head is damaged"))
}

fn loss(game: &str, seq: u64, detail: impl Into<String>) -> Error {
    Error::DataLoss {
        game: game.to_owned(),
        seq,
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn a_store_that_cannot_be_opened_is_damaged_only_when_nothing_else_explains_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let os = |code| sled::Error::Io(std::io::Error::from_raw_os_error(code));
        let full = open_failure(dir.path(), os(28));
        assert!(matches!(full, Error::NoSpace(_)), "{full:?}");
        let text = full.to_string();
        assert!(
            text.contains("No space left on device") && !text.contains("damaged"),
            "{text}"
        );
        let denied = open_failure(dir.path(), os(13));
        assert!(matches!(denied, Error::Storage(_)), "{denied:?}");
        let corrupt = open_failure(dir.path(), sled::Error::Corruption { at: None, bt: () });
        assert!(matches!(corrupt, Error::Damaged(_)), "{corrupt:?}");
        let short = open_failure(
            dir.path(),
            sled::Error::Io(std::io::ErrorKind::UnexpectedEof.into()),
        );
        assert!(
            matches!(short, Error::Damaged(_)),
            "a short file is damage: {short:?}"
        );

        // flock is per open file, so a second open in this same process is refused too.
        let first = open_tree(dir.path()).expect("open");
        let second = open_tree(dir.path()).expect_err("refused while held");
        assert!(matches!(second, Error::InUse(_)), "{second:?}");
        assert!(second.to_string().contains("this process"), "{second}");
        drop(first);
    }

    #[test]
    fn a_guarded_panic_is_an_error_and_the_panic_hook_stays_quiet() {
        // The hook before ours counts this thread's panics and passes on the others.
        let this = std::thread::current().id();
        let heard = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&heard);
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() == this {
                counter.fetch_add(1, Ordering::SeqCst);
            } else {
                default(info);
            }
        }));
        wrap_panic_hook();
        let caught = guarded("reading a page", || -> Result<(), Error> {
            panic!("index out of bounds")
        });
        match caught {
            Err(Error::Damaged(why)) => assert!(
                why.contains("sled panicked while reading a page: index out of bounds"),
                "{why}"
            ),
            other => panic!("expected Damaged, got {other:?}"),
        }
        assert_eq!(
            heard.load(Ordering::SeqCst),
            0,
            "a guarded panic is not printed"
        );
        assert!(!GUARDED.get(), "the guard is lifted after the panic");
        let unguarded = catch_unwind(|| panic!("elsewhere"));
        assert!(unguarded.is_err());
        assert_eq!(
            heard.load(Ordering::SeqCst),
            1,
            "other panics reach the hook"
        );
    }
}
