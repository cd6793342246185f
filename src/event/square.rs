//! A square as an event names it, checked against the board of the game's variant.

use std::fmt;

use crate::games::{SquareKind, Variant, chess_gjq, draughts, renju, xiangqi};

/// Declares the event's square once per game: the [`Square`] arm, its accessor (`Square::xiangqi`,
/// what the game's table reads) and its `Display`. A new game is one line here and one arm of
/// [`Square::parse`].
macro_rules! squares {
    ($($variant:ident($($ty:ident)::+) => $accessor:ident),+ $(,)?) => {
        /// A square that exists on the board of the event's game.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Square {
            $($variant($($ty)::+)),+
        }

        impl Square {
            $(
                /// The square, if it is one of this game's.
                pub fn $accessor(self) -> Option<$($ty)::+> {
                    match self {
                        Square::$variant(s) => Some(s),
                        _ => None,
                    }
                }
            )+
        }

        impl fmt::Display for Square {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Square::$variant(s) => s.fmt(f)),+
                }
            }
        }
    };
}

squares! {
    ChessGjq(chess_gjq::Square) => chess_gjq,
    Xiangqi(xiangqi::Square) => xiangqi,
    Draughts(draughts::Square) => draughts,
    Renju(renju::Point) => renju,
}

impl Square {
    /// Parses a square as the game writes it: `e2`, `h9`, renju `o15`, draughts `32`.
    pub fn parse(variant: Variant, text: &str) -> Option<Square> {
        match variant {
            Variant::ChessGjq => chess_gjq::Square::parse(text).map(Square::ChessGjq),
            Variant::Xiangqi => xiangqi::Square::parse(text).map(Square::Xiangqi),
            Variant::Draughts => text
                .parse()
                .ok()
                .and_then(draughts::Square::new)
                .map(Square::Draughts),
            Variant::Renju => renju::Point::parse(text).map(Square::Renju),
        }
    }

    /// Parses a square written as text in a game whose squares are named (`e2`).
    pub fn parse_text(variant: Variant, text: &str) -> Option<Square> {
        let named = variant.spec().squares.kind == SquareKind::Named;
        named.then(|| Square::parse(variant, text)).flatten()
    }

    /// Parses a square number in a game whose squares are numbered (draughts).
    pub fn parse_number(variant: Variant, number: u64) -> Option<Square> {
        let numbered = variant.spec().squares.kind == SquareKind::Numbered;
        numbered
            .then(|| Square::parse(variant, &number.to_string()))
            .flatten()
    }
}
