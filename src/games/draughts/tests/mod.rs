//! Tests of the rules as a player would check them: one test per article, then reported moves,
//! then whole recorded games.

mod games;
mod json;
mod pdn;
mod resolve;
mod rules;

use super::{Move, Position, Square};

/// `shared/data/draughts` in the nearest directory above the repository that has it (the main
/// checkout and its worktrees sit at different depths below the shared directory).
fn shared_data() -> std::path::PathBuf {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    repo.ancestors()
        .map(|dir| dir.join("shared/data/draughts"))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| repo.join("../shared/data/draughts"))
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
