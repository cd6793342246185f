//! The two sides and the seven kinds of pieces (xiangqi 1.2).

use std::fmt;

/// A side. Red moves first (xiangqi 2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Red,
    Black,
}

impl Color {
    /// Both sides, red first; `Color::index` is the position in this list.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// `"red"` or `"black"`, as the logs and messages say it.
    pub fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }

    /// 0 for red, 1 for black: an index into per-side tables.
    pub(super) const fn index(self) -> usize {
        match self {
            Color::Red => 0,
            Color::Black => 1,
        }
    }

    /// One rank forward for this side: red advances towards rank 9.
    pub(super) fn forward(self) -> i8 {
        match self {
            Color::Red => 1,
            Color::Black => -1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a piece is, whatever its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieceKind {
    General,
    Advisor,
    Elephant,
    Horse,
    Chariot,
    Cannon,
    Soldier,
}

impl PieceKind {
    /// All kinds, in the order of `PieceKind::index`.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::General,
        PieceKind::Advisor,
        PieceKind::Elephant,
        PieceKind::Horse,
        PieceKind::Chariot,
        PieceKind::Cannon,
        PieceKind::Soldier,
    ];

    /// The English name used in messages: `"general"`, `"advisor"`, ... `"soldier"`.
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::General => "general",
            PieceKind::Advisor => "advisor",
            PieceKind::Elephant => "elephant",
            PieceKind::Horse => "horse",
            PieceKind::Chariot => "chariot",
            PieceKind::Cannon => "cannon",
            PieceKind::Soldier => "soldier",
        }
    }

    /// How many of this kind each side has in the full set (xiangqi 1.2).
    pub fn count_in_set(self) -> usize {
        match self {
            PieceKind::General => 1,
            PieceKind::Soldier => 5,
            _ => 2,
        }
    }

    /// The FEN letter in lower case (black's spelling): k a b n r c p.
    pub fn fen_letter(self) -> char {
        match self {
            PieceKind::General => 'k',
            PieceKind::Advisor => 'a',
            PieceKind::Elephant => 'b',
            PieceKind::Horse => 'n',
            PieceKind::Chariot => 'r',
            PieceKind::Cannon => 'c',
            PieceKind::Soldier => 'p',
        }
    }

    /// Reads a lower-case FEN letter; `e` and `h` are accepted as other programs' spellings
    /// of the elephant and the horse.
    pub fn from_fen_letter(letter: char) -> Option<PieceKind> {
        let kind = match letter {
            'k' => PieceKind::General,
            'a' => PieceKind::Advisor,
            'b' | 'e' => PieceKind::Elephant,
            'n' | 'h' => PieceKind::Horse,
            'r' => PieceKind::Chariot,
            'c' => PieceKind::Cannon,
            'p' => PieceKind::Soldier,
            _ => return None,
        };
        Some(kind)
    }

    /// 0..7 in the order of `PieceKind::ALL`.
    pub(super) const fn index(self) -> usize {
        match self {
            PieceKind::General => 0,
            PieceKind::Advisor => 1,
            PieceKind::Elephant => 2,
            PieceKind::Horse => 3,
            PieceKind::Chariot => 4,
            PieceKind::Cannon => 5,
            PieceKind::Soldier => 6,
        }
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    pub fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// The FEN letter: red in upper case (`K A B N R C P`), black in lower case.
    pub fn fen_letter(self) -> char {
        let letter = self.kind.fen_letter();
        match self.color {
            Color::Red => letter.to_ascii_uppercase(),
            Color::Black => letter,
        }
    }

    /// Reads a FEN letter; the case gives the side.
    pub fn from_fen_letter(letter: char) -> Option<Piece> {
        let kind = PieceKind::from_fen_letter(letter.to_ascii_lowercase())?;
        let color = if letter.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }

    /// 0..14, red's kinds first: an index into per-piece tables such as the hash keys.
    pub(super) const fn index(self) -> usize {
        self.color.index() * 7 + self.kind.index()
    }
}

/// "red's horse", as messages name a piece.
impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'s {}", self.color, self.kind)
    }
}
