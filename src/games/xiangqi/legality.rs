//! Legal moves: pseudo-legal moves that leave the mover's general unattacked and not facing
//! the other general (xiangqi 2.2, 3.1, 4.1).

use super::moves::Move;
use super::position::Position;
use super::square::Square;

/// A chariot or cannon in the open reaches 17 points, more than any other piece.
const MOST_MOVES_OF_A_PIECE: usize = 17;

/// What a legality test needs to know about the mover's general, computed once per
/// position rather than once per move.
#[derive(Clone, Copy)]
struct Guard {
    general: Square,
    in_check: bool,
}

impl Position {
    /// All legal moves of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut scratch = self.clone();
        let mut moves = Vec::with_capacity(64);
        scratch.legal_into(&mut moves);
        moves
    }

    /// Whether the side to move has any legal move: enough for mate and stalemate, and
    /// found after a piece or two in almost every position, where the full list would
    /// test every move of every piece.
    pub fn has_legal_move(&self) -> bool {
        let mut scratch = self.clone();
        let guard = Guard {
            general: self.general(self.side),
            in_check: self.in_check(),
        };
        let mut moves = Vec::with_capacity(MOST_MOVES_OF_A_PIECE);
        for (cell, i) in self.board.iter().zip(0u8..) {
            let Some(piece) = cell.filter(|p| p.color == self.side) else {
                continue;
            };
            moves.clear();
            self.piece_moves(Square::at(i), piece.kind, &mut moves);
            if moves.iter().any(|&mv| scratch.is_safe(mv, guard)) {
                return true;
            }
        }
        false
    }

    /// Whether the side to move may play `mv`.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv.from, mv.to).is_ok()
    }

    /// Replaces the contents of `moves` with the legal moves. Takes `&mut self` to play
    /// each doubtful move on the board and take it back; the position is unchanged after.
    pub(super) fn legal_into(&mut self, moves: &mut Vec<Move>) {
        moves.clear();
        self.pseudo_moves(moves);
        let guard = Guard {
            general: self.general(self.side),
            in_check: self.in_check(),
        };
        moves.retain(|&mv| self.is_safe(mv, guard));
    }

    /// The general is safe after `mv`. Most moves cannot matter and skip the test.
    fn is_safe(&mut self, mv: Move, guard: Guard) -> bool {
        if guard.in_check || mv.from == guard.general || may_expose(guard.general, mv) {
            self.keeps_general_safe(mv)
        } else {
            true
        }
    }

    /// Plays `mv` on the board, tests the general, and takes the move back.
    pub(super) fn keeps_general_safe(&mut self, mv: Move) -> bool {
        let us = self.side;
        let captured = self.put(mv);
        let safe = !self.general_attacked(self.general(us), us.opponent());
        self.take_back(mv, captured);
        safe
    }
}

/// Whether a move of some other piece could uncover an attack on the general at `g`.
/// Only occupancy changes matter (a capture swaps the piece on `to`, and removing an enemy
/// piece never helps the enemy): emptying `from` can open a line or a horse's leg, and
/// filling `to` can give an enemy cannon its screen. So a move that touches neither the
/// general's file, nor its rank, nor (for `from`) its diagonal neighbours, is safe.
fn may_expose(g: Square, mv: Move) -> bool {
    let on_lines = |s: Square| s.file() == g.file() || s.rank() == g.rank();
    let is_leg = |s: Square| s.file().abs_diff(g.file()) == 1 && s.rank().abs_diff(g.rank()) == 1;
    on_lines(mv.from) || is_leg(mv.from) || on_lines(mv.to)
}
