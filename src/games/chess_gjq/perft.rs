//! Perft: the number of leaves of the legal-move tree, the standard check of a move
//! generator. A hidden piece that moves is counted as turning out the piece of its start
//! square, so a hidden game counts as ordinary chess.

use super::movegen;
use super::moves::Move;
use super::position::Position;

/// Leaf nodes of the legal-move tree `depth` plies deep. A pending reveal is completed first,
/// as the role the piece moved as.
///
/// Each ply plays its moves on a copy of the position (a few machine words) into one move list
/// kept for the whole count, and the last ply is counted without building its moves.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    pos.reveal_as_moved();
    let plies = usize::try_from(depth).unwrap_or(0).saturating_sub(1);
    let mut lists: Vec<Vec<Move>> = (0..plies).map(|_| Vec::with_capacity(64)).collect();
    count(&pos, depth, &mut lists)
}

/// `lists` holds one move list per ply above the last.
fn count(pos: &Position, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
    match depth {
        0 => return 1,
        1 => return movegen::count_legal(pos),
        _ => {}
    }
    let Some((moves, deeper)) = lists.split_first_mut() else {
        return 0;
    };
    movegen::legal_moves_into(pos, moves);
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut next = pos.clone();
        next.play(mv);
        next.reveal_as_moved();
        nodes += count(&next, depth - 1, deeper);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::super::position::Position;
    use super::perft;

    #[test]
    fn hidden_start_counts_as_chess() {
        let start = Position::startpos();
        assert_eq!([1, 2, 3].map(|d| perft(&start, d)), [20, 400, 8902]);
    }
}
