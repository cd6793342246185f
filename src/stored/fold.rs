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
    /// The last move made (played, derived from a board's reports, or set by the arbiter),
    /// with a chess_gjq reveal that completed it: what a board shows as its last move, whatever
    /// events came after it (a clock press, an offer).
    pub last_move: Option<LastMove>,
}

/// A board's last move: its events (the move, then a reveal) and its words.
#[derive(Clone, Debug)]
pub struct LastMove {
    pub events: Vec<Event>,
    pub words: String,
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
            last_move: None,
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
            last_move: None,
        };
        // Every event is stepped (with its words): the board's last move may lie before the
        // last event.
        for (record, event) in &loaded.events {
            fold.apply(record, event);
        }
        Ok(fold)
    }

    /// Folds the next record, already parsed: the one step per event that the live cache,
    /// watchers and the console read (its words and its rulings).
    pub fn apply(&mut self, record: &Record, event: &Event) -> Step {
        self.head_hash = record.hash;
        self.heard(record, event);
        let step = self.referee.step(record.seq, event);
        self.note_move(event, &step);
        self.last = Some(Last {
            record: record.clone(),
            event: event.clone(),
            words: step.words.clone(),
            made: step.made.clone(),
        });
        step
    }

    /// Notes the board's last move: the moves a step made beyond its event's words (derived
    /// or set), or a move or stone played; a reveal completes the move before it.
    fn note_move(&mut self, event: &Event, step: &Step) {
        if let Some((made, _)) = step.made.last() {
            let words: Vec<&str> = step.made.iter().map(|(_, w)| w.as_str()).collect();
            self.last_move = Some(LastMove {
                events: vec![made.clone()],
                words: words.join(" "),
            });
            return;
        }
        match event.kind {
            EventKind::Move { .. } | EventKind::Place { .. } => {
                self.last_move = Some(LastMove {
                    events: vec![event.clone()],
                    words: step.words.clone(),
                });
            }
            EventKind::Reveal { .. } => {
                if let Some(last) = self.last_move.as_mut() {
                    last.events.push(event.clone());
                    last.words.push_str(&step.words);
                }
            }
            _ => {}
        }
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
