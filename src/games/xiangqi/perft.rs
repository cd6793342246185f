//! Perft: the number of leaf positions of the legal move tree, the standard known-answer
//! test of a move generator.

use super::moves::Move;
use super::position::Position;

/// The number of legal move sequences of `depth` plies from `pos` (1 at depth 0).
/// The last ply is counted, not played ("bulk counting").
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    let plies = usize::try_from(depth).expect("a u32 fits in usize");
    let mut buffers: Vec<Vec<Move>> = (0..plies).map(|_| Vec::with_capacity(128)).collect();
    count(&mut pos, &mut buffers)
}

/// One move list per remaining ply, reused across siblings so the search never allocates.
fn count(pos: &mut Position, buffers: &mut [Vec<Move>]) -> u64 {
    let Some((moves, deeper)) = buffers.split_first_mut() else {
        return 1;
    };
    pos.legal_into(moves);
    if deeper.is_empty() {
        return u64::try_from(moves.len()).expect("a move list fits in u64");
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let captured = pos.put(mv);
        pos.side = pos.side.opponent();
        total += count(pos, deeper);
        pos.side = pos.side.opponent();
        pos.take_back(mv, captured);
    }
    total
}
