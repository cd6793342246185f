//! The group-commit writer: one thread that owns every write.
//!
//! Callers queue requests on a channel. The writer takes all that are queued, decides each
//! one against the store plus the writes of the requests before it, applies them as ONE sled
//! `Batch` (atomic, also across a crash), flushes, fdatasyncs, publishes the new heads, and
//! only then answers them all. Requests that arrive during the fsync form the next group, so
//! under load many appends share one fsync instead of paying one each.
//!
//! A std thread rather than a tokio task: `SledLog::open` is called by CLI tools outside any
//! runtime, and the fsync blocks anyway. Replies travel on tokio oneshots, which need no
//! runtime on the sending side.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use super::anchor::Mark;
use super::disk::Disk;
use super::layout::{self, DirEntry, Head};
use super::limits::{check_body, check_events, check_game_id, check_new_game_id};
use super::record::{self, Unsealed, ZERO_HASH};
use super::recovery::guarded;
use super::sled_log::Store;
use super::{Appended, Error, GameInfo, NewEvent, Record, Rejection, now_ms};

/// Most requests decided in one group: bounds the latency of the first one queued.
const MAX_GROUP: usize = 4096;

/// What the writer has done since open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Groups of requests taken off the queue and answered together.
    pub batches: u64,
    /// Flush + fdatasync rounds: one per group that wrote anything, none for a group of only
    /// rejections and retries.
    pub syncs: u64,
    /// Requests answered (creates and appends, whatever the outcome).
    pub requests: u64,
    /// Events newly appended (retries not counted again).
    pub events: u64,
    /// Records written: events plus game headers.
    pub records: u64,
}

#[derive(Default)]
struct Counters {
    batches: AtomicU64,
    syncs: AtomicU64,
    requests: AtomicU64,
    events: AtomicU64,
    records: AtomicU64,
}

type Reply<T> = oneshot::Sender<Result<Result<T, Rejection>, Error>>;

enum Request {
    Create {
        game: String,
        header: String,
        writer: String,
        reply: Reply<Record>,
    },
    Append {
        game: String,
        expected_seq: u64,
        events: Vec<NewEvent>,
        reply: Reply<Appended>,
    },
    Restore {
        records: Vec<Record>,
        reply: Reply<GameInfo>,
    },
}

/// The handle callers hold. Dropping it closes the queue and waits for the thread, so the
/// database is released when the last `SledLog` goes.
pub(super) struct Writer {
    queue: Option<mpsc::Sender<Request>>,
    thread: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
    /// Why the writer stopped, once it has (shared with the thread).
    stopped: Arc<Mutex<Option<String>>>,
}

impl Writer {
    /// Starts the writer thread on a recovered store whose files `disk` makes durable.
    pub fn start(store: Arc<Store>, disk: Disk, next_number: u64) -> Result<Writer, Error> {
        let counters = Arc::new(Counters::default());
        let stopped = Arc::new(Mutex::new(None));
        let committer = Committer {
            store,
            disk,
            next_number,
            counters: Arc::clone(&counters),
            broken: None,
            stopped: Arc::clone(&stopped),
        };
        let (queue, requests) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || committer.run(requests))?;
        Ok(Writer {
            queue: Some(queue),
            thread: Some(thread),
            counters,
            stopped,
        })
    }

    pub async fn create(
        &self,
        game: &str,
        header: String,
        writer: &str,
    ) -> Result<Result<Record, Rejection>, Error> {
        let (reply, answer) = oneshot::channel();
        let (game, writer) = (game.to_owned(), writer.to_owned());
        self.send(Request::Create {
            game,
            header,
            writer,
            reply,
        })?;
        answer.await.map_err(|_| Error::Closed)?
    }

    pub async fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Result<Result<Appended, Rejection>, Error> {
        let (reply, answer) = oneshot::channel();
        let game = game.to_owned();
        self.send(Request::Append {
            game,
            expected_seq,
            events,
            reply,
        })?;
        answer.await.map_err(|_| Error::Closed)?
    }

    pub async fn restore(
        &self,
        records: Vec<Record>,
    ) -> Result<Result<GameInfo, Rejection>, Error> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Restore { records, reply })?;
        answer.await.map_err(|_| Error::Closed)?
    }

    fn send(&self, request: Request) -> Result<(), Error> {
        let queue = self.queue.as_ref().ok_or(Error::Closed)?;
        queue.send(request).map_err(|_| Error::Closed)
    }

    /// Why the writer refuses every write, if it does (after a failed commit).
    pub fn stopped(&self) -> Option<String> {
        self.stopped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn stats(&self) -> CommitStats {
        let c = &self.counters;
        CommitStats {
            batches: c.batches.load(Ordering::Relaxed),
            syncs: c.syncs.load(Ordering::Relaxed),
            requests: c.requests.load(Ordering::Relaxed),
            events: c.events.load(Ordering::Relaxed),
            records: c.records.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the queue ends the thread's loop once it has answered what is queued.
        self.queue.take();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("log writer thread panicked");
        }
    }
}

