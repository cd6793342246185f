//! [`PgLog`]: the event log on PostgreSQL, with the guarantees of [`SledLog`](super::SledLog)
//! and what each one rests on:
//!
//! - **Durable before acknowledged**: an append or create is answered only after its COMMIT
//!   returned (an append's is that of its group's statement, see `batch`), and COMMIT returns only after PostgreSQL flushed the transaction's WAL to disk
//!   (and to a synchronous standby, if one is configured). That holds only with `fsync = on`,
//!   `full_page_writes = on` and `synchronous_commit` one of `on`, `remote_write`,
//!   `remote_apply`; every connection checks its session's values and the log refuses to open
//!   (or to use the connection) otherwise, saying what to configure. A COMMIT that fails
//!   without an answer from the server (the connection broke) is an error, never an ack: the
//!   board's retry by event id then settles it exactly once.
//! - **`expected_seq` checked in the inserting transaction**: the head row is locked and read
//!   by the statement that inserts seq `last + 1` (`referee_append_batch`); a second appender
//!   of the same game waits for that lock and is decided from the new head (`SeqMismatch`, or
//!   a duplicate if it was a retry); the primary key (game, seq) still fails any insert that
//!   got past that with 23505, and the group is decided again. READ COMMITTED, no
//!   SERIALIZABLE, no locks held beyond the transaction.
//! - **Many games, one round trip**: appends that arrive together go to the database as one
//!   group, one statement in its own transaction, each game decided on its own (see `batch`).
//! - **Exactly-once by event id, forever**: UNIQUE (game, event_id) on the records table.
//! - **Hash chain**: records are sealed with the same encoding and SHA-256 as sled's, so a
//!   record's hash is the same whichever backend stored it; reads re-seal every row and check
//!   each link and the head row's hash, and damage is `DataLoss` naming game and seq.
//! - **Watch** across instances: NOTIFY at commit as the wake-up, and a poll of the watched
//!   heads every 500 ms as the fallback (see `heads`).
//!
//! The tables stay within what CockroachDB and YugabyteDB also speak (no advisory locks, no
//! triggers); appends need one PL/pgSQL function (see `schema`); LISTEN/NOTIFY is used only
//! where the engine has it. Connections use TLS as the connection string's `sslmode` says
//! (see `tls`).
//!
//! - **Leases**: one instance writes a game at a time; a claim moves the game's epoch and
//!   fences the former writer's appends out (see `lease`).
//!
//! - **Restore**: a whole game written as it was acknowledged elsewhere, hashes unchanged
//!   (`referee store copy`; see `restore`).
//!
//! Not done here (see issue 18): a check of the whole store against an anchor at open (there
//! is no `damage` in [`GameInfo`] from this backend: damage is found as it is read).

mod append;
mod batch;
mod chain;
mod connections;
mod follow;
mod heads;
mod lease;
mod notify;
mod restore;
mod schema;
mod settings;
mod tls;

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::layout::Head;
use super::limits::check_events;
use super::{Appended, Error, GameInfo, Lease, Log, NewEvent, Record, Rejection, Stream, Writable};
use append::{Attempt, Outcome};
use batch::{Committer, KnownHeads};
use connections::Connections;
use heads::Heads;

/// Connections each `PgLog` opens at most (plus one that listens for notifications).
pub const PG_CONNECTIONS: usize = 8;
/// Records checked per read by `verify_all`, so a long game is not loaded whole.
const VERIFY_CHUNK: u64 = 4096;
/// Times a write is decided again after losing a race; the second decision normally settles
/// it (the winner's commit is then visible).
const ATTEMPTS: usize = 4;

/// The PostgreSQL-backed log. Cheap to clone; clones share one pool of connections, and the
/// task that keeps watched heads fresh stops when the last clone is dropped.
#[derive(Clone)]
pub struct PgLog {
    inner: Arc<Inner>,
}

struct Inner {
    /// This instance's name in the lease rows.
    holder: String,
    connections: Arc<Connections>,
    heads: Arc<Heads>,
    /// Each game's head as last seen, what appends are sealed on.
    known: Arc<KnownHeads>,
    committer: Committer,
    keeper: JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.keeper.abort();
    }
}

impl PgLog {
    /// Connects to the database at `url` (a libpq-style connection string or a
    /// `postgres://` URL), checks that it commits durably, and creates the tables if absent.
    /// Must run inside a tokio runtime.
    pub async fn open(url: &str) -> Result<PgLog, Error> {
        PgLog::open_with(url, PG_CONNECTIONS).await
    }

