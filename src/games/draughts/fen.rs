//! PDN FEN, the position notation of the PDN standard used in logs: `W:W31-50:B1-20` is the
//! side to move, then each side's squares, kings prefixed `K` (`B:W18,K10:B12,K22`).

use std::fmt;

use crate::quote::quote;

use super::piece::{Color, Piece, PieceKind};
use super::position::Position;
use super::square::Square;

/// Why a PDN FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The side to move is not `W` or `B`.
    Side(String),
    /// A section does not start with `W` or `B`.
    Section(String),
    /// One colour has two sections.
    ColorTwice(Color),
    /// A square that is not a number.
    NotANumber(String),
    /// A number outside 1..=50.
    NoSuchSquare(u64),
    /// A range whose end comes before its start.
    EmptyRange(String),
    /// A square listed twice (in one section or both).
    Twice(Square),
    /// A man on the row where it would already have been crowned (draughts 5.5).
    UncrownedMan(Square, Color),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "the fen is empty"),
            FenError::Side(s) => write!(f, "side must be W or B, found {}", quote(s)),
            FenError::Section(s) => write!(f, "section {} must start with W or B", quote(s)),
            FenError::ColorTwice(c) => write!(f, "the {c} pieces are listed twice"),
            FenError::NotANumber(s) => write!(f, "square {} is not a number", quote(s)),
            FenError::NoSuchSquare(n) => write!(f, "square {n} does not exist"),
            FenError::EmptyRange(s) => write!(f, "range {} is empty", quote(s)),
            FenError::Twice(sq) => write!(f, "square {sq} is listed twice"),
            FenError::UncrownedMan(sq, c) => {
                write!(
                    f,
                    "a {c} man on {sq} stands on its crowning row and must be a king"
                )
            }
        }
    }
}

impl std::error::Error for FenError {}

impl Position {
    /// Reads a PDN FEN. Whitespace is ignored, a trailing `.` is allowed, the colour sections
    /// may come in either order or be missing (no pieces), squares may be ranges (`31-50`,
    /// `K1-3`), and kings are prefixed `K`.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let text: String = fen.chars().filter(|c| !c.is_whitespace()).collect();
        let text = text.strip_suffix('.').unwrap_or(&text);
        let mut sections = text.split(':');
        let side = match sections.next() {
            None | Some("") => return Err(FenError::Empty),
            Some("W") => Color::White,
            Some("B") => Color::Black,
            Some(other) => return Err(FenError::Side(other.to_string())),
        };
        let mut pos = Position::empty(side);
        let mut seen = Vec::new();
        for section in sections {
            let color = section_color(section)?;
            if seen.contains(&color) {
                return Err(FenError::ColorTwice(color));
            }
            seen.push(color);
            place_section(&mut pos, color, &section[1..])?;
        }
        Ok(pos)
    }

    /// The canonical PDN FEN: side, white's squares then black's, ascending, each listed
    /// singly (no ranges) with `K` before kings: `W:W31,32,K40:B1,2`. `from_fen` reads it back
    /// to the same position.
    pub fn to_fen(&self) -> String {
        let side = match self.side_to_move() {
            Color::White => 'W',
            Color::Black => 'B',
        };
        format!(
            "{side}:W{}:B{}",
            self.fen_list(Color::White),
            self.fen_list(Color::Black)
        )
    }

    fn fen_list(&self, color: Color) -> String {
        let names: Vec<String> = self
            .pieces()
            .filter(|(_, p)| p.color == color)
            .map(|(sq, p)| {
                if p.is_king() {
                    format!("K{sq}")
                } else {
                    sq.to_string()
                }
            })
            .collect();
        names.join(",")
    }
}

fn section_color(section: &str) -> Result<Color, FenError> {
    match section.chars().next() {
        Some('W') => Ok(Color::White),
        Some('B') => Ok(Color::Black),
        _ => Err(FenError::Section(section.to_string())),
    }
}

