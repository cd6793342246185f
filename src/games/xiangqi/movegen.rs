//! Pseudo-legal moves: every move the movement rules allow (xiangqi 2.2, 2.3), before the
//! general's safety is considered (`legality.rs`).

use super::attacks::soldier_step;
use super::geometry::{
    DIAGONAL_STEPS, ELEPHANT_MOVES, HORSE_MOVES, ORTHOGONAL_STEPS, RAYS, in_palace, on_home_side,
};
use super::moves::Move;
use super::piece::PieceKind;
use super::position::Position;
use super::square::Square;

impl Position {
    /// Appends the side to move's pseudo-legal moves to `out`.
    pub(super) fn pseudo_moves(&self, out: &mut Vec<Move>) {
        for (cell, i) in self.board.iter().zip(0u8..) {
            if let Some(piece) = cell
                && piece.color == self.side
            {
                self.piece_moves(Square::at(i), piece.kind, out);
            }
        }
    }

    /// Appends the pseudo-legal moves of the piece of `kind` on `from` (of the side to move).
    pub(super) fn piece_moves(&self, from: Square, kind: PieceKind, out: &mut Vec<Move>) {
        match kind {
            PieceKind::General => self.general_moves(from, out),
            PieceKind::Advisor => self.advisor_moves(from, out),
            PieceKind::Elephant => self.elephant_moves(from, out),
            PieceKind::Horse => self.horse_moves(from, out),
            PieceKind::Chariot => self.chariot_moves(from, out),
            PieceKind::Cannon => self.cannon_moves(from, out),
            PieceKind::Soldier => self.soldier_moves(from, out),
        }
    }

    /// Empty, or an enemy piece to capture: never an own piece (xiangqi 2.3).
    fn can_land(&self, to: Square) -> bool {
        self.board[to.index()].is_none_or(|p| p.color != self.side)
    }

    fn is_empty(&self, sq: Square) -> bool {
        self.board[sq.index()].is_none()
    }

    /// One point orthogonally, inside the palace (xiangqi 2.2).
    fn general_moves(&self, from: Square, out: &mut Vec<Move>) {
        let steps = ORTHOGONAL_STEPS[from.index()].iter();
        let targets = steps.filter(|&(to, _)| in_palace(self.side, to) && self.can_land(to));
        out.extend(targets.map(|(to, _)| Move::new(from, to)));
    }

    /// One point diagonally, inside the palace (xiangqi 2.2).
    fn advisor_moves(&self, from: Square, out: &mut Vec<Move>) {
        let steps = DIAGONAL_STEPS[from.index()].iter();
        let targets = steps.filter(|&(to, _)| in_palace(self.side, to) && self.can_land(to));
        out.extend(targets.map(|(to, _)| Move::new(from, to)));
    }

    /// Two points diagonally, not over the river, not through an occupied eye (塞象眼).
    fn elephant_moves(&self, from: Square, out: &mut Vec<Move>) {
        let jumps = ELEPHANT_MOVES[from.index()].iter();
        let targets = jumps.filter(|&(to, eye)| {
            on_home_side(self.side, to) && self.is_empty(eye) && self.can_land(to)
        });
        out.extend(targets.map(|(to, _)| Move::new(from, to)));
    }

    /// One point orthogonally then one diagonally, unless the leg is taken (蹩马腿).
    fn horse_moves(&self, from: Square, out: &mut Vec<Move>) {
        let jumps = HORSE_MOVES[from.index()].iter();
        let targets = jumps.filter(|&(to, leg)| self.is_empty(leg) && self.can_land(to));
        out.extend(targets.map(|(to, _)| Move::new(from, to)));
    }

    /// Along a line up to the first piece, which it may capture if it is an enemy.
    fn chariot_moves(&self, from: Square, out: &mut Vec<Move>) {
        for ray in &RAYS[from.index()] {
            for &to in ray.points() {
                if self.can_land(to) {
                    out.push(Move::new(from, to));
                }
                if !self.is_empty(to) {
                    break;
                }
            }
        }
    }

    /// Moves like a chariot, but captures only by jumping exactly one piece (炮打隔子).
    fn cannon_moves(&self, from: Square, out: &mut Vec<Move>) {
        for ray in &RAYS[from.index()] {
            let mut points = ray.points().iter();
            for &to in points.by_ref() {
                if !self.is_empty(to) {
                    break;
                }
                out.push(Move::new(from, to));
            }
            if let Some(&to) = points.find(|&&to| !self.is_empty(to))
                && self.can_land(to)
            {
                out.push(Move::new(from, to));
            }
        }
    }

    /// Forward, or sideways once across the river; never back (xiangqi 2.2).
    fn soldier_moves(&self, from: Square, out: &mut Vec<Move>) {
        let steps = ORTHOGONAL_STEPS[from.index()].iter();
        let targets =
            steps.filter(|&(to, _)| soldier_step(self.side, from, to) && self.can_land(to));
        out.extend(targets.map(|(to, _)| Move::new(from, to)));
    }
}
