//! A position: the board, the side to move and the move counters. Holding a `Position`
//! proves it is valid (one general each, in its palace; see `fen.rs`).

use super::moves::Move;
use super::piece::{Color, Piece, PieceKind};
use super::square::Square;
use super::zobrist;

/// The start position (xiangqi 1.2).
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// The board, whose turn it is, and the counters the draw rules need.
#[derive(Clone, Debug)]
pub struct Position {
    pub(super) board: [Option<Piece>; 90],
    pub(super) side: Color,
    /// Kept up to date on every move so that check tests start from the general at once.
    pub(super) generals: [Square; 2],
    /// Plies since the last capture (xiangqi 4.2 natural move limit).
    pub(super) halfmove_clock: u32,
    pub(super) fullmove_number: u32,
    pub(super) zobrist: u64,
}

/// Everything that makes two positions the same for repetition (xiangqi 25.1): the full
/// board and the side to move, not the counters. Compared in full, never by hash alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PositionKey {
    board: [Option<Piece>; 90],
    side: Color,
}

impl Position {
    /// The start position, red to move.
    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).expect("the start position is valid")
    }

    /// Whose turn it is.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Plies since the last capture (or since the position was set up).
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// Starts at 1 and grows after each black move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Where `color`'s general stands.
    pub fn general(&self, color: Color) -> Square {
        self.generals[color.index()]
    }

    /// The full board and side to move, for exact repetition checks.
    pub fn repetition_key(&self) -> PositionKey {
        PositionKey {
            board: self.board,
            side: self.side,
        }
    }

    /// Whether `other` is the same position for repetition (xiangqi 25.1): the same board
    /// and side to move, whatever the counters. `repetition_key` compared, without copies.
    pub fn same_for_repetition(&self, other: &Position) -> bool {
        self.side == other.side && self.board == other.board
    }

    /// A 64-bit hash of board and side to move, maintained move by move. Equal positions
    /// have equal hashes; equal hashes only suggest equal positions.
    pub fn zobrist(&self) -> u64 {
        self.zobrist
    }

    /// Plays `mv` and returns the captured piece. Legality is the caller's business (use
    /// `check_move` first); any move of a piece is played without panicking. A move from an
    /// empty point or to its own point changes nothing and returns `None`.
    pub fn play(&mut self, mv: Move) -> Option<Piece> {
        let piece = self.piece_at(mv.from)?;
        if mv.from == mv.to {
            return None;
        }
        let captured = self.put(mv);
        self.zobrist ^= zobrist::piece_key(piece, mv.from) ^ zobrist::piece_key(piece, mv.to);
        if let Some(victim) = captured {
            self.zobrist ^= zobrist::piece_key(victim, mv.to);
        }
        self.pass_turn(captured.is_some());
        captured
    }

    /// Takes back `mv`, the last move played, which captured nothing: the position before
    /// it, counters and hash included. A history without captures is rebuilt backwards this
    /// way instead of keeping every position. Does nothing unless `mv.to` holds a piece and
    /// `mv.from` is empty, as after such a move.
    pub fn unplay_quiet(&mut self, mv: Move) {
        let Some(piece) = self.piece_at(mv.to) else {
            return;
        };
        if self.piece_at(mv.from).is_some() {
            return;
        }
        self.take_back(mv, None);
        self.zobrist ^= zobrist::piece_key(piece, mv.from)
            ^ zobrist::piece_key(piece, mv.to)
            ^ zobrist::BLACK_TO_MOVE;
        self.side = self.side.opponent();
        if self.side == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_sub(1);
        }
        self.halfmove_clock = self.halfmove_clock.saturating_sub(1);
    }

    /// Hands the turn over and advances the counters.
    fn pass_turn(&mut self, captured: bool) {
        self.halfmove_clock = if captured {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        if self.side == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.side = self.side.opponent();
        self.zobrist ^= zobrist::BLACK_TO_MOVE;
    }

    /// Moves the piece on the board only (no turn, counters or hash): the cheap half of
    /// make/unmake for search and legality tests. `from` must hold a piece, `from != to`.
    pub(super) fn put(&mut self, mv: Move) -> Option<Piece> {
        let piece = self.board[mv.from.index()].take();
        let captured = std::mem::replace(&mut self.board[mv.to.index()], piece);
        if let Some(p) = piece
            && p.kind == PieceKind::General
        {
            self.generals[p.color.index()] = mv.to;
        }
        captured
    }

    /// Undoes `put(mv)` which captured `captured`.
    pub(super) fn take_back(&mut self, mv: Move, captured: Option<Piece>) {
        let piece = std::mem::replace(&mut self.board[mv.to.index()], captured);
        self.board[mv.from.index()] = piece;
        if let Some(p) = piece
            && p.kind == PieceKind::General
        {
            self.generals[p.color.index()] = mv.from;
        }
    }

    /// The hash computed from scratch, for setting up and for tests of the incremental one.
    pub(super) fn compute_zobrist(&self) -> u64 {
        let pieces = self.board.iter().zip(0u8..);
        let board = pieces.fold(0, |key, (cell, i)| match cell {
            Some(piece) => key ^ zobrist::piece_key(*piece, Square::at(i)),
            None => key,
        });
        board ^ zobrist::side_key(self.side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> Move {
        Move::parse(text).unwrap()
    }

    #[test]
    fn play_updates_counters_and_hash() {
        let mut pos = Position::startpos();
        let start_key = pos.repetition_key();
        for (text, clock) in [("h2e2", 1), ("h9g7", 2), ("e2e6", 0), ("g7e6", 0)] {
            pos.play(mv(text));
            assert_eq!(pos.halfmove_clock(), clock, "{text}");
            assert_eq!(pos.zobrist(), pos.compute_zobrist(), "{text}");
        }
        assert_eq!(pos.fullmove_number(), 3);
        assert_eq!(pos.side_to_move(), Color::Red);
        assert_ne!(pos.repetition_key(), start_key);
    }

    #[test]
    fn same_board_same_key_whatever_the_counters() {
        let mut pos = Position::startpos();
        for text in ["h0g2", "h9g7", "g2h0", "g7h9"] {
            pos.play(mv(text));
        }
        let start = Position::startpos();
        assert_eq!(pos.repetition_key(), start.repetition_key());
        assert_eq!(pos.zobrist(), start.zobrist());
        assert_ne!(pos.fullmove_number(), start.fullmove_number());
    }

    #[test]
    fn unplay_quiet_restores_everything() {
        let mut pos = Position::startpos();
        let mut seen = vec![pos.to_fen()];
        for text in ["h2e2", "h9g7", "h0g2", "i9h9"] {
            pos.play(mv(text));
            seen.push(pos.to_fen());
        }
        for text in ["i9h9", "h0g2", "h9g7", "h2e2"] {
            seen.pop();
            pos.unplay_quiet(mv(text));
            assert_eq!(Some(&pos.to_fen()), seen.last(), "{text}");
            assert_eq!(pos.zobrist(), pos.compute_zobrist(), "{text}");
        }
        assert!(pos.same_for_repetition(&Position::startpos()));
    }

    #[test]
    fn play_never_panics_on_odd_moves() {
        let mut pos = Position::startpos();
        assert_eq!(pos.play(mv("e5e6")), None);
        assert_eq!(pos.play(mv("e0e0")), None);
        let taken = pos.play(mv("a0a9"));
        assert_eq!(taken, Some(Piece::new(Color::Black, PieceKind::Chariot)));
    }
}
