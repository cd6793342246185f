//! The append-only event log: every event a board reports, per game, in order, durable
//! before it is acknowledged, and hash-chained so damage is found rather than served.
//!
//! [`Log`] is what the service codes against; [`SledLog`] is the embedded implementation, and
//! [`PgLog`] keeps the log in PostgreSQL for several instances on one database. Every call
//! that may wait on storage is async, reads and watches included, so that a backend across the
//! network never blocks a tokio worker on a round trip.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use referee::log::{Log, NewEvent, SledLog};
//! let log = SledLog::open(std::path::Path::new("/var/lib/referee/log"))?;
//! log.create("r3-b12", r#"{"game":"xiangqi"}"#.into(), "cli").await??;
//! let event = NewEvent {
//!     event_id: "e1".into(),
//!     body: r#"{"moved":"h2e2"}"#.into(),
//!     writer: "cli".into(),
//! };
//! let appended = log.append("r3-b12", 1, vec![event]).await??;
//! assert_eq!(appended.records[0].seq, 1);
//! let records = log.read("r3-b12", 0, None).await??;
//! assert_eq!(records[1], appended.records[0]);
//! assert_eq!(log.info("r3-b12").await?.map(|i| i.last_seq), Some(1));
//! # Ok(()) }
//! ```

mod anchor;
mod chain;
mod disk;
mod error;
mod group_commit;
mod layout;
mod limits;
mod lock;
mod postgres;
mod record;
mod recovery;
mod sled_log;
mod watch;

#[cfg(test)]
mod tests;

use std::future::Future;

pub use tokio_stream::Stream;

pub use anchor::{ANCHOR_FILE, acknowledged};
pub use disk::{Durability, Fdatasync};
pub use error::{Error, Rejection};
pub use lock::in_use;

/// Whether a log takes writes now: what health reports, with the reason an operator reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writable {
    /// Writes are taken.
    Yes,
    /// Not now, but it may pass by itself (a database failing over or unreachable, its disk
    /// full): health follows it back to SERVING without a restart.
    ForNow(String),
    /// Not until the service restarts (sled's writer stopped after a failed commit); the
    /// text says why and what to do.
    UntilRestart(String),
}
pub use group_commit::CommitStats;
pub use postgres::{PG_CONNECTIONS, PgLog};
pub use record::{HASH_LEN, ZERO_HASH};
pub use recovery::Trust;
pub use sled_log::SledLog;

/// Longest game id, in bytes.
pub const MAX_GAME_ID_BYTES: usize = 128;
/// Longest event id, in bytes.
pub const MAX_EVENT_ID_BYTES: usize = 128;
/// Longest event body (or header), in bytes: far above any board event, far below the size
/// at which sled stores values as separate blob files.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// An event as a client submits it, before the log gives it a seq.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    /// The client's idempotency key: unique within its game.
    pub event_id: String,
    /// The event's canonical JSON line, without a newline.
    pub body: String,
    /// Who wrote it, e.g. a token id or "cli".
    pub writer: String,
}

/// One stored event (or, at seq 0, the game's header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The game id.
    pub game: String,
    /// Position in the game's log; 0 is the header, events start at 1.
    pub seq: u64,
    /// The client's event id; empty for the header.
    pub event_id: String,
    /// Server clock when the log accepted it, unix ms.
    pub received_ms: u64,
    /// Who wrote it.
    pub writer: String,
    /// The event's JSON line (the header's, at seq 0).
    pub body: String,
    /// `hash` of the record at `seq - 1`; [`ZERO_HASH`] for the header.
    pub prev_hash: [u8; HASH_LEN],
    /// SHA-256 of the encoded record, `prev_hash` included.
    pub hash: [u8; HASH_LEN],
}

/// The answer to a successful append.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Appended {
    /// The request's events as stored, in request order.
    pub records: Vec<Record>,
    /// True when the request was a retry of events already stored: `records` are the
    /// originals and nothing was added.
    pub duplicate: bool,
}

/// A game's place in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameInfo {
    /// The game id.
    pub game: String,
    /// Seq of the last durable record (0: only the header).
    pub last_seq: u64,
    /// Hash of that record.
    pub head_hash: [u8; HASH_LEN],
    /// When the game was created, unix ms (0 if unknown: a damaged game).
    pub created_ms: u64,
    /// Set when the game was found damaged at open: what is wrong. `last_seq` and
    /// `head_hash` are then what was acknowledged; reads of the game fail with `DataLoss`.
    pub damage: Option<String>,
}

