//! A stored game folded: the referee after its records, and the chain head it reflects.

use crate::event::{Event, EventKind};
use crate::log::{HASH_LEN, Log, Record};
use crate::referee::{Referee, Step};

use super::Error;
use super::load::{load_log, read_event, read_header};

/// The referee of a game as its stored records left it.
#[derive(Clone, Debug)]
pub struct Fold {
    pub referee: Referee,
    /// Hash of the last record folded.
    pub head_hash: [u8; HASH_LEN],
    /// The last event folded and its words (`None` before the first), so that a board is
    /// shown as it stands without reading the log again.
    pub last: Option<Last>,
    /// When the server received the last `board` report folded (its record's
    /// `received_ms`), for the console's device badge: a silent board is seen.
    pub report_received_ms: Option<u64>,
    /// When the server received the last clock press folded: the running clock counts down
    /// from then (the console's clocks tick from it, not from the last event of any kind).
    pub press_received_ms: Option<u64>,
}

/// The last event a fold took: its record, the event read from it, and its words.
#[derive(Clone, Debug)]
pub struct Last {
    pub record: Record,
    pub event: Event,
    pub words: String,
    /// The moves the event made that its own words do not show (the moves the referee
    /// derived from a board's reports at it, or an arbiter's `set`), each with its words.
    pub made: Vec<(Event, String)>,
}

impl Fold {
    /// The game from its header record (seq 0).
    pub fn start(header_record: &Record) -> Result<Fold, Error> {
        let header = read_header(header_record)?;
        Ok(Fold {
            referee: Referee::new(&header)?,
            head_hash: header_record.hash,
            last: None,
            report_received_ms: None,
            press_received_ms: None,
        })
    }

    /// The game read from `log` through `to` (None: the head) and folded.
    pub async fn load<L: Log>(log: &L, game: &str, to: Option<u64>) -> Result<Fold, Error> {
        let loaded = load_log(log, game, to).await?;
        let mut fold = Fold {
            referee: Referee::new(&loaded.header)?,
            head_hash: loaded.header_record.hash,
            last: None,
            report_received_ms: None,
            press_received_ms: None,
        };
        // Only the last event's words are kept: the others are folded without writing them.
        if let Some(((last_record, last_event), before)) = loaded.events.split_last() {
            for (record, event) in before {
                fold.head_hash = record.hash;
                fold.heard(record, event);
                fold.referee.apply(record.seq, event);
            }
            fold.apply(last_record, last_event);
        }
        Ok(fold)
    }

    /// Folds the next record, already parsed: the one step per event that the live cache,
    /// watchers and the console read (its words and its rulings).
    pub fn apply(&mut self, record: &Record, event: &Event) -> Step {
        self.head_hash = record.hash;
        self.heard(record, event);
        let step = self.referee.step(record.seq, event);
        self.last = Some(Last {
            record: record.clone(),
            event: event.clone(),
            words: step.words.clone(),
            made: step.made.clone(),
        });
        step
    }

    /// Notes when a board was last heard from, and when a clock was last pressed.
    fn heard(&mut self, record: &Record, event: &Event) {
        match event.kind {
            EventKind::Board { .. } => self.report_received_ms = Some(record.received_ms),
            EventKind::Clock { .. } => self.press_received_ms = Some(record.received_ms),
            _ => {}
        }
    }

    /// Parses and folds the next stored record: its event and its step.
    pub fn step(&mut self, record: &Record) -> Result<(Event, Step), Error> {
        let event = read_event(record, self.referee.header())?;
        let step = self.apply(record, &event);
        Ok((event, step))
    }
}
