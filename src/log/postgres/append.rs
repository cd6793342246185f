//! Creating a game in ONE transaction at PostgreSQL's default READ COMMITTED, answered only
//! after COMMIT returned, and what appends share with it: records sealed with record.rs (byte
//! for byte what sled stores and hashes), inserted many per statement, and the retry rule.
//! Appends themselves are decided and written in groups by `batch`.
//!
//! - A race lost on a unique key (another instance created the game, inserted the seq or the
//!   event id first) fails with SQLSTATE 23505; the transaction is rolled back and the request
//!   decided again.
//! - An ack rests on COMMIT having returned under the settings `settings` checks (the WAL is
//!   flushed first). If COMMIT fails without the server saying why (the connection broke), the
//!   outcome is unknown: that is an `Error`, never an ack; a retry by event id settles it.

use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Transaction};

use super::super::layout::Head;
use super::super::limits::{check_body, check_new_game_id};
use super::super::record::{HASH_LEN, Unsealed, ZERO_HASH};
use super::super::{Appended, Error, NewEvent, Record, Rejection, now_ms};
use super::chain;
use super::{failed, to_i64};

/// A request's outcome: as `Log` answers it.
pub(super) type Outcome<T> = Result<Result<T, Rejection>, Error>;

/// What one attempt came to: an outcome, or a race lost to another writer (decide again).
pub(super) enum Attempt<T> {
    Decided(Outcome<T>),
    Raced,
}

/// Creates a game: its directory row, its header record at seq 0 and its head, together.
pub(super) async fn create(
    client: &mut Client,
    game: &str,
    header: &str,
    writer: &str,
) -> Result<Attempt<Record>, Error> {
    if let Err(rejection) = check_new_game_id(game).and_then(|()| check_body(0, header)) {
        return Ok(Attempt::Decided(Ok(Err(rejection))));
    }
    let tx = begin(client).await?;
    if chain::head(&tx, game).await?.is_some() {
        return Ok(Attempt::Decided(Ok(Err(exists(game)))));
    }
    let created_ms = now_ms();
    let record = seal(game, 0, "", created_ms, writer, header, ZERO_HASH)?;
    let inserted = tx
        .execute(
            "INSERT INTO referee_games (game, created_ms) VALUES ($1, $2)",
            &[&game, &to_i64(created_ms)?],
        )
        .await;
    if let Err(e) = inserted {
        // Another instance created it since we looked: game ids are taken forever.
        if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            return Ok(Attempt::Decided(Ok(Err(exists(game)))));
        }
        return raced_or(e, "creating a game").map(|()| Attempt::Raced);
    }
    if let Some(raced) = insert(&tx, std::slice::from_ref(&record)).await? {
        return Ok(raced);
    }
    tx.execute(
        "INSERT INTO referee_heads (game, last_seq, head_hash) VALUES ($1, 0, $2)",
        &[&game, &record.hash.as_slice()],
    )
    .await
    .map_err(|e| failed("creating a game's head", e))?;
    if let Some(raced) = commit(tx).await? {
        return Ok(raced);
    }
    Ok(Attempt::Decided(Ok(Ok(record))))
}

/// Inserts sealed records in one statement; `Some(Raced)` if another writer took a seq or
/// an event id first.
pub(super) async fn insert<T>(
    tx: &Transaction<'_>,
    records: &[Record],
) -> Result<Option<Attempt<T>>, Error> {
    for chunk in records.chunks(INSERT_ROWS) {
        let rows = Rows::of(chunk)?;
        if let Err(e) = tx.execute(&rows.statement(), &rows.params()).await {
            return raced_or(e, "inserting records").map(|()| Some(Attempt::Raced));
        }
    }
    Ok(None)
}

/// Most rows per INSERT statement: 8 parameters each, far below PostgreSQL's 65,535.
const INSERT_ROWS: usize = 500;

/// One INSERT of many records: its parameters, column by column per row.
struct Rows<'a> {
    records: &'a [Record],
    /// Per record: seq, received_ms, prev_hash, hash, as the driver takes them.
    columns: Vec<(i64, i64, &'a [u8], &'a [u8])>,
}

