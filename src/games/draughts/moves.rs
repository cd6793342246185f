//! A move as a path: the squares a piece visits and the pieces it takes on the way. A draughts
//! capture is a route, not just a start and an end (draughts 6.6, 10).

use std::fmt::Write;

use super::square::Square;

/// A move: the path of squares visited (from, the intermediate landing squares of a multiple
/// capture, to) and the captured squares in the order taken.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub path: Vec<Square>,
    pub captures: Vec<Square>,
}

/// The full PDN notation ([`Move::pdn_full`]): two routes that differ show apart.
impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.pdn_full())
    }
}

impl Move {
    /// A plain move (no capture) from one square to another.
    pub fn step(from: Square, to: Square) -> Move {
        Move {
            path: vec![from, to],
            captures: Vec::new(),
        }
    }

    /// The square the piece starts on.
    pub fn from(&self) -> Square {
        self.path[0]
    }

    /// The square the piece ends on (for a king's circular capture, possibly `from`).
    pub fn to(&self) -> Square {
        self.path[self.path.len() - 1]
    }

    /// Whether the move takes any piece.
    pub fn is_capture(&self) -> bool {
        !self.captures.is_empty()
    }

    /// The captured squares, ascending: two routes that take the same pieces between the same
    /// squares are the same move (the perft convention, and 6.14's free choice).
    pub fn captured_set(&self) -> Vec<Square> {
        let mut set = self.captures.clone();
        set.sort_unstable();
        set
    }

    /// Notation as in draughts 10: `32-28` for a move, `28x19` for a capture (start and end).
    pub fn pdn(&self) -> String {
        let sep = if self.is_capture() { 'x' } else { '-' };
        format!("{}{sep}{}", self.from(), self.to())
    }

    /// Like [`Move::pdn`], but a capture lists every landing square: `28x19x10`.
    pub fn pdn_full(&self) -> String {
        if !self.is_capture() {
            return self.pdn();
        }
        let mut text = self.from().to_string();
        for sq in &self.path[1..] {
            let _ = write!(text, "x{sq}");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::{Move, Square};

    fn sq(n: u64) -> Square {
        Square::new(n).unwrap()
    }

    #[test]
    fn notation() {
        assert_eq!(Move::step(sq(32), sq(28)).pdn(), "32-28");
        let capture = Move {
            path: vec![sq(28), sq(19), sq(10)],
            captures: vec![sq(23), sq(14)],
        };
        assert_eq!(capture.pdn(), "28x10");
        assert_eq!(capture.pdn_full(), "28x19x10");
        assert_eq!(capture.captured_set(), [sq(14), sq(23)]);
        assert!(capture.is_capture());
        assert_eq!((capture.from(), capture.to()), (sq(28), sq(10)));
    }
}
