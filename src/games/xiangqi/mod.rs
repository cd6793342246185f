//! Xiangqi (中国象棋) movement rules under the Chinese Xiangqi Association rules (cited as
//! `xiangqi N.N`): the board, legal moves, check, mate and stalemate, and why a move is
//! illegal. Pure: no I/O, no events; the referee builds rulings on top.
//!
//! ```
//! use referee::games::xiangqi::{Illegal, Move, Position, Square};
//!
//! let mut pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 44);
//! let (b0, d1) = (Square::parse("b0").unwrap(), Square::parse("d1").unwrap());
//! let why = pos.check_move(b0, d1).unwrap_err();
//! assert!(matches!(why, Illegal::HorseLegBlocked { .. }));
//! assert_eq!(why.to_string(), "horse b0 to d1 is blocked at c0");
//! pos.play(Move::parse("h2e2").unwrap());
//! assert!(pos.to_fen().ends_with(" b - - 1 1"));
//! ```
#![forbid(unsafe_code)]

mod attacks;
mod fen;
mod geometry;
mod illegal;
mod legality;
mod movegen;
mod moves;
mod notation;
mod perft;
mod pgn;
mod piece;
mod position;
mod spec;
pub mod square;
mod status;
mod threats;
mod written;
mod zobrist;

#[cfg(test)]
mod known_answers;
#[cfg(test)]
mod rules_tests;

pub use fen::FenError;
pub use illegal::Illegal;
pub use moves::Move;
pub use notation::Notation;
pub use perft::perft;
pub use pgn::{Outcome, PgnError, PgnGame, PgnMove, outcome, parse_pgn};
pub use piece::{Color, Piece, PieceKind};
pub use position::{Position, PositionKey, START_FEN};
pub use spec::SPEC;
pub use square::Square;
pub use status::Status;
pub use written::{Unread, is_move_text};
