//! A game's records read back from the tables, each checked before it is served: its stored
//! hash must equal re-sealing its fields with record.rs (the same bytes sled stores), each
//! `prev_hash` must be its predecessor's hash, and a range that reaches the head must end on
//! the head row's hash. Damage is `Error::DataLoss` naming the game and seq, with sled's words.

use tokio_postgres::{GenericClient, Row};

use super::super::layout::Head;
use super::super::record::{self, HASH_LEN, Unsealed, ZERO_HASH};
use super::super::{Error, Record};
use super::{failed, to_i64};

/// The columns of a record row, in the order [`from_row`] reads them.
pub(super) const COLUMNS: &str = "seq, event_id, received_ms, writer, body, prev_hash, hash";

/// A game's head row, or `None` if there is no such game.
pub(super) async fn head(client: &impl GenericClient, game: &str) -> Result<Option<Head>, Error> {
    let row = client
        .query_opt(
            "SELECT last_seq, head_hash FROM referee_heads WHERE game = $1",
            &[&game],
        )
        .await
        .map_err(|e| failed("reading a game's head", e))?;
    row.map(|row| head_of(game, row.get(0), row.get(1)))
        .transpose()
}

/// A head row's fields; damage there is data loss at the head's seq (or 0 if unreadable).
pub(super) fn head_of(game: &str, last_seq: i64, hash: &[u8]) -> Result<Head, Error> {
    let last_seq = u64::try_from(last_seq).map_err(|_| loss(game, 0, "head seq is negative"))?;
    let hash = hash_of(hash).map_err(|d| loss(game, last_seq, d))?;
    Ok(Head { last_seq, hash })
}

/// Records `from..=to` of a game whose head is `head`, where `to <= head.last_seq`. Like
/// sled's chain, also reads the neighbours just outside the range (from-1 and to+1) so the
/// range is chained at both ends.
pub(super) async fn read(
    client: &impl GenericClient,
    game: &str,
    from: u64,
    to: u64,
    head: &Head,
) -> Result<Vec<Record>, Error> {
    let lo = from.saturating_sub(1);
    let hi = if to < head.last_seq { to + 1 } else { to };
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM referee_records \
                 WHERE game = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq"
            ),
            &[&game, &to_i64(lo)?, &to_i64(hi)?],
        )
        .await
        .map_err(|e| failed("reading records", e))?;
    let mut walk = Walk {
        game,
        next_seq: lo,
        prev: (lo == 0).then_some(ZERO_HASH),
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let record = walk.step(row)?;
        if (from..=to).contains(&record.seq) {
            out.push(record);
        }
    }
    walk.finish(hi, head)?;
    Ok(out)
}

/// A record row as a [`Record`], checked against its own hash (not yet against the chain).
pub(super) fn from_row(game: &str, row: &Row) -> Result<Record, Error> {
    let seq = u64::try_from(row.get::<_, i64>(0)).map_err(|_| loss(game, 0, "negative seq"))?;
    let received_ms = u64::try_from(row.get::<_, i64>(2))
        .map_err(|_| loss(game, seq, "negative received time"))?;
    let prev_hash = hash_of(row.get(5)).map_err(|d| loss(game, seq, d))?;
    let hash = hash_of(row.get(6)).map_err(|d| loss(game, seq, d))?;
    let unsealed = Unsealed {
        game,
        seq,
        event_id: row.get(1),
        received_ms,
        writer: row.get(3),
        body: row.get(4),
        prev_hash,
    };
    let (_, record) = unsealed.seal().map_err(|d| loss(game, seq, d))?;
    if record.hash != hash {
        return Err(loss(game, seq, "record hash does not match its contents"));
    }
    Ok(record)
}

fn hash_of(bytes: &[u8]) -> Result<[u8; HASH_LEN], String> {
    bytes
        .try_into()
        .map_err(|_| format!("stored hash is {} bytes, not {HASH_LEN}", bytes.len()))
}

/// Progress along the chain: the seq due next and the hash it must point back to (unknown
/// when the walk starts mid-chain).
struct Walk<'a> {
    game: &'a str,
    next_seq: u64,
    prev: Option<[u8; HASH_LEN]>,
}

impl Walk<'_> {
    fn step(&mut self, row: &Row) -> Result<Record, Error> {
        let record = from_row(self.game, row)?;
        if record.seq != self.next_seq {
            return Err(loss(self.game, self.next_seq, "record is missing"));
        }
        if let Some(prev) = &self.prev {
            record::check_link(prev, &record).map_err(|d| loss(self.game, record.seq, d))?;
        }
        self.prev = Some(record.hash);
        self.next_seq += 1;
        Ok(record)
    }

    /// Every seq up to `hi` was seen, and the last one matches the head if it is the head.
    fn finish(&self, hi: u64, head: &Head) -> Result<(), Error> {
        if self.next_seq <= hi {
            return Err(loss(self.game, self.next_seq, "record is missing"));
        }
        if hi == head.last_seq && self.prev != Some(head.hash) {
            return Err(loss(
                self.game,
                hi,
                "last record does not match the game's head hash",
            ));
        }
        Ok(())
    }
}

pub(super) fn loss(game: &str, seq: u64, detail: impl Into<String>) -> Error {
    Error::DataLoss {
        game: game.to_owned(),
        seq,
        detail: detail.into(),
    }
}
