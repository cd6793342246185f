//! A stored game folded: the referee after its records, and the chain head it reflects.

use crate::event::Event;
use crate::log::{HASH_LEN, Log, Record};
use crate::referee::{Referee, Ruling};

use super::Error;
use super::load::{load_log, read_event, read_header};

/// The referee of a game as its stored records left it.
#[derive(Clone, Debug)]
pub struct Fold {
    pub referee: Referee,
    /// Hash of the last record folded.
    pub head_hash: [u8; HASH_LEN],
}

impl Fold {
    /// The game from its header record (seq 0).
    pub fn start(header_record: &Record) -> Result<Fold, Error> {
        let header = read_header(header_record)?;
        Ok(Fold {
            referee: Referee::new(&header)?,
            head_hash: header_record.hash,
        })
    }

    /// The game read from `log` through `to` (None: the head) and folded.
    pub async fn load<L: Log>(log: &L, game: &str, to: Option<u64>) -> Result<Fold, Error> {
        let loaded = load_log(log, game, to).await?;
        let mut fold = Fold {
            referee: Referee::new(&loaded.header)?,
            head_hash: loaded.header_record.hash,
        };
        for (record, event) in &loaded.events {
            fold.apply(record, event);
        }
        Ok(fold)
    }

    /// Folds the next record, already parsed; returns the rulings it gave rise to.
    pub fn apply(&mut self, record: &Record, event: &Event) -> Vec<Ruling> {
        self.head_hash = record.hash;
        self.referee.apply(record.seq, event)
    }

    /// Parses and folds the next stored record: its event and the rulings it gave rise to.
    pub fn step(&mut self, record: &Record) -> Result<(Event, Vec<Ruling>), Error> {
        let event = read_event(record, self.referee.header())?;
        let rulings = self.apply(record, &event);
        Ok((event, rulings))
    }
}
