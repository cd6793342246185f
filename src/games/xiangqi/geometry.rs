//! The board's lines, palaces and river, as tables built at compile time so that move
//! generation never does coordinate arithmetic or bounds checks in its inner loops.
//! The builders are `const fn`, where `usize::from` cannot be called: their only `as` casts
//! widen a `u8` below 90 to `usize`, which loses nothing.

use super::piece::Color;
use super::square::Square;

/// The points reachable from one point in one direction, nearest first.
#[derive(Clone, Copy)]
pub(super) struct Ray {
    points: [Square; 9],
    len: u8,
}

impl Ray {
    pub(super) fn points(&self) -> &[Square] {
        &self.points[..usize::from(self.len)]
    }
}

/// Up to eight jumps from one point, each with the point it passes over (the horse's leg,
/// the elephant's eye) or, for plain steps, the target again.
#[derive(Clone, Copy)]
pub(super) struct Jumps {
    to: [Square; 8],
    via: [Square; 8],
    len: u8,
}

impl Jumps {
    /// `(target, point passed over)` pairs.
    pub(super) fn iter(&self) -> impl Iterator<Item = (Square, Square)> + '_ {
        let n = usize::from(self.len);
        self.to[..n]
            .iter()
            .copied()
            .zip(self.via[..n].iter().copied())
    }
}

/// North (towards rank 9), south, east (towards file i), west. Vertical ones first: only
/// they can carry the flying-general attack.
pub(super) const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

/// Whether `DIRECTIONS[d]` runs along a file, where generals may face (xiangqi 2.2).
pub(super) fn is_vertical(d: usize) -> bool {
    d < 2
}

/// `RAYS[sq][d]`: the line from `sq` in `DIRECTIONS[d]`.
pub(super) static RAYS: [[Ray; 4]; 90] = build_rays();

/// Horse moves (xiangqi 2.2): target and leg (the orthogonal neighbour it passes).
pub(super) static HORSE_MOVES: [Jumps; 90] = build_horse(false);

/// Where a horse must stand to attack a point, with the leg it would pass: the reverse of
/// `HORSE_MOVES`, used to test attacks from the attacked point outward.
pub(super) static HORSE_ATTACKS: [Jumps; 90] = build_horse(true);

/// Elephant moves (xiangqi 2.2): two points diagonally, with the eye (the midpoint).
/// The river is not applied here; it depends on the side.
pub(super) static ELEPHANT_MOVES: [Jumps; 90] = build_diagonal(2);

/// One point diagonally (advisor); the palace is applied by the caller.
pub(super) static DIAGONAL_STEPS: [Jumps; 90] = build_diagonal(1);

/// One point orthogonally (general, soldier); palace and direction are applied by callers.
pub(super) static ORTHOGONAL_STEPS: [Jumps; 90] = build_orthogonal();

/// The palaces (xiangqi 1.1): files d-f, ranks 0-2 for red and 7-9 for black.
const PALACES: [u128; 2] = [region(3, 5, 0, 2), region(3, 5, 7, 9)];

/// Each side's half of the board, up to the river (xiangqi 1.1).
const HOME_SIDES: [u128; 2] = [region(0, 8, 0, 4), region(0, 8, 5, 9)];

/// Whether `sq` lies in `color`'s palace.
pub(super) fn in_palace(color: Color, sq: Square) -> bool {
    PALACES[color.index()] >> sq.raw() & 1 == 1
}

/// Whether `sq` lies on `color`'s side of the river.
pub(super) fn on_home_side(color: Color, sq: Square) -> bool {
    HOME_SIDES[color.index()] >> sq.raw() & 1 == 1
}

/// A bit mask of the rectangle of files `f0..=f1` and ranks `r0..=r1`.
const fn region(f0: u8, f1: u8, r0: u8, r1: u8) -> u128 {
    let mut mask = 0;
    let mut rank = r0;
    while rank <= r1 {
        let mut file = f0;
        while file <= f1 {
            mask |= 1 << (rank * 9 + file);
            file += 1;
        }
        rank += 1;
    }
    mask
}

/// The point `(df, dr)` away from index `sq`, if on the board.
const fn shifted(sq: u8, df: i8, dr: i8) -> Option<Square> {
    let file = (sq % 9).cast_signed() + df;
    let rank = (sq / 9).cast_signed() + dr;
    if file < 0 || file > 8 || rank < 0 || rank > 9 {
        return None;
    }
    Some(Square::at(rank.unsigned_abs() * 9 + file.unsigned_abs()))
}

