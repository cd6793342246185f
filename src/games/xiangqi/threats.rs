//! What a side could win next move: legal captures and whether the captured point is
//! protected. Pure helpers for the 棋例 (xiangqi 25-28), which ask "if it were this side's
//! turn again, what could it take?".

use super::moves::Move;
use super::piece::{Color, PieceKind};
use super::position::Position;
use super::square::Square;
use super::zobrist;

impl Position {
    /// The same board with the other side to move (a "null move"): the position the
    /// 棋例 look at to see what the side that just moved threatens next (xiangqi 28.2, 28.3).
    /// Counters are unchanged.
    pub fn passed(&self) -> Position {
        let mut next = self.clone();
        next.side = self.side.opponent();
        next.zobrist ^= zobrist::BLACK_TO_MOVE;
        next
    }

    /// This position with `color` to move: itself, or `passed()` if the other side is to move.
    pub fn passed_if_needed(&self, color: Color) -> Position {
        if self.side == color {
            self.clone()
        } else {
            self.passed()
        }
    }

    /// The legal captures of the side to move. A pinned piece or a blocked horse does not
    /// appear: only captures it may really make.
    pub fn legal_captures(&self) -> Vec<Move> {
        // The legal moves' order, but only captures tested for the general's safety.
        let mut moves = Vec::with_capacity(16);
        self.pseudo_moves(&mut moves);
        moves.retain(|mv| self.piece_at(mv.to).is_some());
        let mut scratch = self.clone();
        moves.retain(|&mv| scratch.keeps_general_safe(mv));
        moves
    }

    /// The captures the side to move could make if it were not in check: its legal captures
    /// when it is not; when it is, every capture by its movement rules after which no piece
    /// attacks its general that did not attack it before (a pinned piece still cannot take).
    /// The 棋例 ask what a move *makes* possible to capture (xiangqi 28.3); a threat a side
    /// already had, held in suspense only by the check it answers, is not made by the answer.
    pub fn captures_apart_from_check(&self) -> Vec<Move> {
        let checkers = self.checkers();
        if checkers.is_empty() {
            return self.legal_captures();
        }
        let us = self.side;
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        pseudo.retain(|mv| self.piece_at(mv.to).is_some());
        let mut scratch = self.clone();
        pseudo.retain(|&mv| {
            let captured = scratch.put(mv);
            let general = scratch.general(us);
            let attackers = scratch.attackers(general, us.opponent());
            let moved_general = mv.from == self.general(us);
            scratch.take_back(mv, captured);
            if moved_general {
                attackers.is_empty()
            } else {
                attackers.iter().all(|a| checkers.contains(a))
            }
        });
        pseudo
    }

    /// Whether, after the side to move plays the capture `mv`, the other side can legally
    /// take back on `mv.to` (the captured piece was protected, 有根). A protector that is
    /// pinned, or a horse whose leg is blocked, is no protector.
    pub fn recapture_possible(&self, mv: Move) -> bool {
        let mut after = self.clone();
        after.play(mv);
        // The pieces that reach `mv.to` by their movement rules are exactly the pseudo-legal
        // captures there (tested in rules_tests); only those need the safety test.
        let takers = after.attackers(mv.to, after.side);
        takers
            .into_iter()
            .any(|from| after.keeps_general_safe(Move::new(from, mv.to)))
    }

    /// Whether `color` has a piece that can cross the river (chariot, horse, cannon or
    /// soldier): without one a side can never win (xiangqi 4.2).
    pub fn has_attacking_material(&self, color: Color) -> bool {
        self.board.iter().flatten().any(|p| {
            p.color == color
                && matches!(
                    p.kind,
                    PieceKind::Chariot | PieceKind::Horse | PieceKind::Cannon | PieceKind::Soldier
                )
        })
    }

    /// The squares of the pieces of `color`, in board order.
    pub fn pieces_of(&self, color: Color) -> Vec<Square> {
        (0u8..90)
            .map(Square::at)
            .filter(|sq| self.piece_at(*sq).is_some_and(|p| p.color == color))
            .collect()
    }

    /// Whether a soldier of its colour standing on `sq` has crossed the river.
    pub fn across_river(color: Color, sq: Square) -> bool {
        match color {
            Color::Red => sq.rank() >= 5,
            Color::Black => sq.rank() <= 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Square;
    use super::*;

    fn sq(t: &str) -> Square {
        Square::parse(t).unwrap()
    }

    #[test]
    fn chariot_behind_protects() {
        // Black chariot d8 stands behind the horse d7: red's chariot may take, and be taken.
        let pos = Position::from_fen("3k5/3r5/3n5/9/9/9/9/9/3R5/4K4 w - - 0 1").unwrap();
        let take = Move::new(sq("d1"), sq("d7"));
        assert!(pos.legal_captures().contains(&take));
        assert!(pos.recapture_possible(take));
    }

    #[test]
    fn pinned_protector_does_not_protect() {
        // Black's advisor e8 would protect d7... but leaving e8 opens the e file to red's
        // chariot e1 and the black general e9: the advisor is pinned.
        let pos = Position::from_fen("4k4/4a4/3n5/9/9/9/9/9/3RR4/3K5 w - - 0 1").unwrap();
        let take = Move::new(sq("d1"), sq("d7"));
        assert!(pos.legal_captures().contains(&take));
        assert!(!pos.recapture_possible(take));
    }

    #[test]
    fn passed_flips_the_side_only() {
        let pos = Position::startpos();
        let p = pos.passed();
        assert_eq!(p.side_to_move(), Color::Black);
        assert_eq!(p.zobrist(), p.compute_zobrist());
        assert_eq!(p.passed().repetition_key(), pos.repetition_key());
    }

    #[test]
    fn attacking_material() {
        let bare = Position::from_fen("3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3AK4 w - - 0 1").unwrap();
        assert!(!bare.has_attacking_material(Color::Red));
        assert!(Position::startpos().has_attacking_material(Color::Black));
    }
}
