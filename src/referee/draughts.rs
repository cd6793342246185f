//! The draughts table. Minimal wiring: the position from the header; rules land with their issue.

use crate::event::{Event, Header, Side};
use crate::games::Variant;
use crate::games::draughts::{Color, Position};

use super::{Ruling, SetupError};

/// The draughts part of a referee.
#[derive(Clone, Debug)]
pub struct DraughtsTable {
    position: Position,
}

impl DraughtsTable {
    pub fn new(header: &Header) -> Result<DraughtsTable, SetupError> {
        let position = match &header.start {
            None => Position::startpos(),
            Some(fen) => Position::from_fen(fen).map_err(|e| SetupError::BadStart {
                variant: Variant::Draughts,
                fen: fen.clone(),
                reason: e.to_string(),
            })?,
        };
        Ok(DraughtsTable { position })
    }

    pub fn fen(&self) -> String {
        self.position.to_fen()
    }

    pub fn side_to_move(&self) -> Side {
        match self.position.side_to_move() {
            Color::White => Side::First,
            Color::Black => Side::Second,
        }
    }

    pub fn apply(&mut self, _seq: u64, _event: &Event) -> Vec<Ruling> {
        Vec::new()
    }
}