/// Places one colour's comma-separated list of squares and ranges.
fn place_section(pos: &mut Position, color: Color, list: &str) -> Result<(), FenError> {
    for item in list.split(',').filter(|item| !item.is_empty()) {
        let (kind, squares) = match item.strip_prefix('K') {
            Some(rest) => (PieceKind::King, rest),
            None => (PieceKind::Man, item),
        };
        for sq in squares_of(squares)? {
            place(pos, sq, Piece::new(color, kind))?;
        }
    }
    Ok(())
}

fn place(pos: &mut Position, sq: Square, piece: Piece) -> Result<(), FenError> {
    if pos.piece_at(sq).is_some() {
        return Err(FenError::Twice(sq));
    }
    if piece.kind == PieceKind::Man && sq.row() == piece.color.crowning_row() {
        return Err(FenError::UncrownedMan(sq, piece.color));
    }
    pos.set(sq, Some(piece));
    Ok(())
}

/// `17` or a range `31-50`.
fn squares_of(item: &str) -> Result<Vec<Square>, FenError> {
    let Some((first, last)) = item.split_once('-') else {
        return Ok(vec![square(item)?]);
    };
    let (first, last) = (square(first)?, square(last)?);
    if last < first {
        return Err(FenError::EmptyRange(item.to_string()));
    }
    Ok((first.number()..=last.number())
        .filter_map(|n| Square::new(n.into()))
        .collect())
}

fn square(text: &str) -> Result<Square, FenError> {
    let n: u64 = text
        .parse()
        .map_err(|_| FenError::NotANumber(text.to_string()))?;
    Square::new(n).ok_or(FenError::NoSuchSquare(n))
}

#[cfg(test)]
mod tests {
    use super::{Color, FenError, PieceKind, Position, Square};

    #[test]
    fn start_round_trip() {
        let pos = Position::from_fen("W:W31-50:B1-20").unwrap();
        assert_eq!(pos, Position::startpos());
        let fen = pos.to_fen();
        assert!(fen.starts_with("W:W31,32,33,"), "{fen}");
        assert!(fen.ends_with(",19,20"), "{fen}");
        assert_eq!(Position::from_fen(&fen).unwrap(), pos);
    }

    #[test]
    fn kings_either_order_whitespace_and_dot() {
        let pos = Position::from_fen(" B:B12,16,20,K22,K25,K29 : W18,24,27,28,K10,K15. ").unwrap();
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(pos.count(Color::White, PieceKind::King), 2);
        assert_eq!(pos.count(Color::Black, PieceKind::Man), 3);
        assert_eq!(pos.to_fen(), "B:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29");
        assert_eq!(Position::from_fen(&pos.to_fen()).unwrap(), pos);
        let kings = Position::from_fen("W:WK46-48:B").unwrap();
        assert_eq!(kings.count(Color::White, PieceKind::King), 3);
        assert_eq!(kings.to_fen(), "W:WK46,K47,K48:B");
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |fen: &str| Position::from_fen(fen).unwrap_err().to_string();
        assert_eq!(err("W:W51:B1"), "square 51 does not exist");
        assert_eq!(err("W:W23:B23"), "square 23 is listed twice");
        assert_eq!(err("W:W23,23:B1"), "square 23 is listed twice");
        assert_eq!(err("X:W23:B1"), "side must be W or B, found \"X\"");
        assert_eq!(err(""), "the fen is empty");
        assert_eq!(err("W:W23:W24"), "the white pieces are listed twice");
        assert_eq!(err("W:W2x:B1"), "square \"2x\" is not a number");
        assert_eq!(err("W:W40-31:B1"), "range \"40-31\" is empty");
        assert_eq!(err("W:X23:B1"), "section \"X23\" must start with W or B");
        assert_eq!(
            err("W:W3:B10"),
            "a white man on 3 stands on its crowning row and must be a king"
        );
        assert_eq!(
            Position::from_fen("W:W0"),
            Err(FenError::NoSuchSquare(0)),
            "square 0 does not exist"
        );
        assert_eq!(Square::new(50).map(|s| s.number()), Some(50));
    }
}
