//! The rules of each game, pure: no events, I/O, async, proto or storage.
//!
//! Each game speaks its own nouns (`xiangqi::Position`, a draughts move is a capture path);
//! what they share is only the small [`Variant`] tag used to dispatch, and the text of the
//! PGN/PDN game files their records come in ([`pgn_text`]), each game reading the moves.

pub mod chess_gjq;
pub mod draughts;
mod game;
pub mod pgn_text;
pub mod renju;
pub mod xiangqi;

pub use game::{AnyPosition, BadFen, Game, Outcome, Player};

use std::fmt;

/// Which game a log is for, as named in the header's `variant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    ChessGjq,
    Xiangqi,
    Draughts,
    Renju,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::ChessGjq,
        Variant::Xiangqi,
        Variant::Draughts,
        Variant::Renju,
    ];

    /// The name used in logs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::ChessGjq => "chess_gjq",
            Variant::Xiangqi => "xiangqi",
            Variant::Draughts => "draughts",
            Variant::Renju => "renju",
        }
    }

    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// How the first and second player are called in this game's logs (in renju black
    /// moves first).
    pub fn side_names(self) -> [&'static str; 2] {
        match self {
            Variant::Xiangqi => ["red", "black"],
            Variant::ChessGjq | Variant::Draughts => ["white", "black"],
            Variant::Renju => ["black", "white"],
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Leaf count of the legal-move tree from `fen` (default: the start), to `depth` plies.
///
/// Chess Gjq counts a hidden piece that moves as revealing its start square's piece, so from
/// positions without hidden pieces it equals ordinary chess perft; draughts counts captures
/// that differ only in route once; renju counts every empty point as a placement (black's
/// forbidden points included: what a forbidden stone costs is the referee's rule-set option)
/// and ends a line at a five or a full board.
pub fn perft(variant: Variant, fen: Option<&str>, depth: u32) -> Result<u64, BadFen> {
    Ok(AnyPosition::start(variant, fen)?.perft(depth))
}
