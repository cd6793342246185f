//! The group committer: the appends of many games that arrive together are decided and written
//! by ONE statement, in one round trip and one transaction, like sled's `group_commit` shares
//! one fdatasync among them.
//!
//! Callers queue their appends; one task, the leader, takes every append queued (up to
//! [`MAX_GROUP`]) and sends them as one call of `referee_append_batch` (see `schema`; a group
//! of one calls `referee_append_one`, the same decision by single-key lookups) on a pooled
//! connection, where the call is a prepared statement (parsed and planned once per
//! connection). The call is a statement of its own, outside any BEGIN, so PostgreSQL
//! commits it before it answers: the driver returns its rows only after the server's
//! ReadyForQuery, which follows the COMMIT, and COMMIT returns only after the WAL is flushed
//! (see `settings`). Each append is acknowledged from those rows, never before. Appends that
//! arrive while a group is in flight form the next one; up to [`IN_FLIGHT`] groups are in
//! flight at once, each on its own connection, so that PostgreSQL's WAL flush can carry
//! several commits together and one stream's append never waits behind a full group.
//!
//! The guarantees of one transaction per append, kept per game inside the group:
//! - **Fencing, `expected_seq`, exactly-once by event id**: checked by the function for each
//!   game under its lease and head row locks, in the order one append's transaction checked
//!   them, each game answered on its own (one game fenced or behind does not fail the others).
//! - **One decision per game at a time**: a game is in at most one group in flight; a second
//!   append to a game waits for the group that carries the first (it is decided against the
//!   head that group leaves, as two appends one after the other were).
//! - **Hashes**: records are sealed here, with record.rs, on the head this instance last saw of
//!   the game (from create, info, read and every append's answer). If the head moved since
//!   (another instance appended) or was never seen, the function answers `unsealed` with the
//!   head, nothing written, and the append is sealed again on that head and sent with the next
//!   group: one more round trip, the first time an instance writes a game it did not read.
//! - **Lost races**: a group that fails on a unique key, a serialisation failure or a deadlock
//!   is rolled back whole and its appends are decided again in the next group (each at most
//!   [`ATTEMPTS`] times); any other failure fails each of its appends with the error. A broken
//!   connection leaves the outcome unknown: an error, never an ack, and a retry by event id
//!   settles it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};
use tokio::task::{Id, JoinError, JoinSet};
use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

use super::super::layout::Head;
use super::super::{Appended, Error, Lease, NewEvent, Record, Rejection};
use super::append::{Outcome, chained, match_retry, raced_or};
use super::connections::Connections;
use super::notify::Notifier;
use super::{ATTEMPTS, chain, raced_too_often, to_i64};

/// Most appends in one group: bounds the time the group holds its games' rows.
const MAX_GROUP: usize = 256;
/// Most records in one group, unless its first append alone has more.
const MAX_RECORDS: usize = 4096;
/// Groups in flight at once, each on its own connection (of the pool's `PG_CONNECTIONS`).
/// Two, measured (BENCHMARKS.md, issue 33): with 64 streams on this 2-core machine, 1 and 2
/// gave about 3,600 and 3,500 events/s, 4 gave 2,200 and 8 gave 1,400: more groups in
/// flight are smaller groups, and each costs PostgreSQL a statement and a commit; two still
/// lets one group's WAL flush overlap the next group's work.
const IN_FLIGHT: usize = 2;
/// The call for a group of one.
const CALL_ONE: &str = "SELECT * FROM referee_append_one($1, $2, $3, $4, $5, $6, $7, $8, $9, \
                        $10, $11, $12, $13)";

/// [`CALL_ONE`]'s parameter types, in order.
const CALL_ONE_TYPES: [Type; 13] = [
    Type::TEXT,
    Type::INT8,
    Type::INT8,
    Type::BYTEA,
    Type::INT8,
    Type::BYTEA,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::BYTEA_ARRAY,
    Type::BYTEA_ARRAY,
];

/// The call's parameter types, in order.
const CALL_TYPES: [Type; 15] = [
    Type::TEXT_ARRAY,
    Type::INT8_ARRAY,
    Type::INT8_ARRAY,
    Type::BYTEA_ARRAY,
    Type::INT8_ARRAY,
    Type::BYTEA_ARRAY,
    Type::INT4_ARRAY,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::BYTEA_ARRAY,
    Type::BYTEA_ARRAY,
    Type::BOOL,
];
/// Heads remembered for sealing; past this many games the memory starts afresh.
const KNOWN_HEADS: usize = 100_000;

/// The call: every parameter an array, one element per append or per record.
const CALL: &str = "SELECT * FROM referee_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, \
                    $11, $12, $13, $14, $15)";

