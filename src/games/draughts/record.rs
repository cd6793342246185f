//! A game's record: the start position and the moves that stand, kept as one byte per square
//! so that a live game costs a few bytes a move, not a `Move` with two vectors (issue 17:
//! memory per live game).

use super::moves::Move;
use super::position::Position;
use super::square::Square;

/// Marks the first square of a move's path: a new move begins there.
const FIRST: u8 = 0x80;
/// Marks a captured square; unmarked bytes after the first are the path's landing squares.
const TAKEN: u8 = 0x40;
/// The square number (1..=50) in the low bits.
const NUMBER: u8 = 0x3f;

/// The start position and the moves played from it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    start: Position,
    /// Each move as its path's squares (the first marked [`FIRST`]) and the squares it took,
    /// in the order taken (marked [`TAKEN`]). Square numbers fit in six bits, so the marks
    /// replace lengths, and a move of any length is stored whole.
    bytes: Vec<u8>,
}

impl Record {
    /// A record of no moves yet from `start`.
    pub fn new(start: Position) -> Record {
        Record {
            start,
            bytes: Vec::new(),
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// Adds `mv` after the moves so far.
    pub fn push(&mut self, mv: &Move) {
        let mut path = mv.path.iter().map(|sq| sq.number());
        if let Some(first) = path.next() {
            self.bytes.push(first | FIRST);
        }
        self.bytes.extend(path);
        self.bytes
            .extend(mv.captures.iter().map(|sq| sq.number() | TAKEN));
    }

    /// The moves in the order played, each as it was pushed.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.bytes
            .chunk_by(|_, next| next & FIRST == 0)
            .map(|bytes| {
                let square = |b: &u8| Square::new(u64::from(b & NUMBER));
                Move {
                    path: bytes
                        .iter()
                        .filter(|b| *b & TAKEN == 0)
                        .filter_map(square)
                        .collect(),
                    captures: bytes
                        .iter()
                        .filter(|b| *b & TAKEN != 0)
                        .filter_map(square)
                        .collect(),
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::{Move, Position, Record, Square};

    fn sq(n: u64) -> Square {
        Square::new(n).unwrap()
    }

    #[test]
    fn moves_come_back_as_pushed() {
        let moves = [
            Move::step(sq(32), sq(28)),
            Move {
                path: vec![sq(28), sq(19), sq(10)],
                captures: vec![sq(23), sq(14)],
            },
            Move::step(sq(50), sq(1)),
            // An irregular report may name a square twice (draughts 6.9); it stays as named.
            Move {
                path: vec![sq(1), sq(12)],
                captures: vec![sq(7), sq(7)],
            },
        ];
        let mut record = Record::new(Position::startpos());
        for mv in &moves {
            record.push(mv);
        }
        assert_eq!(record.moves().collect::<Vec<_>>(), moves);
        assert_eq!(record.start(), &Position::startpos());
        assert_eq!(
            Record::new(Position::startpos()).moves().count(),
            0,
            "no moves yet"
        );
    }
}
