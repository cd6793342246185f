//! Where things live in the log's one sled tree. Everything shares one tree so a single
//! `sled::Batch` commits records, id index, heads and directory atomically; a one-byte prefix
//! keeps the kinds apart. Numbers are big-endian so key order is numeric order: a game's
//! records iterate in seq order.

use super::record::HASH_LEN;

/// `d` + game id -> [`DirEntry`]: the game directory, id to number.
pub(super) const DIRECTORY: u8 = b'd';
/// `e` + game number + seq -> an encoded record.
const EVENT: u8 = b'e';
/// `h` + game number -> [`Head`].
const HEAD: u8 = b'h';
/// `i` + game number + event id -> seq of the record carrying that id.
const EVENT_ID: u8 = b'i';

/// Present once the store has an anchor (`anchor.log`), so that a removed anchor is noticed
/// rather than taken for a store that never had one.
pub(super) const ANCHORED: &[u8] = b"anchored";

/// A game's last seq and the hash of its last record, stored in the same batch as the record
/// so that damage to the last record is caught too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Head {
    pub last_seq: u64,
    pub hash: [u8; HASH_LEN],
}

/// What the directory knows of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DirEntry {
    pub number: u64,
    pub created_ms: u64,
}

pub(super) fn directory_key(game: &str) -> Vec<u8> {
    prefixed(DIRECTORY, game.as_bytes())
}

/// The game id of a directory key, if the key is one.
pub(super) fn directory_game(key: &[u8]) -> Option<&str> {
    let rest = key.strip_prefix(&[DIRECTORY])?;
    std::str::from_utf8(rest).ok()
}

pub(super) fn event_key(number: u64, seq: u64) -> [u8; 17] {
    let mut key = [0; 17];
    key[0] = EVENT;
    key[1..9].copy_from_slice(&number.to_be_bytes());
    key[9..].copy_from_slice(&seq.to_be_bytes());
    key
}

/// The seq of an event key.
pub(super) fn event_key_seq(key: &[u8]) -> Option<u64> {
    let tail: [u8; 8] = key.get(9..17)?.try_into().ok()?;
    (key.len() == 17 && key[0] == EVENT).then(|| u64::from_be_bytes(tail))
}

pub(super) fn head_key(number: u64) -> [u8; 9] {
    let mut key = [0; 9];
    key[0] = HEAD;
    key[1..].copy_from_slice(&number.to_be_bytes());
    key
}

pub(super) fn event_id_key(number: u64, event_id: &str) -> Vec<u8> {
    let mut key = prefixed(EVENT_ID, &number.to_be_bytes());
    key.extend_from_slice(event_id.as_bytes());
    key
}

fn prefixed(prefix: u8, rest: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + rest.len());
    key.push(prefix);
    key.extend_from_slice(rest);
    key
}

impl Head {
    pub fn encode(&self) -> [u8; 8 + HASH_LEN] {
        let mut out = [0; 8 + HASH_LEN];
        out[..8].copy_from_slice(&self.last_seq.to_be_bytes());
        out[8..].copy_from_slice(&self.hash);
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Head> {
        let last_seq = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
        let hash = bytes.get(8..)?.try_into().ok()?;
        Some(Head { last_seq, hash })
    }
}

impl DirEntry {
    pub fn encode(&self) -> [u8; 16] {
        let mut out = [0; 16];
        out[..8].copy_from_slice(&self.number.to_be_bytes());
        out[8..].copy_from_slice(&self.created_ms.to_be_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<DirEntry> {
        let bytes: &[u8; 16] = bytes.try_into().ok()?;
        let (number, created_ms) = bytes.split_at(8);
        Some(DirEntry {
            number: u64::from_be_bytes(number.try_into().ok()?),
            created_ms: u64::from_be_bytes(created_ms.try_into().ok()?),
        })
    }
}

/// Encodes the seq stored under an event id key.
pub(super) fn encode_seq(seq: u64) -> [u8; 8] {
    seq.to_be_bytes()
}

/// Decodes the seq stored under an event id key.
pub(super) fn decode_seq(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}
