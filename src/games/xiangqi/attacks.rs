//! Which pieces attack a point. Tests look outward from the attacked point (along its lines,
//! to its horse squares, to its soldier neighbours) so a check test costs a few table reads,
//! not a move generation.

use super::geometry::{
    DIAGONAL_STEPS, ELEPHANT_MOVES, HORSE_ATTACKS, ORTHOGONAL_STEPS, RAYS, Ray, in_palace,
    is_vertical, on_home_side,
};
use super::piece::{Color, Piece, PieceKind};
use super::position::Position;
use super::square::Square;

impl Position {
    /// Whether the side to move's general is attacked, the other general facing it on an
    /// open file included (xiangqi 3.1, 4.1).
    pub fn in_check(&self) -> bool {
        let us = self.side;
        self.general_attacked(self.general(us), us.opponent())
    }

    /// The pieces giving check to the side to move, by square.
    pub fn checkers(&self) -> Vec<Square> {
        let us = self.side;
        self.attackers(self.general(us), us.opponent())
    }

    /// The pieces of `by` that could capture on `sq` by their movement rules, whatever
    /// stands on `sq` and ignoring their own general's safety. The general counts along an
    /// open file only when `sq` holds the other general (flying general, xiangqi 4.1).
    pub fn attackers(&self, sq: Square, by: Color) -> Vec<Square> {
        let mut found = self.line_attackers(sq, by);
        found.extend(self.jump_attackers(sq, by));
        found.sort();
        found
    }

    /// Whether a general of `by`'s opponent standing on `sq` would be attacked. Only
    /// chariots, cannons, horses, soldiers and the facing general can reach a palace of the
    /// other side, so advisors and elephants are not looked for.
    pub(super) fn general_attacked(&self, sq: Square, by: Color) -> bool {
        self.line_attack(sq, by)
            || self.horse_attack(sq, by)
            || self.soldier_attackers(sq, by).next().is_some()
    }

    /// The first and second piece on a line from `sq`: a chariot (or facing general)
    /// attacks as the first, a cannon as the second (xiangqi 2.2, 炮打隔子).
    fn line_attack(&self, sq: Square, by: Color) -> bool {
        RAYS[sq.index()].iter().enumerate().any(|(d, ray)| {
            let mut pieces = ray.points().iter().filter_map(|p| self.board[p.index()]);
            match pieces.next() {
                Some(Piece { color, kind }) if color == by => match kind {
                    PieceKind::Chariot => true,
                    PieceKind::General => is_vertical(d),
                    _ => pieces.next() == Some(Piece::new(by, PieceKind::Cannon)),
                },
                Some(_) => pieces.next() == Some(Piece::new(by, PieceKind::Cannon)),
                None => false,
            }
        })
    }

    fn horse_attack(&self, sq: Square, by: Color) -> bool {
        let horse = Some(Piece::new(by, PieceKind::Horse));
        HORSE_ATTACKS[sq.index()]
            .iter()
            .any(|(h, leg)| self.board[h.index()] == horse && self.board[leg.index()].is_none())
    }

