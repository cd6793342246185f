//! The two sides and their pieces: men, and the kings they are crowned into (draughts 5.5).

use std::fmt;

/// A side. White moves first (draughts 5.3); white men move toward row 0 (squares 1-5), black
/// men toward row 9 (squares 46-50).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// Both sides, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The name used in logs and rulings: `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The row a man of this side is crowned on: the opponent's back row (draughts 5.5).
    pub fn crowning_row(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 9,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A man, or a king (a crowned man, which flies: draughts 5.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Man,
    King,
}

impl PieceKind {
    /// `man` or `king`.
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Man => "man",
            PieceKind::King => "king",
        }
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// Whether this is a king.
    pub fn is_king(self) -> bool {
        self.kind == PieceKind::King
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color, self.kind)
    }
}
