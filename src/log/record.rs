//! The stored form of a [`Record`] and its hash chain.
//!
//! A stored value is `encoding || sha256(encoding)`, where the encoding is
//! `version u8, seq u64, received_ms u64, prev_hash [32], then game, event_id, writer, body`
//! each as `u32 length + UTF-8 bytes` (all integers big-endian). Keeping the hash beside the
//! bytes localises a bit flip to its own record; `prev_hash` inside the encoding chains every
//! record to its predecessor, so a record replaced whole is caught by its successor or the head.

use sha2::{Digest, Sha256};

use super::Record;
use super::limits::check_body;

/// Length of a SHA-256 hash.
pub const HASH_LEN: usize = 32;
/// `prev_hash` of a game's header record (seq 0): it has no predecessor.
pub const ZERO_HASH: [u8; HASH_LEN] = [0; HASH_LEN];
/// Bumped if the encoding ever changes; old records keep decoding by their own version.
const VERSION: u8 = 1;

/// The fields of a record before it is sealed with its hash.
pub(super) struct Unsealed<'a> {
    pub game: &'a str,
    pub seq: u64,
    pub event_id: &'a str,
    pub received_ms: u64,
    pub writer: &'a str,
    pub body: &'a str,
    pub prev_hash: [u8; HASH_LEN],
}

impl Unsealed<'_> {
    /// Encodes and hashes the record: the value to store, and the record it decodes to.
    /// Fails only for a field over 4 GiB, which validation keeps far away.
    pub fn seal(&self) -> Result<(Vec<u8>, Record), String> {
        let mut bytes = vec![VERSION];
        bytes.extend_from_slice(&self.seq.to_be_bytes());
        bytes.extend_from_slice(&self.received_ms.to_be_bytes());
        bytes.extend_from_slice(&self.prev_hash);
        for field in [self.game, self.event_id, self.writer, self.body] {
            put_str(&mut bytes, field)?;
        }
        let hash = sha256(&bytes);
        bytes.extend_from_slice(&hash);
        Ok((bytes, self.to_record(hash)))
    }

    fn to_record(&self, hash: [u8; HASH_LEN]) -> Record {
        Record {
            game: self.game.to_owned(),
            seq: self.seq,
            event_id: self.event_id.to_owned(),
            received_ms: self.received_ms,
            writer: self.writer.to_owned(),
            body: self.body.to_owned(),
            prev_hash: self.prev_hash,
            hash,
        }
    }
}

fn put_str(out: &mut Vec<u8>, field: &str) -> Result<(), String> {
    let len = u32::try_from(field.len()).map_err(|_| "record field over 4 GiB".to_owned())?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(field.as_bytes());
    Ok(())
}

fn sha256(bytes: &[u8]) -> [u8; HASH_LEN] {
    Sha256::digest(bytes).into()
}

/// Decodes a stored value found under `(game, seq)`, checking its own hash and that it really
/// is that game's record at that seq. The error says what is wrong, for `Error::DataLoss`.
pub(super) fn open(game: &str, seq: u64, stored: &[u8]) -> Result<Record, String> {
    let split = stored
        .len()
        .checked_sub(HASH_LEN)
        .ok_or("record is truncated")?;
    let (bytes, hash) = stored.split_at(split);
    let hash: [u8; HASH_LEN] = hash.try_into().map_err(|_| "record is truncated")?;
    if sha256(bytes) != hash {
        return Err("record hash does not match its contents".into());
    }
    let record = decode(bytes, hash)?;
    if record.game != game || record.seq != seq {
        return Err(format!(
            "found record seq {} of game {:?} in its place",
            record.seq, record.game
        ));
    }
    Ok(record)
}

fn decode(bytes: &[u8], hash: [u8; HASH_LEN]) -> Result<Record, String> {
    let mut r = Cursor(bytes);
    let version = r.take::<1>()?[0];
    if version != VERSION {
        return Err(format!("unknown record version {version}"));
    }
    let seq = u64::from_be_bytes(r.take()?);
    let received_ms = u64::from_be_bytes(r.take()?);
    let prev_hash = r.take()?;
    let (game, event_id, writer, body) = (r.string()?, r.string()?, r.string()?, r.string()?);
    if !r.0.is_empty() {
        return Err("record has trailing bytes".into());
    }
    Ok(Record {
        game,
        seq,
        event_id,
        received_ms,
        writer,
        body,
        prev_hash,
        hash,
    })
}

/// Reads an encoding front to back; every read says "record is truncated" if it runs out.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let (head, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or("record is truncated")?;
        self.0 = rest;
        Ok(*head)
    }

    fn string(&mut self) -> Result<String, String> {
        let len = u32::from_be_bytes(self.take()?);
        let len = usize::try_from(len).map_err(|_| "record field too long")?;
        if self.0.len() < len {
            return Err("record is truncated".into());
        }
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8(text.to_vec()).map_err(|_| "record field is not UTF-8".into())
    }
}

/// The stored values of a whole game's records, or the index of the first record that does
/// not belong to a sound chain and why.
pub(super) fn sealed_chain(records: &[Record]) -> Result<Vec<Vec<u8>>, (usize, String)> {
    let mut values = Vec::with_capacity(records.len());
    let mut prev = ZERO_HASH;
    for (index, record) in records.iter().enumerate() {
        let fail = |why: String| (index, why);
        if record.seq != u64::try_from(index).unwrap_or(u64::MAX) {
            return Err(fail(format!(
                "seq {} where seq {index} should be",
                record.seq
            )));
        }
        if record.game != records[0].game || record.prev_hash != prev {
            return Err(fail(format!(
                "seq {} does not chain to seq {index} - 1",
                record.seq
            )));
        }
        if index > 0 && (record.event_id.is_empty() || check_body(index, &record.body).is_err()) {
            return Err(fail(format!(
                "seq {} has no event id or an unstorable body",
                record.seq
            )));
        }
        let unsealed = Unsealed {
            game: &record.game,
            seq: record.seq,
            event_id: &record.event_id,
            received_ms: record.received_ms,
            writer: &record.writer,
            body: &record.body,
            prev_hash: record.prev_hash,
        };
        let (value, sealed) = unsealed.seal().map_err(fail)?;
        if sealed.hash != record.hash {
            return Err(fail(format!(
                "seq {} does not hash to its recorded hash",
                record.seq
            )));
        }
        prev = record.hash;
        values.push(value);
    }
    Ok(values)
}

/// Checks that `record` follows a record whose hash is `prev`: the link of the chain.
pub(super) fn check_link(prev: &[u8; HASH_LEN], record: &Record) -> Result<(), String> {
    if &record.prev_hash == prev {
        return Ok(());
    }
    Err(match record.seq {
        0 => "header record has a predecessor hash".to_owned(),
        n => format!("chain broken: prev hash does not match record {}", n - 1),
    })
}

impl Record {
    /// Recomputes this record's hash from its fields, as the store seals it: what an auditor
    /// compares with `hash` to prove the record was not altered.
    pub fn computed_hash(&self) -> Result<[u8; HASH_LEN], String> {
        let unsealed = Unsealed {
            game: &self.game,
            seq: self.seq,
            event_id: &self.event_id,
            received_ms: self.received_ms,
            writer: &self.writer,
            body: &self.body,
            prev_hash: self.prev_hash,
        };
        let (_, sealed) = unsealed.seal()?;
        Ok(sealed.hash)
    }
}