    /// Soldiers of `by` next to `sq` that may step onto it (xiangqi 2.2).
    fn soldier_attackers(&self, sq: Square, by: Color) -> impl Iterator<Item = Square> + '_ {
        let soldier = Some(Piece::new(by, PieceKind::Soldier));
        ORTHOGONAL_STEPS[sq.index()]
            .iter()
            .map(|(s, _)| s)
            .filter(move |&s| self.board[s.index()] == soldier && soldier_step(by, s, sq))
    }

    /// Chariots, cannons and the flying general, with their squares.
    fn line_attackers(&self, sq: Square, by: Color) -> Vec<Square> {
        let facing = self.board[sq.index()] == Some(Piece::new(by.opponent(), PieceKind::General));
        let hits = |(d, ray): (usize, &Ray)| {
            let [first, second] = self.first_two(ray);
            let first = first.filter(|&(_, p)| match p.kind {
                PieceKind::Chariot => p.color == by,
                PieceKind::General => p.color == by && is_vertical(d) && facing,
                _ => false,
            });
            let second = second.filter(|&(_, p)| p == Piece::new(by, PieceKind::Cannon));
            first.into_iter().chain(second).map(|(s, _)| s)
        };
        RAYS[sq.index()].iter().enumerate().flat_map(hits).collect()
    }

    /// The first two pieces along `ray`: what a chariot would hit, and what a cannon would
    /// take over the first.
    fn first_two(&self, ray: &Ray) -> [Option<(Square, Piece)>; 2] {
        let mut pieces = ray
            .points()
            .iter()
            .filter_map(|&p| Some((p, self.board[p.index()]?)));
        [pieces.next(), pieces.next()]
    }

    /// Horses, soldiers, and (inside `by`'s palace or half) general, advisors, elephants.
    fn jump_attackers(&self, sq: Square, by: Color) -> Vec<Square> {
        let at = |s: Square, kind| self.board[s.index()] == Some(Piece::new(by, kind));
        let empty = |s: Square| self.board[s.index()].is_none();
        let i = sq.index();
        let horses = HORSE_ATTACKS[i]
            .iter()
            .filter(|&(h, leg)| at(h, PieceKind::Horse) && empty(leg));
        let mut found: Vec<Square> = horses.map(|(h, _)| h).collect();
        found.extend(self.soldier_attackers(sq, by));
        if in_palace(by, sq) {
            let generals = ORTHOGONAL_STEPS[i]
                .iter()
                .filter(|&(s, _)| at(s, PieceKind::General));
            let advisors = DIAGONAL_STEPS[i]
                .iter()
                .filter(|&(s, _)| at(s, PieceKind::Advisor));
            found.extend(generals.chain(advisors).map(|(s, _)| s));
        }
        if on_home_side(by, sq) {
            let elephants = ELEPHANT_MOVES[i]
                .iter()
                .filter(|&(e, eye)| at(e, PieceKind::Elephant) && empty(eye));
            found.extend(elephants.map(|(e, _)| e));
        }
        found
    }
}

/// Whether a soldier of `color` may step from `from` to the neighbouring point `to`:
/// forward always, sideways once across the river, never backward (xiangqi 2.2).
pub(super) fn soldier_step(color: Color, from: Square, to: Square) -> bool {
    if from.rank() == to.rank() {
        !on_home_side(color, from)
    } else {
        from.offset(0, color.forward()) == Some(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::parse(text).unwrap()
    }

    fn squares(texts: &[&str]) -> Vec<Square> {
        let mut v: Vec<Square> = texts.iter().map(|t| sq(t)).collect();
        v.sort();
        v
    }

    #[test]
    fn every_kind_of_attacker_is_found() {
        // Target d4. Attack: chariot d8, horse f5, cannon d0 over the advisor d1, elephant
        // f2. No attack: horse b3 (leg c3 taken), soldiers c4 and e4 (not across the river),
        // advisor d1 (d4 is outside the palace).
        let pos = Position::from_fen("4k4/3R5/9/9/5N3/2PnP4/1NP6/5B3/3A5/3CK4 w").unwrap();
        let red = pos.attackers(sq("d4"), Color::Red);
        assert_eq!(red, squares(&["d8", "f5", "d0", "f2"]));
        assert_eq!(pos.attackers(sq("d4"), Color::Black), Vec::<Square>::new());
    }

    #[test]
    fn cannon_needs_exactly_one_screen() {
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/3KC4 b").unwrap();
        assert!(pos.in_check());
        assert_eq!(pos.checkers(), squares(&["e0"]));
        assert_eq!(pos.attackers(sq("e5"), Color::Red), squares(&["e0"]));
        assert_eq!(pos.attackers(sq("d5"), Color::Red), Vec::<Square>::new());
    }

    #[test]
    fn generals_on_different_files_do_not_check() {
        for fen in ["3k5/9/9/9/9/9/9/9/9/4K4 b", "4k4/4a4/9/9/9/9/9/9/9/4K4 b"] {
            assert!(!Position::from_fen(fen).unwrap().in_check(), "{fen}");
        }
    }

    #[test]
    fn soldier_attacks_sideways_only_across_the_river() {
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/2P6/3P5/4K4 b").unwrap();
        assert_eq!(pos.attackers(sq("d2"), Color::Red), squares(&["d1"]));
        let crossed = Position::from_fen("3kP4/9/9/9/9/9/9/9/9/4K4 b").unwrap();
        assert!(crossed.in_check());
        assert_eq!(crossed.checkers(), squares(&["e9"]));
    }
}
