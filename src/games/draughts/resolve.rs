//! Matching a reported move (start, end, and perhaps the captured squares) to the legal
//! routes. A board reports where a piece went and maybe what it took; the referee needs the
//! one legal move that fits, or to know why none does.

use super::illegal::{self, Impossibility, Irregularity};
use super::movegen;
use super::moves::Move;
use super::position::Position;
use super::square::Square;

/// What a reported move is on the current board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one legal move fits.
    Legal(Move),
    /// The captures were not reported and legal routes taking different pieces fit the start
    /// and end; the board must say which pieces it took.
    Ambiguous(Vec<Move>),
    /// The move can be made on the board but breaks a rule. `played` is how it stands if the
    /// opponent lets it (draughts 7.7): a plain move, the capture route through the reported
    /// squares, or (captures reported but no route) exactly those pieces removed.
    Irregular { played: Move, why: Irregularity },
    /// The move cannot be made on this board at all (an empty start square, an occupied end
    /// square, a capture of an empty square): the arbiter must look at the board.
    Impossible(Impossibility),
}

impl Position {
    /// Resolves a reported move against the legal moves. `captures`, when given, is compared
    /// as a set (the order of taking is free among equal routes, draughts 6.14); `Some(&[])`
    /// reports a move that took nothing.
    pub fn resolve(&self, from: Square, to: Square, captures: Option<&[Square]>) -> Resolution {
        // Most moves of a game take nothing and could take nothing: then the one legal move
        // that fits is the step itself, found without listing the others.
        let reports_none = captures.is_none_or(<[Square]>::is_empty);
        if reports_none
            && self.is_quiet()
            && movegen::is_step(self, from.bit_index(), to.bit_index())
        {
            return Resolution::Legal(Move::step(from, to));
        }
        let legal = self.legal_moves();
        let mut fits: Vec<Move> = legal
            .iter()
            .filter(|mv| mv.from() == from && mv.to() == to && takes_reported(mv, captures))
            .cloned()
            .collect();
        match fits.len() {
            0 => illegal::judge(self, &legal, from, to, captures),
            1 => Resolution::Legal(fits.remove(0)),
            _ => Resolution::Ambiguous(fits),
        }
    }
}

/// Whether `mv` takes exactly the reported pieces (any order; a square named twice never fits).
fn takes_reported(mv: &Move, captures: Option<&[Square]>) -> bool {
    let Some(reported) = captures else {
        return true;
    };
    let mut reported = reported.to_vec();
    reported.sort_unstable();
    reported == mv.captured_set()
}