/// A claim on writing a game, from [`Log::claim`]: while it is the game's newest claim, this
/// instance's [`Log::append_leased`] succeeds and no earlier claimant's does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    /// Increases with every claim of the game; 0 from a log that only one process can open.
    pub epoch: u64,
}

/// The server clock, unix ms: what the log stamps as a record's receive or creation time.
pub(crate) fn now_ms() -> u64 {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX)
}

/// An append-only, per-game event log. Outer `Err` is a disaster ([`Error`]); inner `Err` is
/// an expected refusal ([`Rejection`]) that left the log unchanged. There is no way to change
/// or delete a record.
pub trait Log: Clone + Send + Sync + 'static {
    /// Creates a game whose seq 0 record is the header (body = header JSON line).
    /// Acknowledged only once durable.
    fn create(
        &self,
        game: &str,
        header: String,
        writer: &str,
    ) -> impl Future<Output = Result<Result<Record, Rejection>, Error>> + Send;

    /// Appends events as seqs expected_seq.. (expected_seq must be last+1). Acknowledged only
    /// once durable. A retry with the same event ids and bodies is acknowledged again with the
    /// original records and `duplicate: true`.
    fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> impl Future<Output = Result<Result<Appended, Rejection>, Error>> + Send;

    /// Whether other processes may append to this log too (several instances on one
    /// database): then a game cached in memory can fall behind the log, and appends go
    /// through [`claim`](Log::claim) and [`append_leased`](Log::append_leased).
    fn shared(&self) -> bool {
        false
    }

    /// On a shared log, every game's new last seq as this process learns of it, whichever
    /// instance appended (a wake-up, not the record: read it). Lossy: a receiver that lags
    /// misses some and must catch up from the log. `None` for a log only this process writes.
    fn changes(&self) -> Option<tokio::sync::broadcast::Receiver<(String, u64)>> {
        None
    }

    /// On a shared log, one game's last seq as this process learns of it, whichever instance
    /// appended: kept fresh by notifications and a poll while the receiver lives (within
    /// half a second). `None` for a log only this process writes.
    fn head(&self, _game: &str) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }

    /// Takes the game's lease for this instance, ending any other instance's: its next leased
    /// append is refused with [`Rejection::Fenced`]. A log only one process opens (sled)
    /// has nothing to fence and returns epoch 0.
    fn claim(
        &self,
        game: &str,
    ) -> impl Future<Output = Result<Result<Lease, Rejection>, Error>> + Send {
        let _ = game;
        std::future::ready(Ok(Ok(Lease { epoch: 0 })))
    }

    /// [`append`](Log::append), checked in the same transaction against `lease`: refused
    /// with [`Rejection::Fenced`], nothing written, if another instance claimed the game since.
    fn append_leased(
        &self,
        game: &str,
        lease: Lease,
        expected_seq: u64,
        events: Vec<NewEvent>,
    ) -> impl Future<Output = Result<Result<Appended, Rejection>, Error>> + Send {
        let _ = lease;
        self.append(game, expected_seq, events)
    }

    /// Records with from <= seq <= to (to = None: up to the head), verified against the chain.
    fn read(
        &self,
        game: &str,
        from: u64,
        to: Option<u64>,
    ) -> impl Future<Output = Result<Result<Vec<Record>, Rejection>, Error>> + Send;

    /// The game's head, or `None` if there is no such game.
    fn info(&self, game: &str) -> impl Future<Output = Result<Option<GameInfo>, Error>> + Send;

    /// Every game, in creation order.
    fn games(&self) -> impl Future<Output = Result<Vec<GameInfo>, Error>> + Send;

    /// Whether the log takes writes now, as health reports it. Cheap enough to ask a few
    /// times a second (a backend across the network answers from a recent probe).
    fn writable(&self) -> impl Future<Output = Writable> + Send;

    /// Records from `from` on: first those already stored, then each new one as it is
    /// appended; ends only on error or drop. Many watchers per game.
    #[allow(clippy::type_complexity)]
    fn watch(
        &self,
        game: &str,
        from: u64,
    ) -> impl Future<
        Output = Result<
            Result<impl Stream<Item = Result<Record, Error>> + Send + 'static, Rejection>,
            Error,
        >,
    > + Send;
}