/// The writer thread's state.
struct Committer {
    store: Arc<Store>,
    disk: Disk,
    next_number: u64,
    counters: Arc<Counters>,
    /// Set after a failed commit. The failed batch may sit half-durable in sled's memory, so
    /// committing anything after it could make an answered-as-failed append durable: refuse
    /// every write until a restart recovers what really reached the disk.
    broken: Option<Error>,
    /// `broken`, as the handle sees it (health checks read it from other threads).
    stopped: Arc<Mutex<Option<String>>>,
}

/// What a write is told once the writer stopped at `why`: the same cause (a full disk stays
/// RESOURCE_EXHAUSTED to a client), saying that only a restart resumes writing.
fn after_stop(why: &Error) -> Error {
    const RESTART: &str = "the log writer stopped at that failed commit and refuses every \
                           write until the service restarts (acknowledged events are intact)";
    match why {
        Error::NoSpace(text) => Error::NoSpace(format!("{text}; {RESTART}")),
        other => Error::Storage(format!("{other}; {RESTART}")),
    }
}

impl Committer {
    fn run(mut self, requests: mpsc::Receiver<Request>) {
        while let Ok(first) = requests.recv() {
            let mut group = vec![first];
            group.extend(requests.try_iter().take(MAX_GROUP - 1));
            self.commit_group(group);
        }
    }

    fn commit_group(&mut self, group: Vec<Request>) {
        self.counters.batches.fetch_add(1, Ordering::Relaxed);
        self.counters
            .requests
            .fetch_add(len_u64(group.len()), Ordering::Relaxed);
        if let Some(why) = &self.broken {
            let failure = after_stop(why);
            group
                .into_iter()
                .for_each(|request| Answer::refuse(request, &failure));
            return;
        }
        let store = Arc::clone(&self.store);
        let mut pending = Pending::new(&store);
        let mut answers = Vec::with_capacity(group.len());
        // A panic inside sled (a damaged page) must not kill the writer with requests
        // unanswered: it fails the group and stops the writer like a failed commit.
        let decided = guarded("deciding a group of writes", || {
            for request in group {
                answers.push(self.decide(&mut pending, request));
            }
            Ok(())
        });
        let failure = decided
            .and_then(|()| guarded("committing a group", || self.commit(pending)))
            .err();
        if let Some(e) = &failure {
            self.stop(e);
        }
        answers
            .into_iter()
            .for_each(|answer| answer.send(failure.as_ref()));
    }

    /// Refuses every later write: what failed may sit half-applied in sled's memory.
    fn stop(&mut self, e: &Error) {
        if self.broken.is_none() {
            tracing::error!(error = %e, "log commit failed; refusing further writes");
            self.broken = Some(e.clone());
            *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(after_stop(e).to_string());
        }
    }

    fn decide(&mut self, pending: &mut Pending, request: Request) -> Answer {
        match request {
            Request::Create {
                game,
                header,
                writer,
                reply,
            } => Answer::Create(reply, self.create(pending, &game, &header, &writer)),
            Request::Append {
                game,
                expected_seq,
                events,
                reply,
            } => Answer::Append(reply, append(pending, &game, expected_seq, &events)),
            Request::Restore { records, reply } => {
                Answer::Restore(reply, self.restore(pending, &records))
            }
        }
    }