    /// [`open`](PgLog::open) with at most `connections` pooled connections.
    pub async fn open_with(url: &str, connections: usize) -> Result<PgLog, Error> {
        PgLog::open_secured(url, None, connections).await
    }

    /// [`open`](PgLog::open) over TLS as the connection string's `sslmode` says (see
    /// `tls`), checking the server's certificate against the PEM file `ca` if given
    /// (`--store-ca`), with at most `connections` pooled connections.
    pub async fn open_secured(
        url: &str,
        ca: Option<&std::path::Path>,
        connections: usize,
    ) -> Result<PgLog, Error> {
        let (url, tls) = tls::configure(url, ca)?;
        let connections = Connections::new(&url, tls, connections);
        let mut conn = connections.get().await?;
        schema::create(&mut conn).await?;
        conn.release();
        let listener = heads::listen(&connections).await?;
        let known = Arc::new(KnownHeads::default());
        let committer = Committer::start(
            Arc::clone(&connections),
            Arc::clone(&known),
            listener.hears(),
        );
        let heads = Arc::new(Heads::default());
        let keeper = tokio::spawn(heads::keep_fresh(
            Arc::downgrade(&heads),
            Arc::clone(&connections),
            listener,
        ));
        Ok(PgLog {
            inner: Arc::new(Inner {
                holder: lease::holder_name(),
                connections,
                heads,
                known,
                committer,
                keeper,
            }),
        })
    }

    /// An append, checked against `lease` if given, sent with the next group.
    async fn append_with(
        &self,
        game: &str,
        lease: Option<Lease>,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Result<Result<Appended, Rejection>, Error> {
        if let Err(rejection) = check_events(&events) {
            return Ok(Err(rejection));
        }
        let outcome = self
            .inner
            .committer
            .append(game, lease, expected_seq, events)
            .await;
        self.published(&outcome);
        outcome
    }

    /// Remembers a head read from the database, to seal the game's next append on.
    fn saw(&self, game: &str, head: Head) {
        self.inner.known.saw(game, head);
    }

    /// Wakes this instance's watchers of a game at once after its append committed.
    fn published(&self, outcome: &Outcome<Appended>) {
        if let Ok(Ok(appended)) = outcome
            && let Some(last) = appended.records.last()
        {
            self.inner.heads.publish(&last.game, last.seq);
        }
    }

    /// Stores a whole game exactly as its records were acknowledged elsewhere (another store,
    /// a verified audit export): same seqs, times, writers and hashes, so its chain head is
    /// unchanged. One transaction; refused if the game exists or the records are not one
    /// sound chain.
    pub async fn restore(
        &self,
        records: Vec<Record>,
    ) -> Result<Result<GameInfo, Rejection>, Error> {
        let game = records.first().map_or("", |r| r.game.as_str());
        for _ in 0..ATTEMPTS {
            let mut conn = self.inner.connections.get().await?;
            let attempt = restore::restore(&mut conn, &records).await?;
            conn.release();
            if let Attempt::Decided(outcome) = attempt {
                if let Ok(Ok(info)) = &outcome {
                    self.saw(&info.game, head_of_info(info));
                }
                return outcome;
            }
        }
        Err(raced_too_often(game))
    }

    /// Walks every game's whole chain, from the header to the head.
    pub async fn verify_all(&self) -> Result<(), Error> {
        for info in self.games().await? {
            let mut from = 0;
            while from <= info.last_seq {
                let to = info.last_seq.min(from.saturating_add(VERIFY_CHUNK - 1));
                if let Err(rejection) = self.read(&info.game, from, Some(to)).await? {
                    return Err(Error::Storage(rejection.to_string()));
                }
                from = to + 1;
            }
        }
        Ok(())
    }
}

impl PgLog {
    /// Lines every instance on this database shares, of one `kind`: adds `add` (those not
    /// there yet, in their order; a line already there is not added twice) and returns every
    /// line of the kind in the order first written. For the token file's lines and the audit
    /// key, which instances serving one log must agree on (see `access::shared`).
    pub async fn share(&self, kind: &str, add: &[String]) -> Result<Vec<String>, Error> {
        let conn = self.inner.connections.get().await?;
        if !add.is_empty() {
            conn.execute(
                "INSERT INTO referee_shared (kind, line) \
                 SELECT $1, line FROM unnest($2::text[]) WITH ORDINALITY AS u (line, i) \
                 ORDER BY i ON CONFLICT (kind, line) DO NOTHING",
                &[&kind, &add],
            )
            .await
            .map_err(|e| failed("sharing lines", e))?;
        }
        let rows = conn
            .query(
                "SELECT line FROM referee_shared WHERE kind = $1 ORDER BY n",
                &[&kind],
            )
            .await
            .map_err(|e| failed("reading shared lines", e))?;
        conn.release();
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}

impl Log for PgLog {
    /// Creates a game whose seq 0 record is the header. Acknowledged only once committed.
    async fn create(
        &self,
        game: &str,
        header: String,
        writer: &str,
    ) -> Result<Result<Record, Rejection>, Error> {
        for _ in 0..ATTEMPTS {
            let mut conn = self.inner.connections.get().await?;
            let attempt = append::create(&mut conn, game, &header, writer).await?;
            conn.release();
            if let Attempt::Decided(outcome) = attempt {
                if let Ok(Ok(header)) = &outcome {
                    let head = Head {
                        last_seq: 0,
                        hash: header.hash,
                    };
                    self.saw(game, head);
                }
                return outcome;
            }
        }
        Err(raced_too_often(game))
    }

