//! A move as a board reports it: from, to, and the promotion of a face-up pawn.

use std::fmt;

use super::piece::Role;
use super::square::Square;

/// One move. Castling is the king's two-square move (`e1` to `g1`); the rook-square piece
/// follows by itself. A hidden piece that reaches the last rank and turns out a pawn is
/// promoted with its reveal, so its move carries no promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl Move {
    /// A move without promotion.
    pub fn new(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            promotion: None,
        }
    }
}

impl fmt::Display for Move {
    /// UCI notation: `e2e4`, `e7e8q`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        match self.promotion {
            Some(role) => write!(f, "{}", role.upper_char().to_ascii_lowercase()),
            None => Ok(()),
        }
    }
}