    /// Applies the group's writes, makes them durable, and only then publishes them.
    fn commit(&mut self, mut pending: Pending) -> Result<(), Error> {
        if pending.writes.is_empty() {
            return Ok(());
        }
        let result = self
            .store
            .tree
            .apply_batch(pending.batch())
            .map_err(Error::from);
        let heads: Vec<(&str, Mark)> = pending
            .touched
            .iter()
            .map(|(name, (dir, head))| (name.as_str(), Mark::of(dir, head)))
            .collect();
        result
            .and_then(|()| self.disk.sync(&self.store.tree))
            .and_then(|()| self.disk.anchor(&heads))?;
        self.counters.syncs.fetch_add(1, Ordering::Relaxed);
        self.counters
            .events
            .fetch_add(pending.events, Ordering::Relaxed);
        self.counters
            .records
            .fetch_add(pending.records, Ordering::Relaxed);
        for (name, (dir, head)) in pending.touched {
            self.store.publish(&name, dir, head);
        }
        Ok(())
    }

    fn create(
        &mut self,
        p: &mut Pending,
        game: &str,
        header: &str,
        writer: &str,
    ) -> Outcome<Record> {
        if let Err(rejection) = check_new_game_id(game).and_then(|()| check_body(0, header)) {
            return Ok(Err(rejection));
        }
        if p.game(game)?.is_some() {
            return Ok(Err(Rejection::GameExists {
                game: game.to_owned(),
            }));
        }
        let dir = DirEntry {
            number: self.next_number,
            created_ms: now_ms(),
        };
        let unsealed = Unsealed {
            game,
            seq: 0,
            event_id: "",
            received_ms: dir.created_ms,
            writer,
            body: header,
            prev_hash: ZERO_HASH,
        };
        let (value, record) = unsealed.seal().map_err(Error::Storage)?;
        self.next_number += 1;
        p.insert(layout::directory_key(game), dir.encode().to_vec());
        p.insert(layout::event_key(dir.number, 0).to_vec(), value);
        p.set_head(
            game,
            dir,
            Head {
                last_seq: 0,
                hash: record.hash,
            },
        );
        p.records += 1;
        Ok(Ok(record))
    }
}

impl Committer {
    /// Stores a whole game's records exactly as they were (seqs, times, writers, hashes), as
    /// a new game: the records must form a sound chain from the header, each hashing to its
    /// own hash. Used to rebuild a store from verified audit exports.
    fn restore(&mut self, p: &mut Pending, records: &[Record]) -> Outcome<GameInfo> {
        let Some(header) = records.first() else {
            return Ok(Err(Rejection::EmptyAppend));
        };
        let game = header.game.as_str();
        if let Err(rejection) = check_game_id(game) {
            return Ok(Err(rejection));
        }
        if p.game(game)?.is_some() {
            return Ok(Err(Rejection::GameExists {
                game: game.to_owned(),
            }));
        }
        let values = match record::sealed_chain(records) {
            Ok(values) => values,
            Err((index, reason)) => return Ok(Err(Rejection::BadEvent { index, reason })),
        };
        let dir = DirEntry {
            number: self.next_number,
            created_ms: header.received_ms,
        };
        self.next_number += 1;
        p.insert(layout::directory_key(game), dir.encode().to_vec());
        for (record, value) in records.iter().zip(values) {
            p.insert(layout::event_key(dir.number, record.seq).to_vec(), value);
            if record.seq > 0 {
                p.insert(
                    layout::event_id_key(dir.number, &record.event_id),
                    layout::encode_seq(record.seq).to_vec(),
                );
            }
        }
        let last = records.last().unwrap_or(header);
        let head = Head {
            last_seq: last.seq,
            hash: last.hash,
        };
        p.set_head(game, dir, head);
        p.records += len_u64(records.len());
        p.events += len_u64(records.len() - 1);
        Ok(Ok(GameInfo {
            game: game.to_owned(),
            last_seq: head.last_seq,
            head_hash: head.hash,
            created_ms: dir.created_ms,
            damage: None,
        }))
    }
}

/// A request's outcome as decided, before the group commits.
type Outcome<T> = Result<Result<T, Rejection>, Error>;

