//! A square as an event names it, checked against the board of the game's variant.

use std::fmt;

use crate::games::{SquareKind, Variant, chess_gjq, draughts, renju, xiangqi};

/// A square that exists on the board of the event's game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
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

    pub fn chess_gjq(self) -> Option<chess_gjq::Square> {
        match self {
            Square::ChessGjq(s) => Some(s),
            _ => None,
        }
    }

    pub fn xiangqi(self) -> Option<xiangqi::Square> {
        match self {
            Square::Xiangqi(s) => Some(s),
            _ => None,
        }
    }

    pub fn draughts(self) -> Option<draughts::Square> {
        match self {
            Square::Draughts(s) => Some(s),
            _ => None,
        }
    }

    pub fn renju(self) -> Option<renju::Point> {
        match self {
            Square::Renju(p) => Some(p),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Square::ChessGjq(s) => s.fmt(f),
            Square::Xiangqi(s) => s.fmt(f),
            Square::Draughts(s) => s.fmt(f),
            Square::Renju(p) => p.fmt(f),
        }
    }
}
