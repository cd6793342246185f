//! Perft: the number of leaves of the legal-move tree, the standard check of a move generator
//! against published counts. Captures that differ only in route but take the same pieces from
//! the same start to the same end count once.

use super::movegen::{Compact, count_moves, generate_into};
use super::position::Position;

/// The number of legal move sequences of `depth` plies from `pos`, counting one move per
/// (from, to, captured set).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    count(pos, depth, true)
}

/// Perft with `distinct` choosing whether equal routes are merged (false: every route counts,
/// the other convention some published tables use).
///
/// Each ply plays its moves on a copy of the position (three words) from one move list kept
/// for the whole count; the last ply counts quiet moves without building them.
pub(super) fn count(pos: &Position, depth: u32, distinct: bool) -> u64 {
    let plies = usize::try_from(depth).unwrap_or(0);
    let mut lists: Vec<Vec<Compact>> = (0..plies).map(|_| Vec::with_capacity(32)).collect();
    walk(pos, depth, distinct, &mut lists)
}

/// `lists` holds one move list per remaining ply.
fn walk(pos: &Position, depth: u32, distinct: bool, lists: &mut [Vec<Compact>]) -> u64 {
    let Some((moves, deeper)) = lists.split_first_mut() else {
        return 1;
    };
    if depth <= 1 {
        return count_moves(pos, distinct, moves);
    }
    generate_into(pos, distinct, moves);
    let mut nodes = 0;
    for mv in moves.iter() {
        let mut next = pos.clone();
        next.play_indices(mv.from, mv.to, mv.taken);
        nodes += walk(&next, depth - 1, distinct, deeper);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::{Position, count};

    #[test]
    fn equal_routes_count_once() {
        // The loop round 28 can be run either way: two routes, one move (6.14).
        let pos = Position::from_fen("W:WK28:B14,23,24,33,34").unwrap();
        assert_eq!((count(&pos, 1, true), count(&pos, 1, false)), (11, 12));
    }

    /// Source: perft_reference.json "initial" nodes_keep_duplicates (dctl board_10x10.cpp):
    /// depth 8 is the first where routes and moves differ (6483971 against 6483961).
    #[test]
    #[ignore = "6.5 million nodes: run in release with --ignored"]
    fn every_route_counted() {
        assert_eq!(count(&Position::startpos(), 8, false), 6_483_971);
    }
}
