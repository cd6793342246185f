//! The rules of each game, pure: no events, I/O, async, proto or storage.
//!
//! Each game speaks its own nouns (`xiangqi::Position`, a draughts move is a capture path);
//! what they share is the small [`Variant`] tag used to dispatch, each game's [`GameSpec`]
//! (what the shared layers read instead of matching on the variant), and the text of the
//! PGN/PDN game files their records come in ([`pgn_text`]), each game reading the moves.

pub mod chess_gjq;
pub mod draughts;
mod game;
pub mod pgn_text;
pub mod renju;
pub mod sensor;
pub mod spec;
pub mod xiangqi;

pub use game::{AnyPosition, BadFen, Game, Outcome, Player};
pub use spec::{GameSpec, RuleKey, SquareKind};

use std::fmt;

/// Declares the games once: the [`Variant`] tag, its list [`Variant::ALL`] and each game's
/// [`GameSpec`]. Adding a game is one line here (its folder holds `SPEC`).
macro_rules! games {
    ($($variant:ident => $module:ident),+ $(,)?) => {
        /// Which game a log is for, as named in the header's `variant`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Variant {
            $($variant),+
        }

        impl Variant {
            /// Every game, in the order help texts and messages list them.
            pub const ALL: &'static [Variant] = &[$(Variant::$variant),+];

            /// What the shared layers know of this game.
            pub fn spec(self) -> &'static GameSpec {
                match self {
                    $(Variant::$variant => &$module::SPEC),+
                }
            }
        }
    };
}

games! {
    ChessGjq => chess_gjq,
    Xiangqi => xiangqi,
    Draughts => draughts,
    Renju => renju,
}

impl Variant {
    /// The name used in logs and on the command line.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(name: &str) -> Option<Variant> {
        Variant::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// Reads a game's name, or says which names there are.
    pub fn parse_named(name: &str) -> Result<Variant, String> {
        Variant::parse(name).ok_or_else(|| {
            format!(
                "unknown variant {} (expected {})",
                crate::quote::quote(name),
                Variant::names()
            )
        })
    }

    /// Every game's name, for a message or a help text: `chess_gjq, xiangqi, draughts or
    /// renju`.
    pub fn names() -> String {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }

    /// How the first and second player are called in this game's logs (in renju black
    /// moves first).
    pub fn side_names(self) -> [&'static str; 2] {
        self.spec().sides
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
