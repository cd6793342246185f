//! [`SledLog`]: the [`Log`] on one sled tree, with a group-commit writer thread.
//!
//! Reads go straight to sled from the caller's thread, inside `async fn`s that never yield (a
//! local lookup, as before reads were async); every write goes through the writer (see
//! `group_commit`). Readers see a game only up to its *durable* head, which the writer
//! publishes after the fsync, so nothing is ever served that a power cut could take back.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;

use super::chain::Chain;
use super::disk::{Disk, Durability, Fdatasync};
use super::group_commit::{CommitStats, Writer};
use super::layout::{DirEntry, Head};
use super::recovery::{self, Damage, Trust};
use super::watch::Follow;
use super::{Appended, Error, GameInfo, Log, NewEvent, Record, Rejection, Stream, Writable};

/// Records checked per read by `verify_all`, so a long game is not loaded whole.
const VERIFY_CHUNK: u64 = 4096;

/// The sled-backed [`Log`]. Cheap to clone; all clones share one store and one writer, which
/// stops (and releases the database) when the last clone is dropped.
#[derive(Clone)]
pub struct SledLog {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<Store>,
    writer: Writer,
    notes: Vec<String>,
}

/// What readers and the writer share: the tree and each durable game's head.
pub(super) struct Store {
    pub tree: sled::Db,
    games: RwLock<HashMap<String, Arc<Game>>>,
    /// Games found damaged at open: never served, never written to.
    pub damaged: HashMap<String, Damage>,
}

/// A durable game: its number in the keys and its head, published to watchers.
pub(super) struct Game {
    pub dir: DirEntry,
    pub head: watch::Sender<Head>,
}

impl SledLog {
    /// Opens (or creates) the log stored in the directory `path`, recovering every game and
    /// head and checking each against the anchor of what was acknowledged. Works outside a
    /// tokio runtime: the writer is a plain thread.
    pub fn open(path: &Path) -> Result<SledLog, Error> {
        SledLog::open_with(path, Box::new(Fdatasync))
    }

    /// Opens the log making commits durable with `durability` instead of plain fdatasync:
    /// the seam for fault tests (a sync that fails like a full disk).
    pub fn open_with(path: &Path, durability: Box<dyn Durability>) -> Result<SledLog, Error> {
        SledLog::open_as(path, durability, Trust::Anchor)
    }

    /// Opens the log taking the store as it is ([`Trust::Adopt`]) or holding it to its
    /// anchor ([`Trust::Anchor`], what [`SledLog::open`] does).
    pub fn open_as(
        path: &Path,
        durability: Box<dyn Durability>,
        trust: Trust,
    ) -> Result<SledLog, Error> {
        let tree = recovery::open_tree(path)?;
        let mut disk = Disk::open(path, durability)?;
        // Sync what we recovered: after a kill -9 it may sit only in the page cache, and we
        // are about to serve it.
        disk.sync(&tree)?;
        let recovered = recovery::recover(path, &tree, &mut disk, trust)?;
        disk.set_anchor(recovered.anchor);
        let store = Arc::new(Store {
            tree,
            games: RwLock::new(recovered.games),
            damaged: recovered.damaged,
        });
        let writer = Writer::start(Arc::clone(&store), disk, recovered.next_number)?;
        Ok(SledLog {
            inner: Arc::new(Inner {
                store,
                writer,
                notes: recovered.notes,
            }),
        })
    }

    /// What opening found, for the start-up report: each damaged game's error (`DataLoss`
    /// naming the missing seqs), and notes an operator should read.
    pub fn recovery(&self) -> (Vec<Error>, &[String]) {
        let mut damaged: Vec<(&String, &Damage)> = self.inner.store.damaged.iter().collect();
        damaged.sort_by_key(|(_, d)| d.number);
        let errors = damaged.into_iter().map(|(_, d)| d.error.clone()).collect();
        (errors, &self.inner.notes)
    }

    /// The games found unverified at open (their anchor line damaged): not served until the
    /// store is adopted, but not known to be damaged either.
    pub fn unverified(&self) -> Vec<String> {
        let damaged = &self.inner.store.damaged;
        let mut games: Vec<&String> = damaged
            .iter()
            .filter(|(_, d)| d.unverified)
            .map(|(name, _)| name)
            .collect();
        games.sort();
        games.into_iter().cloned().collect()
    }

    /// Stores a whole game exactly as its records were acknowledged elsewhere (a verified
    /// audit export, another store): same seqs, times, writers and hashes, so its chain head
    /// is unchanged. Refused if the game exists or the records are not one sound chain.
    pub async fn restore(
        &self,
        records: Vec<Record>,
    ) -> Result<Result<GameInfo, Rejection>, Error> {
        self.inner.writer.restore(records).await
    }

    /// Counters of the group-commit writer, e.g. to check syncs per acknowledged batch.
    pub fn stats(&self) -> CommitStats {
        self.inner.writer.stats()
    }