impl<'a> Rows<'a> {
    fn of(records: &'a [Record]) -> Result<Rows<'a>, Error> {
        let columns = records
            .iter()
            .map(|r| {
                let (seq, received_ms) = (to_i64(r.seq)?, to_i64(r.received_ms)?);
                Ok((seq, received_ms, r.prev_hash.as_slice(), r.hash.as_slice()))
            })
            .collect::<Result<_, Error>>()?;
        Ok(Rows { records, columns })
    }

    fn statement(&self) -> String {
        let rows: Vec<String> = (0..self.records.len())
            .map(|row| {
                let values: Vec<String> = (1..=8).map(|i| format!("${}", row * 8 + i)).collect();
                format!("({})", values.join(","))
            })
            .collect();
        format!(
            "INSERT INTO referee_records (game, seq, event_id, received_ms, writer, body, \
             prev_hash, hash) VALUES {}",
            rows.join(",")
        )
    }

    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(self.records.len() * 8);
        for (r, (seq, received_ms, prev_hash, hash)) in self.records.iter().zip(&self.columns) {
            params.extend([
                &r.game as &(dyn ToSql + Sync),
                seq,
                &r.event_id,
                received_ms,
                &r.writer,
                &r.body,
                prev_hash,
                hash,
            ]);
        }
        params
    }
}

/// The events sealed onto the chain after `head`, one receive time for the request.
pub(super) fn chained(game: &str, head: Head, events: &[NewEvent]) -> Result<Vec<Record>, Error> {
    let received_ms = now_ms();
    let mut prev = head;
    let mut records = Vec::with_capacity(events.len());
    for event in events {
        let seq = prev.last_seq + 1;
        let record = seal(
            game,
            seq,
            &event.event_id,
            received_ms,
            &event.writer,
            &event.body,
            prev.hash,
        )?;
        prev = Head {
            last_seq: seq,
            hash: record.hash,
        };
        records.push(record);
    }
    Ok(records)
}

fn seal(
    game: &str,
    seq: u64,
    event_id: &str,
    received_ms: u64,
    writer: &str,
    body: &str,
    prev_hash: [u8; HASH_LEN],
) -> Result<Record, Error> {
    let unsealed = Unsealed {
        game,
        seq,
        event_id,
        received_ms,
        writer,
        body,
        prev_hash,
    };
    Ok(unsealed.seal().map_err(Error::Storage)?.1)
}

/// Sled's rule: all ids stored with the same bodies is a retry; anything else stored is a
/// reuse, named by the request's first stored event (or the first whose body differs).
pub(super) fn match_retry(
    game: &str,
    events: &[NewEvent],
    mut stored: Vec<Record>,
) -> Option<Result<Appended, Rejection>> {
    let first = events
        .iter()
        .find_map(|e| stored.iter().find(|r| r.event_id == e.event_id))?;
    if stored.len() < events.len() {
        return Some(Err(reused(game, &first.event_id, first.seq)));
    }
    let mut originals = Vec::with_capacity(events.len());
    for event in events {
        let at = stored.iter().position(|r| r.event_id == event.event_id)?;
        let original = stored.swap_remove(at);
        if original.body != event.body {
            return Some(Err(reused(game, &event.event_id, original.seq)));
        }
        originals.push(original);
    }
    Some(Ok(Appended {
        records: originals,
        duplicate: true,
    }))
}

fn reused(game: &str, event_id: &str, seq: u64) -> Rejection {
    Rejection::EventIdReused {
        game: game.to_owned(),
        event_id: event_id.to_owned(),
        seq,
    }
}

pub(super) async fn begin(client: &mut Client) -> Result<Transaction<'_>, Error> {
    client
        .transaction()
        .await
        .map_err(|e| failed("starting a transaction", e))
}

/// Commits. `Some(Raced)` if the server refused the commit as a conflict (engines that
/// serialise, e.g. CockroachDB's 40001: nothing was stored); any other failure leaves the
/// outcome unknown, an error.
pub(super) async fn commit<T>(tx: Transaction<'_>) -> Result<Option<Attempt<T>>, Error> {
    match tx.commit().await {
        Ok(()) => Ok(None),
        Err(e) if e.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE) => {
            Ok(Some(Attempt::Raced))
        }
        Err(e) => Err(super::commit_failed(e)),
    }
}

/// `Ok(())` if `e` is a race lost to another writer (a unique key taken, a serialisation
/// conflict), to decide again; otherwise the error.
pub(super) fn raced_or(e: tokio_postgres::Error, doing: &str) -> Result<(), Error> {
    let raced = [
        SqlState::UNIQUE_VIOLATION,
        SqlState::T_R_SERIALIZATION_FAILURE,
        SqlState::T_R_DEADLOCK_DETECTED,
    ];
    match e.code() {
        Some(code) if raced.contains(code) => Ok(()),
        _ => Err(failed(doing, e)),
    }
}

pub(super) fn exists(game: &str) -> Rejection {
    Rejection::GameExists {
        game: game.to_owned(),
    }
}
