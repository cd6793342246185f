//! Perft: the number of leaves of the legal-move tree, the standard check of a move
//! generator. A hidden piece that moves is counted as turning out the piece of its start
//! square, so a hidden game counts as ordinary chess.

use super::position::Position;

/// Leaf nodes of the legal-move tree `depth` plies deep. A pending reveal is completed first,
/// as the role the piece moved as.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    pos.reveal_as_moved();
    count(&pos, depth)
}

fn count(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return u64::try_from(moves.len()).unwrap_or(u64::MAX);
    }
    moves
        .into_iter()
        .map(|mv| {
            let mut next = pos.clone();
            next.play(mv);
            next.reveal_as_moved();
            count(&next, depth - 1)
        })
        .sum()
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