    /// Walks every game's whole chain, from the header to the head.
    pub fn verify_all(&self) -> Result<(), Error> {
        for (name, game) in self.inner.store.list() {
            let head = *game.head.borrow();
            let chain = self.inner.store.chain(&name, &game);
            let mut from = 0;
            while from <= head.last_seq {
                let to = head.last_seq.min(from.saturating_add(VERIFY_CHUNK - 1));
                chain.read(from, to, &head)?;
                from = to + 1;
            }
        }
        Ok(())
    }
}

impl Log for SledLog {
    async fn create(
        &self,
        game: &str,
        header: String,
        writer: &str,
    ) -> Result<Result<Record, Rejection>, Error> {
        self.inner.writer.create(game, header, writer).await
    }

    async fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Result<Result<Appended, Rejection>, Error> {
        self.inner.writer.append(game, expected_seq, events).await
    }

    async fn read(
        &self,
        game: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<Result<Vec<Record>, Rejection>, Error> {
        let Some(entry) = self.inner.store.game(game)? else {
            return Ok(Err(Rejection::unknown_game(game)));
        };
        let head = *entry.head.borrow();
        let to = to.map_or(head.last_seq, |to| to.min(head.last_seq));
        if from > to {
            return Ok(Ok(Vec::new()));
        }
        self.inner
            .store
            .chain(game, &entry)
            .read(from, to, &head)
            .map(Ok)
    }

    async fn info(&self, game: &str) -> Result<Option<GameInfo>, Error> {
        Ok(self.inner.store.game(game)?.map(|entry| entry.info(game)))
    }

    async fn games(&self) -> Result<Vec<GameInfo>, Error> {
        let store = &self.inner.store;
        let mut games: Vec<(u64, GameInfo)> = store
            .list()
            .iter()
            .map(|(name, game)| (game.dir.number, game.info(name)))
            .collect();
        games.extend(
            store
                .damaged
                .iter()
                .map(|(name, damage)| (damage.number, damage.info(name))),
        );
        games.sort_by_key(|(number, _)| *number);
        Ok(games.into_iter().map(|(_, info)| info).collect())
    }

    async fn writable(&self) -> Writable {
        match self.inner.writer.stopped() {
            None => Writable::Yes,
            Some(why) => Writable::UntilRestart(why),
        }
    }

    async fn watch(
        &self,
        game: &str,
        from: u64,
    ) -> Result<Result<impl Stream<Item = Result<Record, Error>> + Send + 'static, Rejection>, Error>
    {
        let Some(entry) = self.inner.store.game(game)? else {
            return Ok(Err(Rejection::unknown_game(game)));
        };
        let tree = (*self.inner.store.tree).clone();
        Ok(Ok(Follow::new(
            tree,
            game,
            entry.dir.number,
            from,
            entry.head.subscribe(),
        )))
    }
}

impl Game {
    fn info(&self, name: &str) -> GameInfo {
        let head = *self.head.borrow();
        GameInfo {
            game: name.to_owned(),
            last_seq: head.last_seq,
            head_hash: head.hash,
            created_ms: self.dir.created_ms,
            damage: None,
        }
    }
}

impl Damage {
    /// A damaged game as listed: its acknowledged head if known, and what is wrong.
    fn info(&self, name: &str) -> GameInfo {
        GameInfo {
            game: name.to_owned(),
            last_seq: self.mark.map_or(0, |m| m.last_seq),
            head_hash: self.mark.map_or([0; 32], |m| m.hash),
            created_ms: 0,
            damage: Some(self.error.to_string()),
        }
    }
}

impl Store {
    /// The durable game of that id; `DataLoss` if it was found damaged at open.
    pub fn game(&self, name: &str) -> Result<Option<Arc<Game>>, Error> {
        if let Some(damage) = self.damaged.get(name) {
            return Err(damage.error.clone());
        }
        let games = self.games.read().unwrap_or_else(PoisonError::into_inner);
        Ok(games.get(name).cloned())
    }

    fn list(&self) -> Vec<(String, Arc<Game>)> {
        let games = self.games.read().unwrap_or_else(PoisonError::into_inner);
        games
            .iter()
            .map(|(name, game)| (name.clone(), Arc::clone(game)))
            .collect()
    }

    fn chain<'a>(&'a self, name: &'a str, game: &Game) -> Chain<'a> {
        Chain {
            tree: &self.tree,
            game: name,
            number: game.dir.number,
        }
    }

    /// Makes a game's new head visible to readers and watchers. Called by the writer only
    /// after the head is durable.
    pub fn publish(&self, name: &str, dir: DirEntry, head: Head) {
        let mut games = self.games.write().unwrap_or_else(PoisonError::into_inner);
        match games.get(name) {
            Some(game) => {
                game.head.send_replace(head);
            }
            None => {
                let head = watch::Sender::new(head);
                games.insert(name.to_owned(), Arc::new(Game { dir, head }));
            }
        }
    }
}
