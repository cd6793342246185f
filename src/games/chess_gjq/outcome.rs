//! How a position stands: play on, checkmate, stalemate, or a dead position.

use super::bitboard::Bitboard;
use super::movegen;
use super::piece::Role;
use super::position::Position;

/// Whether the side to move can play on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has a legal move (or a reveal is pending).
    Ongoing,
    /// In check with no legal move: the side to move has lost (chess_gjq 5.1).
    Checkmate,
    /// Not in check and no legal move: a draw (chess_gjq 6.3).
    Stalemate,
}

/// Light squares: b1, a2, ... (a1 is dark).
const LIGHT_SQUARES: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);

impl Position {
    /// Checkmate, stalemate or neither. While a reveal is pending the game goes on: the
    /// reveal completes the move.
    pub fn status(&self) -> Status {
        if self.pending.is_some() || movegen::any_legal(self, |_, _, _| true) {
            Status::Ongoing
        } else if self.in_check() {
            Status::Checkmate
        } else {
            Status::Stalemate
        }
    }

    /// Whether neither side can ever mate (chess_gjq 6.1), judged only once no hidden piece
    /// is left (a hidden piece could be anything): king against king, king and one minor
    /// piece against king, or kings and bishops that all stand on squares of one colour.
    pub fn is_dead_position(&self) -> bool {
        if self.hidden_count() > 0 {
            return false;
        }
        let board = &self.board;
        let heavy =
            board.by_role(Role::Pawn) | board.by_role(Role::Rook) | board.by_role(Role::Queen);
        if heavy.any() {
            return false;
        }
        let knights = board.by_role(Role::Knight);
        let bishops = board.by_role(Role::Bishop);
        let minors = (knights | bishops).count();
        let one_colour =
            (bishops & LIGHT_SQUARES).is_empty() || (bishops & !LIGHT_SQUARES).is_empty();
        minors <= 1 || (knights.is_empty() && one_colour)
    }
}

#[cfg(test)]
mod tests {
    use super::super::position::Position;
    use super::Status;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn mate_and_stalemate() {
        assert_eq!(
            pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").status(),
            Status::Checkmate
        );
        assert_eq!(
            pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").status(),
            Status::Stalemate
        );
        assert_eq!(Position::startpos().status(), Status::Ongoing);
    }

    #[test]
    fn dead_positions_of_6_1() {
        assert!(pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1").is_dead_position());
        assert!(pos("4k3/8/8/8/8/8/8/2N1K3 w - - 0 1").is_dead_position());
        // Bishops all on dark squares (c1, f8 ... a1 is dark).
        assert!(pos("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1").is_dead_position());
        assert!(!pos("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1").is_dead_position());
        assert!(!pos("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1").is_dead_position());
        // A hidden piece could be anything.
        assert!(!pos("4k3/8/8/8/8/8/8/3XK3 w - - 0 1").is_dead_position());
    }
}
