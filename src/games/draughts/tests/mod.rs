//! Tests of the rules as a player would check them: one test per article, then reported moves,
//! then whole recorded games.

mod games;
mod json;
mod pdn;
mod resolve;
mod rules;

use super::{Move, Position, Square};

/// The draughts test data copied into the repository (`tests/data/draughts`, attribution in
/// `tests/data/README.md`), so the tests of real games always run.
fn shared_data() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/draughts")
}

/// Square `n`, which must exist.
fn sq(n: u64) -> Square {
    Square::new(n).unwrap_or_else(|| panic!("square {n}"))
}

/// The position of a PDN FEN, which must be valid.
fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The legal moves in full notation, sorted, so tests read like a move list.
fn moves(fen: &str) -> Vec<String> {
    let mut list: Vec<String> = pos(fen).legal_moves().iter().map(Move::pdn_full).collect();
    list.sort();
    list
}
