//! Whether the game goes on, from the rules of movement alone.

use super::position::Position;

/// The state of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has a legal move.
    Ongoing,
    /// In check with no legal move: the side to move loses (xiangqi 3.1, 4.1).
    Checkmate,
    /// Not in check and no legal move (困毙): the side to move also loses (xiangqi 3.2, 4.1).
    Stalemate,
}

impl Position {
    /// Ongoing, checkmated or stalemated. Both endings lose for the side to move.
    pub fn status(&self) -> Status {
        if self.has_legal_move() {
            Status::Ongoing
        } else if self.in_check() {
            Status::Checkmate
        } else {
            Status::Stalemate
        }
    }
}
