//! The position: where the pieces stand and whose turn it is. Nothing else, so that equality
//! is exactly the repetition test of draughts 12.3.1.

use super::moves::Move;
use super::piece::{Color, Piece, PieceKind};
use super::square::Square;

/// Bits 0..50 of a board mask, one per square index.
pub(super) const ALL_SQUARES: u64 = (1 << 50) - 1;

/// A set of squares as a bit mask over square indices.
pub(super) fn bit(index: u8) -> u64 {
    1 << index
}

/// The square indices in a mask, ascending.
pub(super) fn indices(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let index = u8::try_from(mask.trailing_zeros()).ok()?;
        mask &= mask - 1;
        Some(index)
    })
}

/// The squares of one row (0 = squares 1-5).
fn row_mask(row: u8) -> u64 {
    0b11111 << (5 * row)
}

/// Pieces on the board and the side to move. Equal positions are the same position for
/// repetition (draughts 12.3.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    white: u64,
    black: u64,
    kings: u64,
    side: Color,
}

impl Position {
    /// An empty board with `side` to move.
    pub fn empty(side: Color) -> Position {
        Position {
            white: 0,
            black: 0,
            kings: 0,
            side,
        }
    }

    /// The start (draughts 2.2): black on 1-20, white on 31-50, white to move (5.3).
    pub fn startpos() -> Position {
        let black = (1 << 20) - 1;
        let white = ALL_SQUARES & !((1 << 30) - 1);
        Position {
            white,
            black,
            kings: 0,
            side: Color::White,
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The same pieces with `side` to move: lets the referee look at a move played out of turn.
    pub fn with_side_to_move(&self, side: Color) -> Position {
        Position {
            side,
            ..self.clone()
        }
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.piece_at_index(sq.bit_index())
    }

    /// Every piece on the board, by ascending square.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        indices(self.occupied())
            .filter_map(|i| Some((Square::of_index(i), self.piece_at_index(i)?)))
    }

    /// How many pieces of `color` and `kind` are on the board.
    pub fn count(&self, color: Color, kind: PieceKind) -> usize {
        let kings = self.of(color) & self.kings;
        let mask = match kind {
            PieceKind::King => kings,
            PieceKind::Man => self.of(color) & !kings,
        };
        usize::try_from(mask.count_ones()).unwrap_or(usize::MAX)
    }

    /// How many pieces of `kind` of both sides are on the board.
    pub fn count_kind(&self, kind: PieceKind) -> usize {
        Color::ALL.into_iter().map(|c| self.count(c, kind)).sum()
    }

    /// Puts `piece` on `sq` (replacing what stood there), or clears it with `None`. Not
    /// public: a `Position` from outside comes from a FEN, which checks it.
    pub(super) fn set(&mut self, sq: Square, piece: Option<Piece>) {
        let b = bit(sq.bit_index());
        self.white &= !b;
        self.black &= !b;
        self.kings &= !b;
        if let Some(piece) = piece {
            match piece.color {
                Color::White => self.white |= b,
                Color::Black => self.black |= b,
            }
            if piece.is_king() {
                self.kings |= b;
            }
        }
    }

    /// Applies `mv`, legal or not (an irregular move stands if the opponent plays on, draughts
    /// 7.7): removes the captured pieces, moves the piece on `from` to `to`, crowns a man that
    /// ends on the far row (5.5; one that only passes it mid-capture stays a man, 6.15) and
    /// passes the turn. Without a piece on `from` only the captures and the turn change.
    pub fn play(&mut self, mv: &Move) {
        let moving = self.piece_at(mv.from());
        for &sq in &mv.captures {
            self.set(sq, None);
        }
        self.set(mv.from(), None);
        if let Some(piece) = moving {
            self.set(mv.to(), Some(crowned(piece, mv.to())));
        }
        self.side = self.side.opponent();
    }

    /// Applies a move given as indices and a mask of taken pieces; the fast path of perft.
    pub(super) fn play_indices(&mut self, from: u8, to: u8, taken: u64) {
        let (from_bit, to_bit) = (bit(from), bit(to));
        let was_king = self.kings & from_bit != 0;
        let own = match self.side {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        };
        *own = (*own & !from_bit) | to_bit;
        match self.side {
            Color::White => self.black &= !taken,
            Color::Black => self.white &= !taken,
        }
        self.kings &= !(taken | from_bit);
        if was_king || to_bit & row_mask(self.side.crowning_row()) != 0 {
            self.kings |= to_bit;
        }
        self.side = self.side.opponent();
    }

    pub(super) fn piece_at_index(&self, index: u8) -> Option<Piece> {
        let b = bit(index);
        let color = if self.white & b != 0 {
            Color::White
        } else if self.black & b != 0 {
            Color::Black
        } else {
            return None;
        };
        let kind = if self.kings & b != 0 {
            PieceKind::King
        } else {
            PieceKind::Man
        };
        Some(Piece { color, kind })
    }

    /// The squares of `color`'s pieces.
    pub(super) fn of(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The squares of all kings.
    pub(super) fn kings(&self) -> u64 {
        self.kings
    }

    /// The occupied squares.
    pub(super) fn occupied(&self) -> u64 {
        self.white | self.black
    }
}

/// The piece as it stands after ending its move on `to`: a man reaching the far row is crowned.
fn crowned(piece: Piece, to: Square) -> Piece {
    if to.row() == piece.color.crowning_row() {
        Piece {
            kind: PieceKind::King,
            ..piece
        }
    } else {
        piece
    }
}

#[cfg(test)]
mod tests {
    use super::{Color, Move, Piece, PieceKind, Position, Square};

    fn sq(n: u64) -> Square {
        Square::new(n).unwrap()
    }

    #[test]
    fn start_position() {
        let pos = Position::startpos();
        assert_eq!(pos.side_to_move(), Color::White);
        assert_eq!(pos.count(Color::White, PieceKind::Man), 20);
        assert_eq!(pos.count(Color::Black, PieceKind::Man), 20);
        assert_eq!(pos.count(Color::White, PieceKind::King), 0);
        assert_eq!(
            pos.piece_at(sq(31)),
            Some(Piece::new(Color::White, PieceKind::Man))
        );
        assert_eq!(
            pos.piece_at(sq(20)),
            Some(Piece::new(Color::Black, PieceKind::Man))
        );
        assert_eq!(pos.piece_at(sq(25)), None);
    }

    #[test]
    fn play_moves_captures_and_crowns() {
        let mut pos = Position::empty(Color::White);
        pos.set(sq(7), Some(Piece::new(Color::White, PieceKind::Man)));
        pos.set(sq(2), Some(Piece::new(Color::Black, PieceKind::Man)));
        pos.set(sq(12), Some(Piece::new(Color::Black, PieceKind::Man)));
        pos.play(&Move::step(sq(7), sq(1)));
        assert_eq!(
            pos.piece_at(sq(1)),
            Some(Piece::new(Color::White, PieceKind::King))
        );
        assert_eq!(pos.side_to_move(), Color::Black);
        let capture = Move {
            path: vec![sq(1), sq(18)],
            captures: vec![sq(12)],
        };
        pos.play(&capture);
        assert_eq!(pos.piece_at(sq(12)), None);
        assert_eq!(pos.piece_at(sq(18)).map(|p| p.kind), Some(PieceKind::King));
    }
}
