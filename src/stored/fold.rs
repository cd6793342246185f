//! A stored game folded: the referee after its records, and the chain head it reflects.

use crate::event::{Decision, Event, EventKind};
use crate::log::{HASH_LEN, Log, Record};
use crate::referee::{Referee, Ruling, RulingKind, Step, move_text};

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
        let before = may_make_moves(&self.referee, event).then(|| self.referee.clone());
        let step = self.referee.step(record.seq, event);
        let made = before.map(|b| made_moves(b, event, &step.rulings));
        self.last = Some(Last {
            record: record.clone(),
            event: event.clone(),
            words: step.words.clone(),
            made: made.unwrap_or_default(),
        });
        step
    }

    /// Notes when a board was last heard from.
    fn heard(&mut self, record: &Record, event: &Event) {
        if matches!(event.kind, EventKind::Board { .. }) {
            self.report_received_ms = Some(record.received_ms);
        }
    }

    /// Parses and folds the next stored record: its event and its step.
    pub fn step(&mut self, record: &Record) -> Result<(Event, Step), Error> {
        let event = read_event(record, self.referee.header())?;
        let step = self.apply(record, &event);
        Ok((event, step))
    }
}

/// Whether `event` may make moves its words do not show: an arbiter's `set`, or any event
/// while a board's report waits for its commit point or a mismatch stands (only then is the
/// referee copied, to write those moves from the position before them).
fn may_make_moves(referee: &Referee, event: &Event) -> bool {
    let set = matches!(
        event.kind,
        EventKind::Arbiter {
            decision: Decision::Set,
            ..
        }
    );
    // The referee derives moves only from a report it holds: one waiting for its commit
    // point, a mismatch read at a press, or a standing mismatch.
    set || referee
        .board_watch()
        .is_some_and(|w| w.pending.is_some() || w.provisional.is_some() || w.mismatch.is_some())
}

/// The moves `event` made beyond its own words, in the game's notation as the scoresheet
/// writes them: the `board_move` rulings' moves, or an arbiter's `set` moves. `before` is
/// the referee before the event; each move is written from the position the one before it
/// left (a chess_gjq reveal adds to its move's words, as on the scoresheet).
pub fn made_moves(mut before: Referee, event: &Event, rulings: &[Ruling]) -> Vec<(Event, String)> {
    let moves: Vec<&Event> = match &event.kind {
        EventKind::Arbiter {
            decision: Decision::Set,
            moves,
            ..
        } => moves.iter().collect(),
        _ => rulings
            .iter()
            .filter(|r| r.kind == RulingKind::BoardMove)
            .filter_map(|r| r.event.as_deref())
            .collect(),
    };
    let mut made: Vec<(Event, String)> = Vec::new();
    for m in moves {
        let words = before.describe(m).unwrap_or_else(|| match &m.kind {
            EventKind::Move {
                from, to, captures, ..
            } => {
                let capture = captures.as_ref().is_some_and(|c| !c.is_empty());
                format!("{} ?", move_text(*from, *to, capture))
            }
            EventKind::Place { to } => format!("{to} ?"),
            EventKind::Reveal { square, piece, .. } => format!(" {piece} on {square}"),
            _ => String::new(),
        });
        // Any seq after the last: this copy is only read for the position.
        before.apply(before.last_seq() + 1, m);
        match (&m.kind, made.last_mut()) {
            (EventKind::Reveal { .. }, Some((_, last))) => last.push_str(&words),
            _ => made.push((m.clone(), words)),
        }
    }
    made
}
