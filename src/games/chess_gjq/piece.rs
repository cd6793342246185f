//! Colours, roles and pieces; a piece is either face up (a role) or hidden (暗子).

use std::fmt;

/// The two sides. White moves first (chess_gjq 8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for white, 1 for black: the index into per-colour tables.
    pub fn index(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    /// The rank (0 = rank 1) that is this side's `n`-th rank, counting from its own back rank.
    pub fn relative_rank(self, n: u8) -> u8 {
        match self {
            Color::White => n,
            Color::Black => 7 - n,
        }
    }

    /// The FEN letter of the side to move, `w` or `b`.
    pub fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Lower-case name as used in logs: `white`, `black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a face-up piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The roles a pawn may promote to (chess_gjq 4.1.2.6.2 (3)).
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// 0 = pawn .. 5 = king: the index into per-role tables.
    pub fn index(self) -> usize {
        match self {
            Role::Pawn => 0,
            Role::Knight => 1,
            Role::Bishop => 2,
            Role::Rook => 3,
            Role::Queen => 4,
            Role::King => 5,
        }
    }

    /// Upper-case letter: `P N B R Q K`.
    pub fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// The role of a letter in either case (`q`, `Q`, ...).
    pub fn from_char(c: char) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|r| r.upper_char() == c.to_ascii_uppercase())
    }

    /// Lower-case English name: `pawn`, `knight`, ...
    pub fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece on the board: its colour, and its role once it is face up.
///
/// `role: None` is a hidden piece (暗子, chess_gjq 3.1.2). Where it stands tells how it moves
/// (see [`start_role`](super::hidden::start_role)), not what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Option<Role>,
}

impl Piece {
    /// A face-up piece.
    pub fn revealed(color: Color, role: Role) -> Piece {
        Piece {
            color,
            role: Some(role),
        }
    }

    /// A face-down piece.
    pub fn hidden(color: Color) -> Piece {
        Piece { color, role: None }
    }

    /// The FEN letter: upper case for white; `X`/`x` for a hidden piece.
    pub fn fen_char(self) -> char {
        let upper = self.role.map_or('X', Role::upper_char);
        match self.color {
            Color::White => upper,
            Color::Black => upper.to_ascii_lowercase(),
        }
    }

    /// The piece of a FEN letter (`X`/`x` = hidden).
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match c.to_ascii_uppercase() {
            'X' => Some(Piece::hidden(color)),
            _ => Role::from_char(c).map(|role| Piece::revealed(color, role)),
        }
    }
}

impl fmt::Display for Piece {
    /// `white queen`, `black hidden piece`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.role {
            Some(role) => write!(f, "{} {role}", self.color),
            None => write!(f, "{} hidden piece", self.color),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Color, Piece, Role};

    #[test]
    fn fen_letters_round_trip() {
        for c in "PNBRQKXpnbrqkx".chars() {
            assert_eq!(Piece::from_fen_char(c).map(Piece::fen_char), Some(c));
        }
        assert_eq!(Piece::from_fen_char('z'), None);
        assert_eq!(Piece::from_fen_char('1'), None);
    }

    #[test]
    fn names_read_as_a_person_says_them() {
        assert_eq!(
            Piece::revealed(Color::Black, Role::Queen).to_string(),
            "black queen"
        );
        assert_eq!(
            Piece::hidden(Color::White).to_string(),
            "white hidden piece"
        );
    }
}