    /// Appends events as seqs expected_seq.. (expected_seq must be last+1), acknowledged only
    /// once committed; an exact retry is acknowledged again with the originals.
    async fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Result<Result<Appended, Rejection>, Error> {
        self.append_with(game, None, expected_seq, events).await
    }

    fn shared(&self) -> bool {
        true
    }

    fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<(String, u64)>> {
        Some(self.inner.heads.changes())
    }

    fn head(&self, game: &str) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.inner.heads.subscribe(game, 0))
    }

    async fn claim(&self, game: &str) -> Result<Result<Lease, Rejection>, Error> {
        let conn = self.inner.connections.get().await?;
        let claimed = lease::claim(&conn, game, &self.inner.holder).await?;
        conn.release();
        Ok(claimed)
    }

    async fn append_leased(
        &self,
        game: &str,
        lease: Lease,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> Result<Result<Appended, Rejection>, Error> {
        self.append_with(game, Some(lease), expected_seq, events)
            .await
    }

    /// Records with from <= seq <= to (to = None: up to the head), verified against the chain.
    async fn read(
        &self,
        game: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<Result<Vec<Record>, Rejection>, Error> {
        let conn = self.inner.connections.get().await?;
        let Some(head) = chain::head(&*conn, game).await? else {
            conn.release();
            return Ok(Err(Rejection::unknown_game(game)));
        };
        self.saw(game, head);
        let to = to.map_or(head.last_seq, |to| to.min(head.last_seq));
        if from > to {
            conn.release();
            return Ok(Ok(Vec::new()));
        }
        let records = chain::read(&*conn, game, from, to, &head).await?;
        conn.release();
        Ok(Ok(records))
    }

    /// The game's head, or `None` if there is no such game.
    async fn info(&self, game: &str) -> Result<Option<GameInfo>, Error> {
        let conn = self.inner.connections.get().await?;
        let row = conn
            .query_opt(&format!("{GAMES} WHERE g.game = $1"), &[&game])
            .await
            .map_err(|e| failed("reading a game", e))?;
        conn.release();
        let info = row.map(|row| game_info(&row)).transpose()?;
        if let Some(info) = &info {
            self.saw(game, head_of_info(info));
        }
        Ok(info)
    }

    /// Every game, in creation order.
    async fn games(&self) -> Result<Vec<GameInfo>, Error> {
        let conn = self.inner.connections.get().await?;
        let rows = conn
            .query(&format!("{GAMES} ORDER BY g.number"), &[])
            .await
            .map_err(|e| failed("listing games", e))?;
        conn.release();
        rows.iter().map(game_info).collect()
    }

    /// Whether the database takes writes now (a recent probe): any stop is for now only, as
    /// a failover or a restart of the database passes by itself.
    async fn writable(&self) -> Writable {
        match self.inner.connections.probe().await {
            Ok(()) => Writable::Yes,
            Err(why) => Writable::ForNow(why),
        }
    }

    /// Records from `from` on: first those already stored, then each new one as it is
    /// committed by this instance or another on the same database. Many watchers per game.
    async fn watch(
        &self,
        game: &str,
        from: u64,
    ) -> Result<Result<impl Stream<Item = Result<Record, Error>> + Send + 'static, Rejection>, Error>
    {
        let conn = self.inner.connections.get().await?;
        let head = chain::head(&*conn, game).await?;
        conn.release();
        let Some(head) = head else {
            return Ok(Err(Rejection::unknown_game(game)));
        };
        let heads = self.inner.heads.subscribe(game, head.last_seq);
        let connections = Arc::clone(&self.inner.connections);
        Ok(Ok(follow::start(connections, game, from, heads)))
    }
}

/// A game's directory row joined with its head row.
const GAMES: &str = "SELECT g.game, g.created_ms, h.last_seq, h.head_hash \
                     FROM referee_games g JOIN referee_heads h ON h.game = g.game";

fn game_info(row: &tokio_postgres::Row) -> Result<GameInfo, Error> {
    let game: String = row.get(0);
    let created_ms = u64::try_from(row.get::<_, i64>(1))
        .map_err(|_| chain::loss(&game, 0, "negative creation time"))?;
    let head = chain::head_of(&game, row.get(2), row.get(3))?;
    Ok(GameInfo {
        game,
        last_seq: head.last_seq,
        head_hash: head.hash,
        created_ms,
        damage: None,
    })
}

/// A COMMIT that failed without the server deciding it (a conflict is decided elsewhere):
/// the outcome is unknown, and the classification says whether a retry is the cure.
pub(super) fn commit_failed(e: tokio_postgres::Error) -> Error {
    let text = format!(
        "postgres: COMMIT failed ({}), so the write may or may not be stored",
        described(&e)
    );
    match failure(&e) {
        Failure::Temporary => Error::Unavailable(text),
        Failure::NoSpace => Error::NoSpace(text),
        Failure::Other => Error::Storage(text),
    }
}

fn head_of_info(info: &GameInfo) -> Head {
    Head {
        last_seq: info.last_seq,
        hash: info.head_hash,
    }
}

/// Contention that outlasted every attempt: nothing was stored, and a retry later is right.
fn raced_too_often(game: &str) -> Error {
    Error::Unavailable(format!(
        "postgres: a write to game {game:?} lost {ATTEMPTS} races in a row to other writers; \
         nothing was stored: retry it"
    ))
}

/// A driver error as the log's: the operation that failed and what the server said.
pub(super) fn failed(doing: &str, e: tokio_postgres::Error) -> Error {
    let text = format!("postgres: {doing}: {}", described(&e));
    match failure(&e) {
        Failure::Temporary => Error::Unavailable(text),
        Failure::NoSpace => Error::NoSpace(text),
        Failure::Other => Error::Storage(text),
    }
}

/// A database error in the server's own words ("db error" alone says nothing): its message
/// and SQLSTATE, else tokio-postgres' text with its cause.
fn described(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} (SQLSTATE {})", db.message(), db.code().code());
    }
    match std::error::Error::source(e) {
        Some(cause) if !e.to_string().contains(&cause.to_string()) => format!("{e}: {cause}"),
        _ => e.to_string(),
    }
}

