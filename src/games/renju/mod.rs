//! Renju (五子棋 with black's forbidden moves), the rules alone: the 15x15 board, placement,
//! five in a row, and black's forbidden shapes with their reasons.
//!
//! ```
//! use referee::games::renju::{foul, Board, FoulKind, Point};
//!
//! // Black's f8 would make two live threes, f8 g8 h8 and f8 g9 h10: 三三.
//! let board = Board::from_moves("h8 a1 g8 a3 g9 a5 h10").unwrap();
//! let f8 = Point::parse("f8").unwrap();
//! assert_eq!(foul(&board, f8).map(|f| f.kind()), Some(FoulKind::DoubleThree));
//! ```

mod board;
mod fen;
mod forbidden;
#[cfg(test)]
mod known_answers;
mod line;
pub mod opening;
mod point;
mod spec;

pub use board::{BadBoard, Board, Stone};
pub use fen::FenError;
pub use forbidden::{
    Foul, FoulKind, Line, Three, forbidden_points, foul, foul_kind, fours, threes,
};
pub use point::{Direction, Point};
pub use spec::SPEC;