/// Decides an append: rejection, retry of stored events, or new records in `p`.
fn append(
    p: &mut Pending,
    game: &str,
    expected_seq: u64,
    events: &[NewEvent],
) -> Outcome<Appended> {
    if let Err(rejection) = check_events(events) {
        return Ok(Err(rejection));
    }
    let Some((dir, head)) = p.game(game)? else {
        return Ok(Err(Rejection::UnknownGame {
            game: game.to_owned(),
        }));
    };
    // Retries first: a retry carries the expected seq of its first try, now stale.
    match retry(p, game, dir.number, events)? {
        Retry::Fresh => {}
        Retry::Duplicate(records) => {
            return Ok(Ok(Appended {
                records,
                duplicate: true,
            }));
        }
        Retry::Reused(rejection) => return Ok(Err(rejection)),
    }
    if expected_seq.checked_sub(1) != Some(head.last_seq) {
        let game = game.to_owned();
        return Ok(Err(Rejection::SeqMismatch {
            game,
            expected: expected_seq,
            last: head.last_seq,
        }));
    }
    let records = write_events(p, game, dir, head, events)?;
    Ok(Ok(Appended {
        records,
        duplicate: false,
    }))
}

/// Seals the events onto the chain after `head` and stages them, their ids and the new head.
fn write_events(
    p: &mut Pending,
    game: &str,
    dir: DirEntry,
    head: Head,
    events: &[NewEvent],
) -> Result<Vec<Record>, Error> {
    let received_ms = now_ms();
    let mut prev = head;
    let mut sealed = Vec::with_capacity(events.len());
    for event in events {
        let unsealed = Unsealed {
            game,
            seq: prev.last_seq + 1,
            event_id: &event.event_id,
            received_ms,
            writer: &event.writer,
            body: &event.body,
            prev_hash: prev.hash,
        };
        let (value, record) = unsealed.seal().map_err(Error::Storage)?;
        prev = Head {
            last_seq: record.seq,
            hash: record.hash,
        };
        sealed.push((value, record));
    }
    // Staged only once all are sealed, so a failure above leaves the group untouched.
    let mut records = Vec::with_capacity(sealed.len());
    for (value, record) in sealed {
        p.insert(layout::event_key(dir.number, record.seq).to_vec(), value);
        p.insert(
            layout::event_id_key(dir.number, &record.event_id),
            layout::encode_seq(record.seq).to_vec(),
        );
        records.push(record);
    }
    p.set_head(game, dir, prev);
    p.events += len_u64(records.len());
    p.records += len_u64(records.len());
    Ok(records)
}

/// Whether an append's event ids are new, an exact retry, or a clash.
enum Retry {
    Fresh,
    Duplicate(Vec<Record>),
    Reused(Rejection),
}

fn retry(p: &Pending, game: &str, number: u64, events: &[NewEvent]) -> Result<Retry, Error> {
    let mut known = Vec::with_capacity(events.len());
    for event in events {
        known.push(p.seq_of(game, number, &event.event_id)?);
    }
    let stored = events
        .iter()
        .zip(&known)
        .find_map(|(e, seq)| seq.map(|seq| (e, seq)));
    let Some((first_event, first_seq)) = stored else {
        return Ok(Retry::Fresh);
    };
    // Some ids stored and some not: not a retry of one request, so refuse it whole.
    let Some(seqs) = known.into_iter().collect::<Option<Vec<u64>>>() else {
        return Ok(Retry::Reused(reused(game, first_event, first_seq)));
    };
    let mut originals = Vec::with_capacity(events.len());
    for (event, seq) in events.iter().zip(seqs) {
        let original = p.record(game, number, seq)?;
        if original.body != event.body {
            return Ok(Retry::Reused(reused(game, event, seq)));
        }
        originals.push(original);
    }
    Ok(Retry::Duplicate(originals))
}

fn reused(game: &str, event: &NewEvent, seq: u64) -> Rejection {
    Rejection::EventIdReused {
        game: game.to_owned(),
        event_id: event.event_id.clone(),
        seq,
    }
}

/// The group's staged writes: the sled batch plus a map of the same writes, so each request
/// sees the ones decided before it (a create then an append, two appends to one game).
struct Pending<'a> {
    store: &'a Store,
    writes: HashMap<Vec<u8>, Vec<u8>>,
    /// Games whose head moved, to publish after the commit.
    touched: HashMap<String, (DirEntry, Head)>,
    events: u64,
    records: u64,
}

