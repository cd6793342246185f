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

use super::anchor::{ANCHOR_FILE, Anchor, Mark};
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
    let marks = match Anchor::read(path) {
        Ok(Some(read)) => {
            if read.torn_tail {
                found.notes.push(format!(
                    "{ANCHOR_FILE}: its last line was cut short by a crash before it was \
                     synced (never acknowledged); ignored"
                ));
            }
            Some(read.marks)
        }
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
    let marks = match (marks, trust) {
        (Some(marks), Trust::Anchor) => marks,
        (marks, _) => {
            note_adoption(&mut found, marks.as_ref());
            HashMap::new()
        }
    };
    let kept = reconcile(tree, &mut found, &marks)?;
    let anchor = Anchor::create(path, kept, disk.durability())?;
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
        self.damaged.insert(
            name.to_owned(),
            Damage {
                number,
                mark,
                error,
            },
        );
    }
}

fn note_adoption(found: &mut Found, marks: Option<&HashMap<String, Mark>>) {
    let count = found.games.len();
    let Some(marks) = marks else {
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
}

/// Checks every anchored game against the store and every stored game's tail; returns the
/// marks the new anchor starts from.
fn reconcile(
    tree: &sled::Db,
    found: &mut Found,
    marks: &HashMap<String, Mark>,
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
        if !marks.is_empty() {
            found.notes.push(format!(
                "game {name:?} is in the store but not in the anchor (created in the last \
                 commit before a crash, or added to the store by other means); anchored now"
            ));
        }
    }
    for (name, game) in &found.games {
        kept.insert(name.clone(), mark_of(game));
    }
    Ok(kept)
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
