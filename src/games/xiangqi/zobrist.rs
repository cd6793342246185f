//! Zobrist keys: a fast 64-bit position hash for first-pass lookups. A hash match is only a
//! hint; repetition rulings compare full `PositionKey`s, since a false repetition would be a
//! wrong ruling.

use super::piece::{Color, Piece};
use super::square::Square;

/// `PIECE_KEYS[sq][piece.index()]`.
static PIECE_KEYS: [[u64; 14]; 90] = build_keys();

/// Xored in when black is to move.
pub(super) const BLACK_TO_MOVE: u64 = 0x9d39_247e_3377_6d41;

/// The key of `piece` standing on `sq`.
pub(super) fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_KEYS[sq.index()][piece.index()]
}

/// The key of the side to move.
pub(super) fn side_key(side: Color) -> u64 {
    match side {
        Color::Red => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}

/// splitmix64: fixed, well-mixed constants, so hashes are the same on every machine.
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn build_keys() -> [[u64; 14]; 90] {
    let mut keys = [[0; 14]; 90];
    let mut state = 0x5851_f42d_4c95_7f2d;
    let mut sq = 0;
    while sq < 90 {
        let mut p = 0;
        while p < 14 {
            let (next, key) = splitmix(state);
            state = next;
            keys[sq][p] = key;
            p += 1;
        }
        sq += 1;
    }
    keys
}
