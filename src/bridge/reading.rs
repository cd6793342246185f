//! What the board reads now, as the bridge keeps it: whole placements replace it, field
//! updates change one square of it, and a report goes out only when it differs from the last
//! one sent (a board that repeats itself, or a field update that changes nothing, adds no
//! event to the log).

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
}

/// A placement to report: its text and what changed, for the terminal.
#[derive(Debug, PartialEq, Eq)]
pub struct Change {
    pub placement: String,
    pub what: String,
}

impl Reading {
    /// Starts from `start` (the game's start position) until a whole placement comes.
    pub fn new(variant: Variant, start: &Placement) -> Reading {
        Reading {
            variant,
            layout: Layout::of(variant),
            current: start.cells().to_vec(),
            sent: None,
        }
    }

    /// A whole placement, as the `board` event writes it.
    pub fn whole(&mut self, text: &str) -> Result<Option<Change>, String> {
        let placement = sensor::read(self.variant, text)?;
        self.current = placement.cells().to_vec();
        Ok(self.change(&placement))
    }

    /// One square's new content: a piece letter, or `None` for an emptied square.
    pub fn field(&mut self, square: &str, piece: Option<u8>) -> Result<Option<Change>, String> {
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
        Ok(self.change(&placement))
    }

    /// The report of `placement`, unless it is the one last sent.
    fn change(&mut self, placement: &Placement) -> Option<Change> {
        let cells = placement.cells();
        let text = self.layout.text(placement);
        let what = match &self.sent {
            Some(sent) if sent == cells => return None,
            Some(sent) => self.differences(sent, cells, &text),
            None => format!("board {text}"),
        };
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