impl<'a> Pending<'a> {
    fn new(store: &'a Store) -> Self {
        Pending {
            store,
            writes: HashMap::new(),
            touched: HashMap::new(),
            events: 0,
            records: 0,
        }
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        if let Some(value) = self.writes.get(key) {
            return Ok(Some(value.clone()));
        }
        Ok(self.store.tree.get(key)?.map(|value| value.to_vec()))
    }

    /// [`get`](Self::get) of a key of `game`: sled's corruption report there is data loss in
    /// that game at `seq`, like every damage a read of the game meets.
    fn get_of(&self, key: &[u8], game: &str, seq: u64) -> Result<Option<Vec<u8>>, Error> {
        self.get(key).map_err(|e| match e {
            Error::Damaged(found) => loss(game, seq, found),
            other => other,
        })
    }

    fn insert(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.writes.insert(key, value);
    }

    /// The staged writes as one sled batch, built once per group rather than per write.
    fn batch(&mut self) -> sled::Batch {
        let mut batch = sled::Batch::default();
        for (key, value) in self.writes.drain() {
            batch.insert(key, value);
        }
        batch
    }

    /// Stages a game's new head; kept in the same batch as its records.
    fn set_head(&mut self, game: &str, dir: DirEntry, head: Head) {
        self.touched.insert(game.to_owned(), (dir, head));
        self.insert(
            layout::head_key(dir.number).to_vec(),
            head.encode().to_vec(),
        );
    }

    /// A game's directory entry and head: staged in this group, else the durable head the
    /// writer published (it is the store's only writer, so that is what sled holds; the
    /// store's own copy was checked at open). `DataLoss` for a game found damaged at open.
    fn game(&self, game: &str) -> Result<Option<(DirEntry, Head)>, Error> {
        if let Some(&staged) = self.touched.get(game) {
            return Ok(Some(staged));
        }
        Ok(self.store.game(game)?.map(|g| (g.dir, *g.head.borrow())))
    }

    fn seq_of(&self, game: &str, number: u64, event_id: &str) -> Result<Option<u64>, Error> {
        let Some(value) = self.get_of(&layout::event_id_key(number, event_id), game, 0)? else {
            return Ok(None);
        };
        layout::decode_seq(&value).map(Some).ok_or_else(|| {
            loss(
                game,
                0,
                format!("index of event id {event_id:?} is damaged"),
            )
        })
    }

    fn record(&self, game: &str, number: u64, seq: u64) -> Result<Record, Error> {
        let value = self
            .get_of(&layout::event_key(number, seq), game, seq)?
            .ok_or_else(|| loss(game, seq, "record is missing"))?;
        record::open(game, seq, &value).map_err(|detail| loss(game, seq, detail))
    }
}

fn loss(game: &str, seq: u64, detail: impl Into<String>) -> Error {
    Error::DataLoss {
        game: game.to_owned(),
        seq,
        detail: detail.into(),
    }
}

/// A decided request waiting for its group's commit.
enum Answer {
    Create(Reply<Record>, Outcome<Record>),
    Append(Reply<Appended>, Outcome<Appended>),
    Restore(Reply<GameInfo>, Outcome<GameInfo>),
}

impl Answer {
    /// Sends the decided outcome, or the commit's failure in its place: nothing decided in a
    /// failed group can be trusted, not even a rejection computed from its staged writes.
    fn send(self, failure: Option<&Error>) {
        // A caller that gave up waiting has dropped its receiver; nothing to tell it.
        match self {
            Answer::Create(reply, outcome) => {
                drop(reply.send(failure.cloned().map_or(outcome, Err)))
            }
            Answer::Append(reply, outcome) => {
                drop(reply.send(failure.cloned().map_or(outcome, Err)))
            }
            Answer::Restore(reply, outcome) => {
                drop(reply.send(failure.cloned().map_or(outcome, Err)))
            }
        }
    }

    fn refuse(request: Request, failure: &Error) {
        match request {
            Request::Create { reply, .. } => drop(reply.send(Err(failure.clone()))),
            Request::Append { reply, .. } => drop(reply.send(Err(failure.clone()))),
            Request::Restore { reply, .. } => drop(reply.send(Err(failure.clone()))),
        }
    }
}

fn len_u64(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}
