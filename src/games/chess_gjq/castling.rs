//! Castling (chess_gjq 4.1.3-4.1.5): the unmoved king goes two squares towards the unmoved
//! rook-square piece, which jumps over it and is then revealed — it may turn out anything.
//!
//! For ordinary chess positions (no hidden pieces) a face-up rook on its corner castles too,
//! so that such positions play exactly as chess.

use std::fmt;

use super::attacks;
use super::bitboard::Bitboard;
use super::piece::{Color, Piece, Role};
use super::position::Position;
use super::square::Square;

/// Which wing a king castles to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file (0-0).
    KingSide,
    /// Towards the a-file (0-0-0).
    QueenSide,
}

impl CastlingSide {
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    fn index(self) -> usize {
        match self {
            CastlingSide::KingSide => 0,
            CastlingSide::QueenSide => 1,
        }
    }

    fn files(self) -> (u8, u8, u8) {
        // (corner, king's target, rook's target)
        match self {
            CastlingSide::KingSide => (7, 6, 5),
            CastlingSide::QueenSide => (0, 2, 3),
        }
    }

    fn on_back_rank(color: Color, file: u8) -> Square {
        let rank = color.relative_rank(0);
        Square::new(file, rank).unwrap_or_else(|| unreachable!("file and rank below 8"))
    }

    /// The king's start square, `e1` or `e8`.
    pub fn king_from(color: Color) -> Square {
        CastlingSide::on_back_rank(color, 4)
    }

    /// The rook-square piece's start: `h1`, `a1`, `h8` or `a8`.
    pub fn corner(self, color: Color) -> Square {
        CastlingSide::on_back_rank(color, self.files().0)
    }

    /// Where the king lands: `g1`, `c1`, ...
    pub fn king_to(self, color: Color) -> Square {
        CastlingSide::on_back_rank(color, self.files().1)
    }

    /// Where the rook-square piece lands: `f1`, `d1`, ...
    pub fn rook_to(self, color: Color) -> Square {
        CastlingSide::on_back_rank(color, self.files().2)
    }

    /// The side a king's two-square move from its start square castles to, if it is one.
    pub fn of_king_move(color: Color, from: Square, to: Square) -> Option<CastlingSide> {
        if from != CastlingSide::king_from(color) {
            return None;
        }
        CastlingSide::ALL
            .into_iter()
            .find(|s| s.king_to(color) == to)
    }

    /// `king-side` or `queen-side`.
    pub fn name(self) -> &'static str {
        match self {
            CastlingSide::KingSide => "king-side",
            CastlingSide::QueenSide => "queen-side",
        }
    }
}

/// Which castlings are still possible in principle: king and rook-square piece unmoved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights(u8);

impl CastlingRights {
    fn bit(color: Color, side: CastlingSide) -> u8 {
        1 << (color.index() * 2 + side.index())
    }

    /// Both sides may castle both ways.
    pub fn all() -> CastlingRights {
        CastlingRights(0b1111)
    }

    pub fn has(self, color: Color, side: CastlingSide) -> bool {
        self.0 & CastlingRights::bit(color, side) != 0
    }

    pub fn add(&mut self, color: Color, side: CastlingSide) {
        self.0 |= CastlingRights::bit(color, side);
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The king of `color` moved: both its castlings are gone.
    pub fn remove_color(&mut self, color: Color) {
        for side in CastlingSide::ALL {
            self.0 &= !CastlingRights::bit(color, side);
        }
    }

    /// A piece moved from or onto `sq`: a castling whose corner that is, is gone
    /// (chess_gjq 4.1.2.3: once the rook-square piece has moved, castling on that side is lost).
    pub fn touch(&mut self, sq: Square) {
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if side.corner(color) == sq {
                    self.0 &= !CastlingRights::bit(color, side);
                }
            }
        }
    }

    /// The FEN field: `KQkq`, `Kq`, `-`.
    pub fn fen(self) -> String {
        let letters = [
            (Color::White, CastlingSide::KingSide, 'K'),
            (Color::White, CastlingSide::QueenSide, 'Q'),
            (Color::Black, CastlingSide::KingSide, 'k'),
            (Color::Black, CastlingSide::QueenSide, 'q'),
        ];
        let text: String = letters
            .into_iter()
            .filter(|&(c, s, _)| self.has(c, s))
            .map(|(_, _, l)| l)
            .collect();
        if text.is_empty() { "-".into() } else { text }
    }
}

/// Whether `piece` on a corner may be the rook-square piece of a castling: face down
/// (a hidden piece never moved), or, in ordinary chess positions, a face-up rook.
pub fn is_castling_partner(piece: Piece, color: Color) -> bool {
    piece.color == color && matches!(piece.role, None | Some(Role::Rook))
}

/// Why a castling cannot be played now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastlingReason {
    /// The king has moved before (chess_gjq 4.1.4 (1)).
    KingMoved,
    /// The rook-square piece has moved or was captured (chess_gjq 4.1.2.3, 4.1.4 (1)).
    RookSquareMoved { corner: Square },
    /// A piece stands between the king and the rook-square piece (chess_gjq 4.1.4 (2)).
    Blocked { square: Square },
    /// The king is in check (chess_gjq 4.1.4 (3)).
    InCheck { attacker: Square },
    /// The king would pass over an attacked square (chess_gjq 4.1.4 (4)).
    Through { square: Square, attacker: Square },
    /// The king would land on an attacked square (chess_gjq 4.1.4 (5)).
    Into { square: Square, attacker: Square },
}

