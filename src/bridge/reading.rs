//! What the board reads now, as the bridge keeps it: whole placements replace it, field
//! updates change one square of it, and a report goes out only when it differs from the last
//! one sent (a board that repeats itself, or a field update that changes nothing, adds no
//! event to the log) — but for one repeat of a placement that has stood for the game's hold
//! time since the last event sent: that is what tells the referee, in a game without a clock,
//! that the placement stood (a move), or that a mismatch read at a press was not cleared.

use crate::games::Variant;
use crate::games::sensor::{self, Placement};

use super::layout::Layout;

/// More changed squares than this and the terminal shows the whole placement instead.
const MOST_LISTED: usize = 6;

/// The bridge's current placement and the last one it reported.
pub struct Reading {
    variant: Variant,
    layout: Layout,
    current: Vec<Option<u8>>,
    sent: Option<Vec<Option<u8>>>,
    hold_ms: u64,
    /// The device time of the last event sent (report or clock press), and whether the
    /// placement standing since then was sent again.
    last_ts: Option<u64>,
    repeated: bool,
}

/// A placement to report: its text and what changed, for the terminal.
#[derive(Debug, PartialEq, Eq)]
pub struct Change {
    pub placement: String,
    pub what: String,
}

impl Reading {
    /// Starts from `start` (the game's start position) until a whole placement comes;
    /// `hold_ms` is the game's `board_hold_ms`.
    pub fn new(variant: Variant, start: &Placement, hold_ms: u64) -> Reading {
        Reading {
            variant,
            layout: Layout::of(variant),
            current: start.cells().to_vec(),
            sent: None,
            hold_ms,
            last_ts: None,
            repeated: false,
        }
    }

    /// A whole placement, as the `board` event writes it, reported at device time `ts`.
    pub fn whole(&mut self, text: &str, ts: u64) -> Result<Option<Change>, String> {
        let placement = sensor::read(self.variant, text)?;
        self.current = placement.cells().to_vec();
        Ok(self.change(&placement, ts))
    }

    /// A clock press sent at device time `ts`: the hold time counts from it.
    pub fn pressed(&mut self, ts: u64) {
        self.last_ts = Some(ts);
        self.repeated = false;
    }

    /// One square's new content: a piece letter, or `None` for an emptied square.
    pub fn field(
        &mut self,
        square: &str,
        piece: Option<u8>,
        ts: u64,
    ) -> Result<Option<Change>, String> {
        let cell = self.layout.cell(square).ok_or_else(|| {
            format!(
                "square {} does not exist in {}",
                crate::quote::quote(square),
                self.variant.name()
            )
        })?;
        let mut cells = self.current.clone();
        cells[cell] = piece;
        let placement = self.layout.placement(self.variant, &cells)?;
        self.current = cells;
        Ok(self.change(&placement, ts))
    }

    /// The report of `placement`, unless it is the one last sent (sent again once when it
    /// comes the hold time or more after the last event sent).
    fn change(&mut self, placement: &Placement, ts: u64) -> Option<Change> {
        let cells = placement.cells();
        let text = self.layout.text(placement);
        let what = match &self.sent {
            Some(sent) if sent == cells => {
                let stood = self.last_ts.map(|t| ts.saturating_sub(t));
                if self.repeated || stood.is_none_or(|ms| ms < self.hold_ms) {
                    return None;
                }
                self.repeated = true;
                self.last_ts = Some(ts);
                return Some(Change {
                    placement: text,
                    what: format!("board unchanged for {} ms", stood.unwrap_or_default()),
                });
            }
            Some(sent) => self.differences(sent, cells, &text),
            None => format!("board {text}"),
        };
        self.last_ts = Some(ts);
        self.repeated = false;
        self.sent = Some(cells.to_vec());
        Some(Change {
            placement: text,
            what,
        })
    }

    /// `board e2 P→· e4 ·→P`: each square that changed, with what stood there and stands now.
    fn differences(&self, before: &[Option<u8>], after: &[Option<u8>], text: &str) -> String {
        let changed: Vec<String> = before
            .iter()
            .zip(after)
            .enumerate()
            .filter(|(_, (b, a))| b != a)
            .map(|(i, (b, a))| format!("{} {}→{}", self.layout.name(i), shown(*b), shown(*a)))
            .collect();
        if changed.len() > MOST_LISTED {
            format!("board {text} ({} squares changed)", changed.len())
        } else {
            format!("board {}", changed.join(" "))
        }
    }
}

fn shown(cell: Option<u8>) -> char {
    cell.map_or('·', char::from)
}
