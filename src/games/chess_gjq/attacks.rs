//! Which squares each kind of piece attacks from a square, given the occupied squares.
//!
//! Tables are built at compile time (as `static`s: a `const` table would be copied at every
//! use in unoptimised builds); sliders walk precomputed rays and stop at the first
//! blocker (the classical ray method: simple, and fast enough for perft in seconds).

use super::bitboard::Bitboard;
use super::piece::{Color, Role};
use super::square::Square;

/// Steps (file, rank) of the eight ray directions; the first four go up the index order,
/// odd ones are diagonal.
const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (-1, 1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (1, -1),
];

/// Directions 0..4 have increasing square indices, so their first blocker is the lowest bit.
const fn ascending(direction: usize) -> bool {
    direction < 4
}

/// Squares reached by single steps of `(df, dr)` from file `f`, rank `r`, `max` steps at most.
const fn walk(mut f: i8, mut r: i8, df: i8, dr: i8, max: u8) -> u64 {
    let mut mask = 0;
    let mut steps = 0;
    f += df;
    r += dr;
    while f >= 0 && f < 8 && r >= 0 && r < 8 && steps < max {
        mask |= 1 << (r * 8 + f);
        f += df;
        r += dr;
        steps += 1;
    }
    mask
}

/// One table entry per square: the union of single steps. Indices count up with the
/// loop (rank-major, as `Square::index`), so no casts are needed.
const fn step_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut index = 0;
    let mut r = 0;
    while r < 8 {
        let mut f = 0;
        while f < 8 {
            let mut i = 0;
            while i < steps.len() {
                table[index] |= walk(f, r, steps[i].0, steps[i].1, 1);
                i += 1;
            }
            index += 1;
            f += 1;
        }
        r += 1;
    }
    table
}

const fn ray_table() -> [[u64; 64]; 8] {
    let mut table = [[0; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut index = 0;
        let mut r = 0;
        while r < 8 {
            let mut f = 0;
            while f < 8 {
                table[d][index] = walk(f, r, DIRECTIONS[d].0, DIRECTIONS[d].1, 8);
                index += 1;
                f += 1;
            }
            r += 1;
        }
        d += 1;
    }
    table
}

static KNIGHT: [u64; 64] = step_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = step_table(&DIRECTIONS);
static WHITE_PAWN: [u64; 64] = step_table(&[(-1, 1), (1, 1)]);
static BLACK_PAWN: [u64; 64] = step_table(&[(-1, -1), (1, -1)]);
static RAYS: [[u64; 64]; 8] = ray_table();

/// Squares a knight on `sq` attacks.
pub fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
pub fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (diagonally forward).
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN[sq.index()]),
    }
}

/// Squares along one ray from `sq` up to and including the first occupied one.
fn ray(direction: usize, sq: Square, occupied: Bitboard) -> Bitboard {
    let full = RAYS[direction][sq.index()];
    let blockers = Bitboard(full & occupied.0);
    let first = if ascending(direction) {
        blockers.first()
    } else {
        blockers.last()
    };
    match first {
        Some(b) => Bitboard(full ^ RAYS[direction][b.index()]),
        None => Bitboard(full),
    }
}

/// Squares a bishop on `sq` attacks.
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    ray(1, sq, occupied) | ray(3, sq, occupied) | ray(5, sq, occupied) | ray(7, sq, occupied)
}

/// Squares a rook on `sq` attacks.
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    ray(0, sq, occupied) | ray(2, sq, occupied) | ray(4, sq, occupied) | ray(6, sq, occupied)
}

/// Squares a piece of `role` and `color` on `sq` attacks.
pub fn of(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn(color, sq),
        Role::Knight => knight(sq),
        Role::Bishop => bishop(sq, occupied),
        Role::Rook => rook(sq, occupied),
        Role::Queen => bishop(sq, occupied) | rook(sq, occupied),
        Role::King => king(sq),
    }
}

/// `BETWEEN[a][b]`: the squares strictly between `a` and `b` along the ray from `a` that
/// reaches `b`, and `ALIGNED[a]` the squares some ray from `a` reaches.
const fn between_table() -> [[u64; 64]; 64] {
    let rays = ray_table();
    let mut table = [[0; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let mut rest = rays[d][a];
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                table[a][b] = rays[d][a] & !rays[d][b] & !(1 << b);
            }
            d += 1;
        }
        a += 1;
    }
    table
}

static BETWEEN: [[u64; 64]; 64] = between_table();

/// The squares strictly between `a` and `b` if they share a rank, file or diagonal.
pub fn between(a: Square, b: Square) -> Option<Bitboard> {
    let aligned = (bishop(a, Bitboard::EMPTY) | rook(a, Bitboard::EMPTY)).contains(b);
    aligned.then(|| between_unchecked(a, b))
}

/// The squares strictly between `a` and `b`; empty if they share no line (or are adjacent).
pub fn between_unchecked(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

#[cfg(test)]
mod tests {
    use super::super::bitboard::Bitboard;
    use super::super::square::Square;
    use super::{between, between_unchecked, bishop, king, knight, rook};

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    #[test]
    fn leapers_near_the_edge() {
        assert_eq!(knight(sq("a1")).count(), 2);
        assert_eq!(knight(sq("e4")).count(), 8);
        assert_eq!(king(sq("h8")).count(), 3);
    }

    #[test]
    fn sliders_stop_at_the_first_blocker() {
        let occupied = Bitboard::from_square(sq("e6")) | Bitboard::from_square(sq("c2"));
        let r = rook(sq("e4"), occupied);
        assert!(r.contains(sq("e6")) && !r.contains(sq("e7")));
        assert_eq!(r.count(), 2 + 3 + 7);
        let b = bishop(sq("e4"), occupied);
        assert!(b.contains(sq("c2")) && !b.contains(sq("b1")));
    }

    #[test]
    fn between_lines_only() {
        assert_eq!(between(sq("e1"), sq("h1")).map(Bitboard::count), Some(2));
        assert_eq!(between(sq("a1"), sq("h8")).map(Bitboard::count), Some(6));
        assert_eq!(between(sq("a1"), sq("b3")), None);
        assert_eq!(between(sq("h8"), sq("a1")).map(Bitboard::count), Some(6));
        assert!(between_unchecked(sq("a1"), sq("b3")).is_empty());
        assert!(between_unchecked(sq("d4"), sq("e5")).is_empty());
        let d = between_unchecked(sq("d8"), sq("d1"));
        assert!(d.contains(sq("d2")) && d.contains(sq("d7")) && d.count() == 6);
    }
}
