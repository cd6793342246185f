//! Chess Gjq (国象翻棋): chess with hidden, shuffled pieces — the pure rules.
//!
//! Only the kings start face up; the other 30 pieces stand face down, shuffled per colour on
//! the usual start squares (chess_gjq 3.1.2). A hidden piece moves as the piece of its start
//! square (3.1.3); it is turned up after its first move and is then what it really is (3.1.5).
//!
//! ```
//! use referee::games::chess_gjq::{Position, Role, Square};
//! let sq = |s| Square::parse(s).unwrap();
//! let mut pos = Position::startpos();
//! let mv = pos.check_move(sq("e2"), sq("e4"), None).unwrap();
//! pos.play(mv);
//! assert_eq!(pos.pending_reveal(), Some(sq("e4")));
//! pos.reveal(sq("e4"), Role::Rook, None).unwrap(); // `e2-e4车`
//! assert_eq!(pos.to_fen(), "xxxxkxxx/xxxxxxxx/8/8/4R3/8/XXXX1XXX/XXXXKXXX b KQkq e3 0 1");
//! ```

mod attacks;
mod bitboard;
mod board;
mod castling;
mod fen;
mod hidden;
mod illegal;
mod movegen;
mod moves;
mod outcome;
mod perft;
mod piece;
mod position;
mod repetition;
mod spec;
pub mod square;

#[cfg(test)]
mod tests;

pub use castling::{CastlingReason, CastlingRights, CastlingSide};
pub use fen::FenError;
pub use hidden::{RevealError, RevealedSet, quota, start_role};
pub use illegal::{Illegal, Mover, PawnReason};
pub use moves::Move;
pub use outcome::Status;
pub use perft::perft;
pub use piece::{Color, Piece, Role};
pub use position::{Position, START_FEN};
pub use repetition::RepetitionKey;
pub use spec::SPEC;
pub use square::Square;
