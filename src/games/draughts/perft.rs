//! Perft: the number of leaves of the legal-move tree, the standard check of a move generator
//! against published counts. Captures that differ only in route but take the same pieces from
//! the same start to the same end count once.

use super::movegen::{Compact, generate};
use super::position::Position;

/// The number of legal move sequences of `depth` plies from `pos`, counting one move per
/// (from, to, captured set).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    count(pos, depth, true)
}

/// Perft with `distinct` choosing whether equal routes are merged (false: every route counts,
/// the other convention some published tables use).
pub(super) fn count(pos: &Position, depth: u32, distinct: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves: Vec<Compact> = generate(pos, distinct);
    if depth == 1 {
        return u64::try_from(moves.len()).unwrap_or(u64::MAX);
    }
    let mut nodes = 0;
    for mv in moves {
        let mut next = pos.clone();
        next.play_indices(mv.from, mv.to, mv.taken);
        nodes += count(&next, depth - 1, distinct);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::{Position, count};

    /// Known answers; `# Source:` lines say where each number comes from.
    const DATA: &str = include_str!("../../../tests/perft/draughts.perft");

    /// The largest count the unit tests check (larger ones are for `--ignored` or release runs).
    const MAX_NODES: u64 = 5_000_000;

    struct Case {
        line: usize,
        fen: String,
        depth: u32,
        nodes: u64,
        distinct: bool,
    }

    fn cases() -> Vec<Case> {
        let (mut fen, mut distinct, mut cases) = (String::new(), true, Vec::new());
        for (i, line) in DATA.lines().enumerate() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("fen ") {
                (fen, distinct) = (rest.trim().to_string(), true);
            } else if line == "routes all" {
                distinct = false;
            } else if let Some(rest) = line.strip_prefix("depth ") {
                let (depth, nodes) = rest.split_once(' ').expect("depth N nodes");
                let (depth, nodes) = (depth.parse().unwrap(), nodes.trim().parse().unwrap());
                cases.push(Case {
                    line: i + 1,
                    fen: fen.clone(),
                    depth,
                    nodes,
                    distinct,
                });
            } else {
                assert!(
                    line.is_empty() || line.starts_with('#'),
                    "line {}: {line}",
                    i + 1
                );
            }
        }
        cases
    }

    fn check(filter: impl Fn(&Case) -> bool) {
        let cases = cases();
        assert!(
            cases.len() > 30,
            "perft file has only {} entries",
            cases.len()
        );
        for case in cases.iter().filter(|c| filter(c)) {
            let pos = Position::from_fen(&case.fen)
                .unwrap_or_else(|e| panic!("draughts.perft:{}: {e}", case.line));
            let got = count(&pos, case.depth, case.distinct);
            assert_eq!(
                got, case.nodes,
                "draughts.perft:{}: {} depth {}",
                case.line, case.fen, case.depth
            );
        }
    }

    #[test]
    fn known_answers() {
        check(|c| c.nodes <= MAX_NODES);
    }

    #[test]
    fn equal_routes_count_once() {
        // The loop round 28 can be run either way: two routes, one move (6.14).
        let pos = Position::from_fen("W:WK28:B14,23,24,33,34").unwrap();
        assert_eq!((count(&pos, 1, true), count(&pos, 1, false)), (11, 12));
    }

    /// Source: perft_reference.json "initial" nodes_keep_duplicates (dctl board_10x10.cpp):
    /// depth 8 is the first where routes and moves differ (6483971 against 6483961).
    #[test]
    #[ignore]
    fn every_route_counted() {
        assert_eq!(count(&Position::startpos(), 8, false), 6_483_971);
    }

    /// `cargo test --release -- --ignored`: the deeper counts, up to about 50 million nodes.
    #[test]
    #[ignore]
    fn known_answers_deep() {
        check(|c| c.nodes > MAX_NODES && c.nodes <= 50_000_000);
    }
}