/// The head of each game as this instance last saw it: what appends are sealed on. Only a
/// hint; the function checks it against the head row.
#[derive(Default)]
pub(super) struct KnownHeads(Mutex<HashMap<String, Head>>);

impl KnownHeads {
    /// Remembers a head seen of `game`; never moves back to an older one.
    pub fn saw(&self, game: &str, head: Head) {
        let mut heads = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if heads.len() >= KNOWN_HEADS && !heads.contains_key(game) {
            heads.clear();
        }
        let known = heads.entry(game.to_owned()).or_insert(head);
        if head.last_seq >= known.last_seq {
            *known = head;
        }
    }

    fn get(&self, game: &str) -> Option<Head> {
        let heads = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        heads.get(game).copied()
    }
}

/// The callers' side: queues an append and waits for its group's answer.
pub(super) struct Committer {
    queue: mpsc::UnboundedSender<Request>,
}

/// One append as queued.
struct Request {
    game: String,
    lease: Option<Lease>,
    expected_seq: u64,
    events: Vec<NewEvent>,
    /// Groups it was sent in without being decided (lost races, a stale head).
    tries: usize,
    reply: oneshot::Sender<Outcome<Appended>>,
}

impl Committer {
    /// Starts the leader; it stops when the committer is dropped and its groups are answered.
    /// `notify`: whether the engine delivers NOTIFY (committed appends then wake other
    /// instances, after their acks: see `notify`).
    pub fn start(connections: Arc<Connections>, known: Arc<KnownHeads>, notify: bool) -> Committer {
        let notifier = notify.then(|| Notifier::start(Arc::clone(&connections)));
        let (queue, requests) = mpsc::unbounded_channel();
        let leader = Leader {
            requests,
            waiting: VecDeque::new(),
            busy: HashSet::new(),
            groups: JoinSet::new(),
            in_flight: HashMap::new(),
            connections,
            known,
            notifier,
        };
        tokio::spawn(leader.run());
        Committer { queue }
    }

    /// Appends `events` (already checked) with the next group, answered after its COMMIT.
    pub async fn append(
        &self,
        game: &str,
        lease: Option<Lease>,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Outcome<Appended> {
        let (reply, answer) = oneshot::channel();
        let request = Request {
            game: game.to_owned(),
            lease,
            expected_seq,
            events,
            tries: 0,
            reply,
        };
        self.queue.send(request).map_err(|_| Error::Closed)?;
        answer.await.map_err(|_| Error::Closed)?
    }
}

/// The task that forms groups and sends them.
struct Leader {
    requests: mpsc::UnboundedReceiver<Request>,
    /// Queued, not yet in a group, oldest first.
    waiting: VecDeque<Request>,
    /// Games in a group in flight.
    busy: HashSet<String>,
    groups: JoinSet<Vec<(Request, Decision)>>,
    /// The games of each group in flight, freed when it ends (even if its task panicked).
    in_flight: HashMap<Id, Vec<String>>,
    connections: Arc<Connections>,
    known: Arc<KnownHeads>,
    notifier: Option<Notifier>,
}

/// What became of an append in a group.
enum Decision {
    /// Its answer.
    Answer(Outcome<Appended>),
    /// Not decided (a lost race, a head it was not sealed on): send it again.
    Again,
}

impl Leader {
    async fn run(mut self) {
        let mut open = true;
        loop {
            while open && let Ok(request) = self.requests.try_recv() {
                self.waiting.push_back(request);
            }
            if self.groups.len() < IN_FLIGHT
                && let Some(group) = self.next_group()
            {
                self.launch(group);
                continue;
            }
            if !open && self.groups.is_empty() && self.waiting.is_empty() {
                return;
            }
            tokio::select! {
                Some(done) = self.groups.join_next_with_id(), if !self.groups.is_empty() => {
                    self.finish(done);
                }
                received = self.requests.recv(), if open => match received {
                    Some(request) => self.waiting.push_back(request),
                    None => open = false,
                },
                else => return,
            }
        }
    }

    /// The waiting appends that can go now: oldest first, one per game, none of a game in
    /// flight. `None` if there are none.
    fn next_group(&mut self) -> Option<Vec<Request>> {
        let mut group: Vec<Request> = Vec::new();
        let mut records = 0;
        let mut later = Vec::new();
        while let Some(request) = self.waiting.pop_front() {
            let full = group.len() == MAX_GROUP
                || (!group.is_empty() && records + request.events.len() > MAX_RECORDS);
            if full {
                self.waiting.push_front(request);
                break;
            }
            if self.busy.contains(&request.game) {
                later.push(request);
                continue;
            }
            self.busy.insert(request.game.clone());
            records += request.events.len();
            group.push(request);
        }
        // Those that wait for their game keep their place ahead of the rest.
        for request in later.into_iter().rev() {
            self.waiting.push_front(request);
        }
        (!group.is_empty()).then_some(group)
    }

