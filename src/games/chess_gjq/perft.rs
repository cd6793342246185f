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

    /// Known answers: `fen <FEN>` then `depth N nodes` lines; `#` starts a comment.
    const CHESS: &str = include_str!("../../../tests/perft/chess.perft");

    /// Entries above this many nodes are left to release-mode runs.
    const MAX_NODES: u64 = 5_000_000;

    #[test]
    fn known_answers() {
        let mut pos = None;
        let mut checked = 0;
        for (n, line) in CHESS.lines().enumerate() {
            let at = format!("tests/perft/chess.perft:{}", n + 1);
            let line = line.trim();
            if let Some(fen) = line.strip_prefix("fen ") {
                pos = Some(Position::from_fen(fen).unwrap_or_else(|e| panic!("{at}: {e}")));
            } else if let Some(rest) = line.strip_prefix("depth ") {
                let (depth, nodes) = rest.split_once(' ').unwrap_or_else(|| panic!("{at}"));
                let depth: u32 = depth.parse().unwrap_or_else(|e| panic!("{at}: {e}"));
                let nodes: u64 = nodes.trim().parse().unwrap_or_else(|e| panic!("{at}: {e}"));
                let pos = pos
                    .as_ref()
                    .unwrap_or_else(|| panic!("{at}: depth before fen"));
                if nodes <= MAX_NODES {
                    assert_eq!(perft(pos, depth), nodes, "{at}");
                    checked += 1;
                }
            } else if !line.is_empty() && !line.starts_with('#') {
                panic!("{at}: cannot read {line:?}");
            }
        }
        assert!(checked > 20, "only {checked} entries checked");
    }

    #[test]
    fn hidden_start_counts_as_chess() {
        let start = Position::startpos();
        assert_eq!([1, 2, 3].map(|d| perft(&start, d)), [20, 400, 8902]);
    }
}