impl fmt::Display for CastlingReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CastlingReason::KingMoved => f.write_str("the king has moved"),
            CastlingReason::RookSquareMoved { corner } => {
                write!(f, "the rook-square piece {corner} has moved")
            }
            CastlingReason::Blocked { square } => {
                write!(f, "{square} between king and rook-square piece is occupied")
            }
            CastlingReason::InCheck { attacker } => {
                write!(f, "the king is in check from {attacker}")
            }
            CastlingReason::Through { square, attacker } => {
                write!(f, "the king would pass {square}, attacked from {attacker}")
            }
            CastlingReason::Into { square, attacker } => {
                write!(
                    f,
                    "the king would land on {square}, attacked from {attacker}"
                )
            }
        }
    }
}

/// The squares that must be empty: strictly between king and corner.
fn path(color: Color, side: CastlingSide) -> Bitboard {
    attacks::between(CastlingSide::king_from(color), side.corner(color)).unwrap_or_default()
}

/// The first enemy piece attacking `sq`, with the king lifted off its start square so that
/// it cannot shield squares behind itself.
fn attacker_of(pos: &Position, sq: Square, color: Color) -> Option<Square> {
    let mut occupied = pos.board.occupied();
    occupied.remove(CastlingSide::king_from(color));
    pos.board.attackers(sq, color.other(), occupied).first()
}

/// Why `color` cannot castle to `side` now, or `None` if it can.
pub fn obstacle(pos: &Position, color: Color, side: CastlingSide) -> Option<CastlingReason> {
    if !pos.castling.has(color, side) {
        return Some(lost_right(pos, color, side));
    }
    if let Some(square) = (path(color, side) & pos.board.occupied()).first() {
        return Some(CastlingReason::Blocked { square });
    }
    let king = CastlingSide::king_from(color);
    if let Some(attacker) = attacker_of(pos, king, color) {
        return Some(CastlingReason::InCheck { attacker });
    }
    let through = side.rook_to(color);
    if let Some(attacker) = attacker_of(pos, through, color) {
        return Some(CastlingReason::Through {
            square: through,
            attacker,
        });
    }
    let square = side.king_to(color);
    attacker_of(pos, square, color).map(|attacker| CastlingReason::Into { square, attacker })
}

/// Which of the two unmoved pieces has moved, judged from the board: a king off its square,
/// or a hidden piece still on the corner (it cannot have moved), means the king; anything
/// else on the corner (even a face-up rook: it was turned up, so it moved) means the
/// rook-square piece.
fn lost_right(pos: &Position, color: Color, side: CastlingSide) -> CastlingReason {
    let corner = side.corner(color);
    let king_home = pos.board.king_of(color) == Some(CastlingSide::king_from(color));
    let hidden_partner = pos.board.piece_at(corner) == Some(Piece::hidden(color));
    if !king_home || hidden_partner {
        CastlingReason::KingMoved
    } else {
        CastlingReason::RookSquareMoved { corner }
    }
}

#[cfg(test)]
mod tests {
    use super::super::piece::{Color, Role};
    use super::super::position::Position;
    use super::super::square::Square;
    use super::{CastlingReason, CastlingSide, obstacle};

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn hidden_rook_square_piece_castles_and_awaits_its_reveal() {
        let mut p = pos("xxxxk2x/8/8/8/8/8/8/XXXXK2X w KQkq - 0 1");
        let mv = p.check_move(sq("e1"), sq("g1"), None).unwrap();
        p.play(mv);
        assert_eq!(p.pending_reveal(), Some(sq("f1")));
        assert_eq!(p.piece_at(sq("g1")).and_then(|k| k.role), Some(Role::King));
        // The rook-square piece may turn out anything (chess_gjq 4.1.3: `0-0马`).
        p.reveal(sq("f1"), Role::Knight, None).unwrap();
        assert_eq!(p.to_fen(), "xxxxk2x/8/8/8/8/8/8/XXXX1NK1 b kq - 0 1");
    }

    #[test]
    fn reasons_in_the_order_of_4_1_4() {
        let p = pos("4k3/8/8/8/8/8/8/R3K1NR w Q - 0 1");
        assert!(matches!(
            obstacle(&p, Color::White, CastlingSide::KingSide),
            Some(CastlingReason::RookSquareMoved { .. } | CastlingReason::KingMoved)
        ));
        assert_eq!(obstacle(&p, Color::White, CastlingSide::QueenSide), None);
        let through = pos("3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert_eq!(
            obstacle(&through, Color::White, CastlingSide::QueenSide),
            Some(CastlingReason::Through {
                square: sq("d1"),
                attacker: sq("d8")
            })
        );
        // The rook may pass an attacked square (chess_gjq 4.1.5 (3)).
        let b1 = pos("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert_eq!(obstacle(&b1, Color::White, CastlingSide::QueenSide), None);
    }
}