/// What kind of failure a database error is, for the status a client is given.
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    /// The database cannot be reached for now or is changing primary: retry.
    Temporary,
    /// The database's disk is full.
    NoSpace,
    /// Anything else.
    Other,
}

fn failure(e: &tokio_postgres::Error) -> Failure {
    use tokio_postgres::error::SqlState;
    let Some(db) = e.as_db_error() else {
        // No answer from the server: the connection was refused, broke or closed (a restart,
        // a failover, the network) — temporary. Anything else (a bad password, a value that
        // does not convert) is not.
        let io = std::error::Error::source(e).is_some_and(|cause| cause.is::<std::io::Error>());
        return if e.is_closed() || io {
            Failure::Temporary
        } else {
            Failure::Other
        };
    };
    let code = db.code();
    if *code == SqlState::DISK_FULL {
        return Failure::NoSpace;
    }
    let temporary = [
        SqlState::ADMIN_SHUTDOWN,
        SqlState::CRASH_SHUTDOWN,
        SqlState::CANNOT_CONNECT_NOW,
        // Still connected to a node that was demoted, or to a standby.
        SqlState::READ_ONLY_SQL_TRANSACTION,
        SqlState::TOO_MANY_CONNECTIONS,
        SqlState::T_R_SERIALIZATION_FAILURE,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::QUERY_CANCELED,
        SqlState::IDLE_SESSION_TIMEOUT,
    ];
    // Class 08: connection exception.
    if temporary.contains(code) || code.code().starts_with("08") {
        Failure::Temporary
    } else {
        Failure::Other
    }
}

/// A seq or a time as PostgreSQL's BIGINT.
pub(super) fn to_i64(n: u64) -> Result<i64, Error> {
    i64::try_from(n).map_err(|_| Error::Storage(format!("{n} does not fit a BIGINT column")))
}
