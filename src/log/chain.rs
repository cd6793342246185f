//! A game's stored records, read back only after checking each one's hash and every link of
//! the chain around them: damage becomes `Error::DataLoss`, never a served record.

use super::error::corruption;
use super::layout::{self, Head};
use super::record::{self, HASH_LEN, ZERO_HASH};
use super::recovery::guarded;
use super::{Error, Record};

/// One game's chain of records in the tree.
pub(super) struct Chain<'a> {
    pub tree: &'a sled::Tree,
    pub game: &'a str,
    pub number: u64,
}

impl Chain<'_> {
    /// Records `from..=to`, where `to <= head.last_seq`. Also reads the neighbours just
    /// outside the range (seq from-1 and to+1) so the range is chained at both ends, and when
    /// it reaches the head checks the last record against the head hash.
    pub fn read(&self, from: u64, to: u64, head: &Head) -> Result<Vec<Record>, Error> {
        // sled 0.34 can panic on a damaged page; that is data loss in this game, not a crash.
        guarded("reading a game", || self.walk(from, to, head)).map_err(|e| match e {
            Error::Damaged(why) => self.loss(from, why),
            other => other,
        })
    }

    fn walk(&self, from: u64, to: u64, head: &Head) -> Result<Vec<Record>, Error> {
        let lo = from.saturating_sub(1);
        let hi = if to < head.last_seq { to + 1 } else { to };
        let mut walk = Walk {
            chain: self,
            next_seq: lo,
            prev: (lo == 0).then_some(ZERO_HASH),
        };
        let mut out = Vec::new();
        let range = layout::event_key(self.number, lo)..=layout::event_key(self.number, hi);
        for item in self.tree.range(range) {
            let (key, value) = item.map_err(|e| self.failed_read(walk.next_seq, e))?;
            let record = walk.step(&key, &value)?;
            if (from..=to).contains(&record.seq) {
                out.push(record);
            }
        }
        walk.finish(hi, head)?;
        Ok(out)
    }

    /// sled found its own file damaged where this game's records are: data loss in this game,
    /// not a storage failure of the whole log.
    fn failed_read(&self, seq: u64, e: sled::Error) -> Error {
        match corruption(&e) {
            Some(found) => self.loss(seq, found),
            None => Error::from(e),
        }
    }

    fn loss(&self, seq: u64, detail: impl Into<String>) -> Error {
        Error::DataLoss {
            game: self.game.to_owned(),
            seq,
            detail: detail.into(),
        }
    }
}

/// Progress along the chain: the seq due next and the hash it must point back to (unknown
/// when the walk starts mid-chain).
struct Walk<'a, 'c> {
    chain: &'c Chain<'a>,
    next_seq: u64,
    prev: Option<[u8; HASH_LEN]>,
}

impl Walk<'_, '_> {
    fn step(&mut self, key: &[u8], value: &[u8]) -> Result<Record, Error> {
        let expected = self.next_seq;
        let seq = layout::event_key_seq(key).ok_or_else(|| self.chain.loss(expected, "bad key"))?;
        if seq != expected {
            return Err(self.chain.loss(expected, "record is missing"));
        }
        let record =
            record::open(self.chain.game, seq, value).map_err(|d| self.chain.loss(seq, d))?;
        if let Some(prev) = &self.prev {
            record::check_link(prev, &record).map_err(|d| self.chain.loss(seq, d))?;
        }
        self.prev = Some(record.hash);
        self.next_seq += 1;
        Ok(record)
    }

    /// Every seq up to `hi` was seen, and the last one matches the head if it is the head.
    fn finish(&self, hi: u64, head: &Head) -> Result<(), Error> {
        if self.next_seq <= hi {
            return Err(self.chain.loss(self.next_seq, "record is missing"));
        }
        if hi == head.last_seq && self.prev != Some(head.hash) {
            return Err(self
                .chain
                .loss(hi, "last record does not match the game's head hash"));
        }
        Ok(())
    }
}
