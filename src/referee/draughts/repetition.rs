//! The positions that may still stand again (draughts 12.3.1): every position since the last
//! move that took a piece or crowned a man, each with the move after which it stood.
//!
//! No move adds a piece or turns a king back into a man (not even an irregular move the
//! opponent accepts, 7.7), so once a move lowers either count no earlier position can recur;
//! a man's step is not such a boundary, as an accepted irregular move may step it back.
//! Positions are compared whole: a draughts position is three bit boards and the side to
//! move, as cheap to compare as a hash and never wrong.

use crate::games::draughts::{PieceKind, Position};

/// The positions that may recur, oldest first.
#[derive(Clone, Debug)]
pub struct Positions {
    /// Each position and the seq of the move after which it stood (0: the start).
    since: Vec<(Position, u64)>,
}

impl Positions {
    /// The start position, standing at seq 0.
    pub fn new(start: &Position) -> Positions {
        Positions {
            since: vec![(start.clone(), 0)],
        }
    }

    /// `after` stood after the move at `seq`, played from `before`.
    pub fn record(&mut self, seq: u64, before: &Position, after: &Position) {
        if material(after) != material(before) {
            self.since.clear();
        }
        self.since.push((after.clone(), seq));
    }

    /// How often `pos` has stood.
    pub fn count(&self, pos: &Position) -> usize {
        self.since.iter().filter(|(p, _)| p == pos).count()
    }

    /// The seqs after which `pos` stood, in order (0: at the start).
    pub fn seqs(&self, pos: &Position) -> Vec<u64> {
        self.since
            .iter()
            .filter(|(p, _)| p == pos)
            .map(|(_, seq)| *seq)
            .collect()
    }
}

/// Pieces and men on the board: neither ever grows.
fn material(pos: &Position) -> (usize, usize) {
    let men = pos.count_kind(PieceKind::Man);
    (men + pos.count_kind(PieceKind::King), men)
}