const EMPTY_RAY: Ray = Ray {
    points: [Square::at(0); 9],
    len: 0,
};

const EMPTY_JUMPS: Jumps = Jumps {
    to: [Square::at(0); 8],
    via: [Square::at(0); 8],
    len: 0,
};

const fn build_rays() -> [[Ray; 4]; 90] {
    let mut rays = [[EMPTY_RAY; 4]; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIRECTIONS[d];
            let ray = &mut rays[sq as usize][d];
            let mut k = 1;
            while let Some(to) = shifted(sq, df * k, dr * k) {
                ray.points[ray.len as usize] = to;
                ray.len += 1;
                k += 1;
            }
            d += 1;
        }
        sq += 1;
    }
    rays
}

/// Adds the jump `(df, dr)` via `(vf, vr)` from `sq` if both points are on the board.
const fn push_jump(jumps: &mut Jumps, sq: u8, (df, dr): (i8, i8), (vf, vr): (i8, i8)) {
    if let (Some(to), Some(via)) = (shifted(sq, df, dr), shifted(sq, vf, vr)) {
        jumps.to[jumps.len as usize] = to;
        jumps.via[jumps.len as usize] = via;
        jumps.len += 1;
    }
}

/// Horse jumps; `reverse` lists attackers instead: a horse at `sq + (2a, b)` reaches `sq`
/// passing the leg `sq + (a, b)`, the diagonal neighbour of `sq`.
const fn build_horse(reverse: bool) -> [Jumps; 90] {
    let mut table = [EMPTY_JUMPS; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut i = 0;
        while i < 8 {
            let (a, b) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][i / 2];
            let (to, leg) = match (i % 2 == 0, reverse) {
                (true, false) => ((2 * a, b), (a, 0)),
                (false, false) => ((a, 2 * b), (0, b)),
                (true, true) => ((2 * a, b), (a, b)),
                (false, true) => ((a, 2 * b), (a, b)),
            };
            push_jump(&mut table[sq as usize], sq, to, leg);
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn build_diagonal(distance: i8) -> [Jumps; 90] {
    let mut table = [EMPTY_JUMPS; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut i = 0;
        while i < 4 {
            let (a, b) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][i];
            push_jump(
                &mut table[sq as usize],
                sq,
                (a * distance, b * distance),
                (a, b),
            );
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn build_orthogonal() -> [Jumps; 90] {
    let mut table = [EMPTY_JUMPS; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut d = 0;
        while d < 4 {
            push_jump(&mut table[sq as usize], sq, DIRECTIONS[d], DIRECTIONS[d]);
            d += 1;
        }
        sq += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::parse(text).unwrap()
    }

    #[test]
    fn horse_in_the_corner_has_two_jumps() {
        let jumps: Vec<_> = HORSE_MOVES[sq("a0").index()].iter().collect();
        assert_eq!(jumps, [(sq("c1"), sq("b0")), (sq("b2"), sq("a1"))]);
    }

    #[test]
    fn horse_attack_table_is_the_reverse_of_moves() {
        let mut forward = Vec::new();
        let mut backward = Vec::new();
        for (i, (moves, attacks)) in HORSE_MOVES.iter().zip(&HORSE_ATTACKS).enumerate() {
            forward.extend(moves.iter().map(|(to, leg)| (i, to.index(), leg)));
            backward.extend(attacks.iter().map(|(from, leg)| (from.index(), i, leg)));
        }
        forward.sort();
        backward.sort();
        assert_eq!(forward, backward);
    }

    #[test]
    fn palace_and_river() {
        assert!(in_palace(Color::Red, sq("d0")) && in_palace(Color::Black, sq("f9")));
        assert!(!in_palace(Color::Red, sq("c1")) && !in_palace(Color::Red, sq("e3")));
        assert!(on_home_side(Color::Red, sq("i4")) && !on_home_side(Color::Red, sq("a5")));
    }

    #[test]
    fn rays_stop_at_the_edge() {
        let north: Vec<_> = RAYS[sq("e7").index()][0].points().to_vec();
        assert_eq!(north, [sq("e8"), sq("e9")]);
        assert_eq!(RAYS[sq("a0").index()][3].points().len(), 0);
    }
}
