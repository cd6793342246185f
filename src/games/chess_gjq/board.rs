//! The placement of pieces: who stands where, and how each one moves.

use super::attacks;
use super::bitboard::Bitboard;
use super::hidden::start_role;
use super::piece::{Color, Piece, Role};
use super::square::Square;

/// What occupies a square, as the move generator sees it.
///
/// `role` is how the piece moves: its real role when face up, its start square's role when
/// hidden (chess_gjq 3.1.3), and `None` for a hidden piece that has just moved and awaits its
/// reveal (chess_gjq 3.1.5) — until then it neither moves nor attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupant {
    pub color: Color,
    pub role: Option<Role>,
    pub hidden: bool,
}

impl Occupant {
    /// The piece as players see it: face down or face up.
    pub fn piece(self) -> Piece {
        Piece {
            color: self.color,
            role: if self.hidden { None } else { self.role },
        }
    }
}

/// Piece placement as bitboards. Hidden pieces sit in the role sets of their start squares,
/// so ordinary move generation moves them as chess_gjq 3.1.3 says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 6],
    hidden: Bitboard,
}

impl Board {
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Pieces that move as `role` (face up, or hidden on a square of that role).
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color(color) & self.by_role(role)
    }

    /// Face-down pieces, including one that has just moved and awaits its reveal.
    pub fn hidden(&self) -> Bitboard {
        self.hidden
    }

    pub fn occupant(&self, sq: Square) -> Option<Occupant> {
        let color = Color::ALL
            .into_iter()
            .find(|c| self.by_color(*c).contains(sq))?;
        let role = Role::ALL
            .into_iter()
            .find(|r| self.by_role(*r).contains(sq));
        Some(Occupant {
            color,
            role,
            hidden: self.hidden.contains(sq),
        })
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.occupant(sq).map(Occupant::piece)
    }

    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// Empties `sq`, returning what stood there.
    pub fn take(&mut self, sq: Square) -> Option<Occupant> {
        let occupant = self.occupant(sq)?;
        self.by_color[occupant.color.index()].remove(sq);
        if let Some(role) = occupant.role {
            self.by_role[role.index()].remove(sq);
        }
        self.hidden.remove(sq);
        Some(occupant)
    }

    /// Puts `occupant` on `sq`, replacing whatever stood there.
    pub fn put(&mut self, sq: Square, occupant: Occupant) {
        self.take(sq);
        self.by_color[occupant.color.index()].insert(sq);
        if let Some(role) = occupant.role {
            self.by_role[role.index()].insert(sq);
        }
        if occupant.hidden {
            self.hidden.insert(sq);
        }
    }

    /// Puts a piece as written in a FEN: a hidden one moves as its start square's role.
    pub fn put_piece(&mut self, sq: Square, piece: Piece) {
        let role = piece.role.or_else(|| start_role(piece.color, sq));
        let hidden = piece.role.is_none();
        self.put(
            sq,
            Occupant {
                color: piece.color,
                role,
                hidden,
            },
        );
    }

    /// Pieces of `attacker` that attack `sq` when `occupied` are the occupied squares.
    pub fn attackers(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let theirs = self.by_color(attacker);
        let queens = self.by_role(Role::Queen);
        let diagonal = (self.by_role(Role::Bishop) | queens) & attacks::bishop(sq, occupied);
        let straight = (self.by_role(Role::Rook) | queens) & attacks::rook(sq, occupied);
        let leapers = (self.by_role(Role::Knight) & attacks::knight(sq))
            | (self.by_role(Role::King) & attacks::king(sq))
            | (self.by_role(Role::Pawn) & attacks::pawn(attacker.other(), sq));
        theirs & (diagonal | straight | leapers)
    }

    /// Whether `attacker` attacks `sq` on this board.
    pub fn is_attacked(&self, sq: Square, attacker: Color) -> bool {
        self.attackers(sq, attacker, self.occupied()).any()
    }
}
