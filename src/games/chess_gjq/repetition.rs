//! What makes two positions "the same" for repetition (chess_gjq 6.4): the same pieces on the
//! same squares (hidden ones included), the same side to move and the same possible moves,
//! so the same castling rights and the same en-passant capture, if one is legal.

use std::hash::Hash;

use super::board::Board;
use super::castling::CastlingRights;
use super::movegen;
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// A full description of a position for repetition. Compared in full (no truncated hash):
/// a false repetition would be a wrong ruling. Take it once a move is complete, after any
/// pending reveal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RepetitionKey {
    board: Board,
    turn: Color,
    castling: CastlingRights,
    /// Only when an en-passant capture is actually legal: otherwise the possible moves do not
    /// differ.
    ep_square: Option<Square>,
}

impl Position {
    /// The key under which this position counts for repetition.
    pub fn repetition_key(&self) -> RepetitionKey {
        RepetitionKey {
            board: self.board,
            turn: self.turn,
            castling: self.castling,
            ep_square: self.legal_ep_square(),
        }
    }

    /// The en-passant square if some legal move captures there.
    fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let pawns = self.board.pieces(self.turn, Role::Pawn);
        movegen::any_legal(self, |from, targets, _| {
            pawns.contains(from) && targets.contains(ep)
        })
        .then_some(ep)
    }
}

#[cfg(test)]
mod tests {
    use super::super::position::Position;

    fn key(fen: &str) -> super::RepetitionKey {
        Position::from_fen(fen).unwrap().repetition_key()
    }

    #[test]
    fn en_passant_counts_only_when_it_can_be_taken() {
        // No black pawn beside e4: the e3 square makes no difference.
        let a = key("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");
        let b = key("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
        assert_eq!(a, b);
        let c = key("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
        let d = key("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1");
        assert_ne!(c, d);
    }

    #[test]
    fn hidden_and_face_up_pieces_differ() {
        let hidden = key("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let face_up = key("4k3/8/8/8/8/8/8/X3K3 w - - 0 1");
        assert_ne!(hidden, face_up);
        assert_ne!(
            key("4k3/8/8/8/8/8/8/X3K3 w Q - 0 1"),
            key("4k3/8/8/8/8/8/8/X3K3 w - - 0 1")
        );
    }
}
