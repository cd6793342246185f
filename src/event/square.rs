//! A square as an event names it, checked against the board of the game's variant.

use std::fmt;

use crate::games::{SquareKind, Variant, chess_gjq, draughts, renju, xiangqi};

/// A game's own square type, as an event carries it: the referee's tables read an event's
/// squares through this once (see `referee::table::Played`) and never see another game's.
pub trait GameSquare: Copy + Into<Square> {
    /// The square, if it is one of this game's.
    fn of(square: Square) -> Option<Self>;
}

/// Declares the event's square once per game: the [`Square`] arm, the game's [`GameSquare`]
/// (both ways between the two) and its `Display`. A new game is one line here and one arm of
/// [`Square::parse`].
macro_rules! squares {
    ($($variant:ident($($ty:ident)::+)),+ $(,)?) => {
        /// A square that exists on the board of the event's game.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Square {
            $($variant($($ty)::+)),+
        }

        $(
            impl From<$($ty)::+> for Square {
                fn from(square: $($ty)::+) -> Square {
                    Square::$variant(square)
                }
            }

            impl GameSquare for $($ty)::+ {
                fn of(square: Square) -> Option<Self> {
                    match square {
                        Square::$variant(s) => Some(s),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )+

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
    ChessGjq(chess_gjq::Square),
    Xiangqi(xiangqi::Square),
    Draughts(draughts::Square),
    Renju(renju::Point),
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