    fn launch(&mut self, group: Vec<Request>) {
        let games = group.iter().map(|r| r.game.clone()).collect();
        let connections = Arc::clone(&self.connections);
        let known = Arc::clone(&self.known);
        let task = self.groups.spawn(commit(connections, known, group));
        self.in_flight.insert(task.id(), games);
    }

    fn finish(&mut self, done: Result<(Id, Vec<(Request, Decision)>), JoinError>) {
        let id = match &done {
            Ok((id, _)) => *id,
            Err(e) => e.id(),
        };
        for game in self.in_flight.remove(&id).unwrap_or_default() {
            self.busy.remove(&game);
        }
        // A group whose task panicked dropped its replies: its callers get `Closed`.
        let Ok((_, decided)) = done else {
            return;
        };
        let mut again = Vec::new();
        for (mut request, decision) in decided {
            let answer = match decision {
                Decision::Answer(answer) => answer,
                Decision::Again if request.tries + 1 < ATTEMPTS => {
                    request.tries += 1;
                    again.push(request);
                    continue;
                }
                Decision::Again => Err(raced_too_often(&request.game)),
            };
            if let (Some(notifier), Ok(Ok(appended))) = (&self.notifier, &answer)
                && let Some(last) = appended.records.last()
                && !appended.duplicate
            {
                notifier.tell(&request.game, last.seq);
            }
            // The caller may have gone (its request was cancelled): nothing to tell.
            let _ = request.reply.send(answer);
        }
        for request in again.into_iter().rev() {
            self.waiting.push_front(request);
        }
    }
}

/// An append sealed for its group: the head it follows and its records.
struct Sealed {
    /// `expected_seq - 1`, or -1 when no head can match (`expected_seq` 0 or past BIGINT).
    after: i64,
    /// The head the records were sealed on, if this instance knew it.
    on: Option<Head>,
    records: Vec<Record>,
}

impl Sealed {
    fn of(request: &Request, known: &KnownHeads) -> Result<Sealed, Error> {
        let after = request
            .expected_seq
            .checked_sub(1)
            .and_then(|after| i64::try_from(after).ok());
        let on = known
            .get(&request.game)
            .filter(|head| Some(head.last_seq) == after.and_then(|a| u64::try_from(a).ok()));
        // Without the head, sealed on a stand-in: the ids are all the function reads of them
        // before it answers `mismatch` or `unsealed`.
        let base = on.unwrap_or(Head {
            last_seq: after.and_then(|a| u64::try_from(a).ok()).unwrap_or(0),
            hash: super::super::ZERO_HASH,
        });
        Ok(Sealed {
            after: after.unwrap_or(-1),
            on,
            records: chained(&request.game, base, &request.events)?,
        })
    }
}

/// Sends one group and decides each of its appends from the function's answer.
async fn commit(
    connections: Arc<Connections>,
    known: Arc<KnownHeads>,
    group: Vec<Request>,
) -> Vec<(Request, Decision)> {
    let sealed: Result<Vec<Sealed>, Error> = group.iter().map(|r| Sealed::of(r, &known)).collect();
    let sealed = match sealed {
        Ok(sealed) => sealed,
        Err(e) => return all(group, |_| Decision::Answer(Err(e.clone()))),
    };
    match call(&connections, &group, &sealed).await {
        Ok(rows) => decide(group, sealed, &rows, &known),
        Err(Failed::Raced) => all(group, |_| Decision::Again),
        Err(Failed::Error(e)) => all(group, |_| Decision::Answer(Err(e.clone()))),
    }
}

fn all(group: Vec<Request>, decide: impl Fn(&Request) -> Decision) -> Vec<(Request, Decision)> {
    group
        .into_iter()
        .map(|request| {
            let decision = decide(&request);
            (request, decision)
        })
        .collect()
}

/// Why a group's call failed.
enum Failed {
    /// A race lost to another writer: nothing was stored, decide each append again.
    Raced,
    Error(Error),
}

impl From<Error> for Failed {
    fn from(e: Error) -> Failed {
        Failed::Error(e)
    }
}

/// The one round trip: the function called with the group, column by column.
async fn call(
    connections: &Arc<Connections>,
    group: &[Request],
    sealed: &[Sealed],
) -> Result<Vec<Row>, Failed> {
    // The function's own notifying is for referees before this one (see `notify`).
    let notify = false;
    if let ([request], [one]) = (group, sealed) {
        return call_one(connections, request, one).await;
    }
    let games: Vec<&str> = group.iter().map(|r| r.game.as_str()).collect();
    // An epoch past BIGINT matches no lease row: fenced, as it should be.
    let leases: Vec<Option<i64>> = group
        .iter()
        .map(|r| r.lease.map(|l| i64::try_from(l.epoch).unwrap_or(-1)))
        .collect();
    let after: Vec<i64> = sealed.iter().map(|s| s.after).collect();
    let sealed_on: Vec<Option<&[u8]>> = sealed
        .iter()
        .map(|s| s.on.as_ref().map(|h| h.hash.as_slice()))
        .collect();
    let columns = Columns::of(sealed)?;
    let mut last = Vec::with_capacity(sealed.len());
    let mut last_hash = Vec::with_capacity(sealed.len());
    for s in sealed {
        let record = s.records.last().ok_or(Error::Storage(
            "postgres: an append without events reached the group committer".into(),
        ))?;
        last.push(to_i64(record.seq)?);
        last_hash.push(record.hash.as_slice());
    }
    let params: [&(dyn ToSql + Sync); 15] = [
        &games,
        &leases,
        &after,
        &sealed_on,
        &last,
        &last_hash,
        &columns.requests,
        &columns.seqs,
        &columns.event_ids,
        &columns.received,
        &columns.writers,
        &columns.bodies,
        &columns.prevs,
        &columns.hashes,
        &notify,
    ];
    run(connections, CALL, &CALL_TYPES, &params).await
}

/// A group of one: the same decision by `referee_append_one`, whose steps are single-key
/// lookups (see `schema::APPEND_ONE`); its rows are read as the batch's.
async fn call_one(
    connections: &Arc<Connections>,
    request: &Request,
    sealed: &Sealed,
) -> Result<Vec<Row>, Failed> {
    let lease = request.lease.map(|l| i64::try_from(l.epoch).unwrap_or(-1));
    let sealed_on = sealed.on.as_ref().map(|h| h.hash.as_slice());
    let record = sealed.records.last().ok_or(Error::Storage(
        "postgres: an append without events reached the group committer".into(),
    ))?;
    let last = to_i64(record.seq)?;
    let columns = Columns::of(std::slice::from_ref(sealed))?;
    let params: [&(dyn ToSql + Sync); 13] = [
        &request.game,
        &lease,
        &sealed.after,
        &sealed_on,
        &last,
        &record.hash.as_slice(),
        &columns.seqs,
        &columns.event_ids,
        &columns.received,
        &columns.writers,
        &columns.bodies,
        &columns.prevs,
        &columns.hashes,
    ];
    run(connections, CALL_ONE, &CALL_ONE_TYPES, &params).await
}

/// Runs one of the append functions on a pooled connection: prepared once per connection (a
/// round trip the first time), then each call is one message of bind and execute, one round
/// trip, and the server neither parses nor plans it again.
async fn run(
    connections: &Arc<Connections>,
    sql: &'static str,
    types: &[Type],
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>, Failed> {
    let mut conn = connections.get().await?;
    let rows = match conn.prepared(sql, types).await {
        Ok(statement) => conn.query(&statement, params).await,
        Err(e) => Err(e),
    };
    match rows {
        Ok(rows) => {
            conn.release();
            Ok(rows)
        }
        Err(e) => match raced_or(
            e,
            "appending a group (if the connection broke, the appends may or may not be \
             stored: retry them with the same event ids)",
        ) {
            Ok(()) => {
                conn.release();
                Err(Failed::Raced)
            }
            Err(e) => Err(Failed::Error(e)),
        },
    }
}

/// The group's records, one array per column, each record naming its append (1-based).
struct Columns<'a> {
    requests: Vec<i32>,
    seqs: Vec<i64>,
    event_ids: Vec<&'a str>,
    received: Vec<i64>,
    writers: Vec<&'a str>,
    bodies: Vec<&'a str>,
    prevs: Vec<&'a [u8]>,
    hashes: Vec<&'a [u8]>,
}

impl<'a> Columns<'a> {
    fn of(sealed: &'a [Sealed]) -> Result<Columns<'a>, Error> {
        let n: usize = sealed.iter().map(|s| s.records.len()).sum();
        let mut columns = Columns {
            requests: Vec::with_capacity(n),
            seqs: Vec::with_capacity(n),
            event_ids: Vec::with_capacity(n),
            received: Vec::with_capacity(n),
            writers: Vec::with_capacity(n),
            bodies: Vec::with_capacity(n),
            prevs: Vec::with_capacity(n),
            hashes: Vec::with_capacity(n),
        };
        for (index, s) in sealed.iter().enumerate() {
            // MAX_GROUP keeps the index far inside INT.
            let request = i32::try_from(index + 1).unwrap_or(i32::MAX);
            for r in &s.records {
                columns.requests.push(request);
                columns.seqs.push(to_i64(r.seq)?);
                columns.event_ids.push(&r.event_id);
                columns.received.push(to_i64(r.received_ms)?);
                columns.writers.push(&r.writer);
                columns.bodies.push(&r.body);
                columns.prevs.push(&r.prev_hash);
                columns.hashes.push(&r.hash);
            }
        }
        Ok(columns)
    }
}

/// What the function said of one append (its rows' `outcome`).
enum Said {
    Ok,
    /// Some of its ids are stored: these records.
    Stored(Vec<Record>),
    Fenced {
        holder: String,
        epoch: u64,
    },
    Unknown,
    /// The head is not at `expected_seq - 1`.
    Mismatch(Head),
    /// The head is where the append expects it, but its records were sealed on another hash.
    Unsealed(Head),
}

/// Each append's decision from the function's rows.
fn decide(
    group: Vec<Request>,
    sealed: Vec<Sealed>,
    rows: &[Row],
    known: &KnownHeads,
) -> Vec<(Request, Decision)> {
    let mut by_request: Vec<Vec<&Row>> = vec![Vec::new(); group.len()];
    for row in rows {
        let index = usize::try_from(row.get::<_, i32>(7)).unwrap_or(0);
        if let Some(rows) = index.checked_sub(1).and_then(|i| by_request.get_mut(i)) {
            rows.push(row);
        }
    }
    group
        .into_iter()
        .zip(sealed)
        .zip(by_request)
        .map(|((request, sealed), rows)| {
            let decision = match said(&request.game, &rows) {
                Ok(said) => decision(&request, sealed, said, known),
                Err(e) => Decision::Answer(Err(e)),
            };
            (request, decision)
        })
        .collect()
}

/// Reads one append's rows: one outcome, or `stored` with a row per stored record.
fn said(game: &str, rows: &[&Row]) -> Result<Said, Error> {
    let Some(first) = rows.first() else {
        return Err(Error::Storage(format!(
            "postgres: the append function gave no outcome for game {game:?}; the append may \
             or may not be stored: retry it with the same event ids"
        )));
    };
    let head = || chain::head_of(game, first.get(9), first.get(10));
    Ok(match first.get::<_, &str>(8) {
        "ok" => Said::Ok,
        "stored" => Said::Stored(
            rows.iter()
                .map(|row| chain::from_row(game, row))
                .collect::<Result<_, _>>()?,
        ),
        "fenced" => Said::Fenced {
            holder: first.get(11),
            epoch: u64::try_from(first.get::<_, i64>(12)).unwrap_or(0),
        },
        "unknown" => Said::Unknown,
        "mismatch" => Said::Mismatch(head()?),
        "unsealed" => Said::Unsealed(head()?),
        other => {
            return Err(Error::Storage(format!(
                "postgres: the append function answered {other:?} for game {game:?}"
            )));
        }
    })
}

fn decision(request: &Request, sealed: Sealed, said: Said, known: &KnownHeads) -> Decision {
    let game = request.game.as_str();
    let rejected = |rejection| Decision::Answer(Ok(Err(rejection)));
    match said {
        Said::Ok => {
            if let Some(last) = sealed.records.last() {
                known.saw(
                    game,
                    Head {
                        last_seq: last.seq,
                        hash: last.hash,
                    },
                );
            }
            let records = sealed.records;
            Decision::Answer(Ok(Ok(Appended {
                records,
                duplicate: false,
            })))
        }
        // The ids were found, so a decision is made; `None` cannot happen, decide again.
        Said::Stored(stored) => match match_retry(game, &request.events, stored) {
            Some(answer) => Decision::Answer(Ok(answer)),
            None => Decision::Again,
        },
        Said::Fenced { holder, epoch } => rejected(Rejection::Fenced {
            game: game.to_owned(),
            held: request.lease.map_or(0, |l| l.epoch),
            now: epoch,
            holder,
        }),
        Said::Unknown => rejected(Rejection::unknown_game(game)),
        Said::Mismatch(head) => {
            known.saw(game, head);
            rejected(Rejection::SeqMismatch {
                game: game.to_owned(),
                expected: request.expected_seq,
                last: head.last_seq,
            })
        }
        Said::Unsealed(head) => {
            known.saw(game, head);
            Decision::Again
        }
    }
}
