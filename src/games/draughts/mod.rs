//! International draughts on the 10x10 board, by the FMJD rules (cited as `draughts N.N`):
//! men step forward and capture both ways, kings fly, captures are compulsory and must take
//! the most pieces, and a capture is a route whose jumped pieces leave only at its end.
//!
//! ```text
//! let pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 9);
//! let sq = |n| Square::new(n).unwrap();
//! assert!(matches!(pos.resolve(sq(32), sq(28), None), Resolution::Legal(_)));
//! ```

mod diagonal;
mod fen;
mod illegal;
mod movegen;
mod moves;
mod pdn;
mod perft;
mod piece;
mod position;
mod record;
mod resolve;
mod spec;
pub mod square;
#[cfg(test)]
mod tests;

pub use fen::FenError;
pub use illegal::{Impossibility, Irregularity};
pub use moves::Move;
pub use pdn::{Outcome, PdnError, PdnGame, PdnMove, outcome, parse_pdn, result_text, write_pdn};
pub use perft::perft;
pub use piece::{Color, Piece, PieceKind};
pub use position::Position;
pub use record::Record;
pub use resolve::Resolution;
pub use spec::SPEC;
pub use square::Square;
