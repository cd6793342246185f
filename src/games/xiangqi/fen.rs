//! Reading and writing positions as FEN, in the spelling Fairy-Stockfish and most xiangqi
//! programs use: ranks from black's side (rank 9) down, letters `K A B N R C P`, red in
//! upper case, side `w` (or `r`) for red and `b` for black.

use std::fmt;

use crate::quote::quote;

use super::geometry::in_palace;
use super::piece::{Color, Piece, PieceKind};
use super::position::Position;
use super::square::Square;

/// Why a FEN was rejected. Messages are lower case and name the faulty part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    Empty,
    /// The board field does not have 10 ranks.
    RankCount { found: usize },
    /// A rank (ICCS number, 9 = black's back rank) does not add up to 9 files.
    RankWidth { rank: u8, files: usize },
    /// A digit 0 in the board field.
    ZeroEmptyCount { rank: u8 },
    /// A letter that is not a piece.
    UnknownPieceLetter(char),
    /// The side field is not `w`, `r` or `b`.
    SideToMove(String),
    /// A field that must be `-` (no castling or en passant in xiangqi) is something else.
    NotADash { field: &'static str, found: String },
    /// A move counter that is not a number.
    Counter { field: &'static str, found: String },
    /// Text after the fullmove number.
    TrailingText(String),
    /// A side has no general.
    NoGeneral(Color),
    /// A side has more than one general.
    TwoGenerals(Color),
    /// A side has more pieces of a kind than the set holds (xiangqi 1.2).
    TooMany { piece: Piece, count: usize },
    /// A general outside its palace (xiangqi 2.2).
    GeneralOutsidePalace { color: Color, square: Square },
    /// The side that just moved left its general attacked (or the generals face), so the
    /// position cannot arise in a game.
    WaitingSideInCheck(Color),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty fen"),
            FenError::RankCount { found } => write!(f, "the board has {found} ranks, not 10"),
            FenError::RankWidth { rank, files } => write!(f, "rank {rank} has {files} files"),
            FenError::ZeroEmptyCount { rank } => write!(f, "rank {rank} has an empty count of 0"),
            FenError::UnknownPieceLetter(c) => write!(f, "unknown piece letter '{c}'"),
            FenError::SideToMove(found) => {
                write!(
                    f,
                    r#"side to move must be "w", "r" or "b", found {}"#,
                    quote(found)
                )
            }
            FenError::NotADash { field, found } => {
                write!(
                    f,
                    r#"{field} must be "-" in xiangqi, found {}"#,
                    quote(found)
                )
            }
            FenError::Counter { field, found } => {
                write!(f, "{field} must be a whole number, found {}", quote(found))
            }
            FenError::TrailingText(text) => write!(f, "unexpected {} after the fen", quote(text)),
            FenError::NoGeneral(color) => write!(f, "no {color} general"),
            FenError::TwoGenerals(color) => write!(f, "two {color} generals"),
            FenError::TooMany { piece, count } => write!(
                f,
                "{count} {} {}s, the set has {}",
                piece.color,
                piece.kind,
                piece.kind.count_in_set()
            ),
            FenError::GeneralOutsidePalace { color, square } => {
                write!(f, "{color}'s general on {square} is outside its palace")
            }
            FenError::WaitingSideInCheck(color) => write!(
                f,
                "{color}'s general is attacked but it is {}'s turn",
                color.opponent()
            ),
        }
    }
}

impl std::error::Error for FenError {}

impl Position {
    /// Reads a FEN. Missing trailing fields default to `- - 0 1`; side `w` or `r` is red.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let board = parse_board(fields.next().ok_or(FenError::Empty)?)?;
        let side = parse_side(fields.next().unwrap_or("w"))?;
        for field in ["castling field", "en passant field"] {
            let found = fields.next().unwrap_or("-");
            if found != "-" {
                let found = found.to_owned();
                return Err(FenError::NotADash { field, found });
            }
        }
        let halfmove_clock = parse_counter("halfmove clock", fields.next().unwrap_or("0"))?;
        let fullmove_number = parse_counter("fullmove number", fields.next().unwrap_or("1"))?;
        if let Some(extra) = fields.next() {
            return Err(FenError::TrailingText(extra.to_owned()));
        }
        let generals = find_generals(&board)?;
        check_piece_counts(&board)?;
        let mut pos = Position {
            board,
            side,
            generals,
            halfmove_clock,
            fullmove_number,
            zobrist: 0,
        };
        pos.zobrist = pos.compute_zobrist();
        pos.check_waiting_side_safe()?;
        Ok(pos)
    }

    /// Writes the FEN, e.g. `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
    pub fn to_fen(&self) -> String {
        let ranks: Vec<String> = (0..10u8).rev().map(|r| self.rank_fen(r)).collect();
        let side = match self.side {
            Color::Red => 'w',
            Color::Black => 'b',
        };
        let (half, full) = (self.halfmove_clock, self.fullmove_number);
        format!("{} {side} - - {half} {full}", ranks.join("/"))
    }

    /// One rank of the board field.
    fn rank_fen(&self, rank: u8) -> String {
        let mut text = String::new();
        let mut empty = 0u8;
        for file in 0..9 {
            let sq = Square::new(file, rank).expect("file and rank are on the board");
            match self.piece_at(sq) {
                None => empty += 1,
                Some(piece) => {
                    push_empty_count(&mut text, &mut empty);
                    text.push(piece.fen_letter());
                }
            }
        }
        push_empty_count(&mut text, &mut empty);
        text
    }

    /// A position where the side that just moved could lose its general is not one play
    /// can reach; rejecting it keeps every `Position` a real one.
    fn check_waiting_side_safe(&self) -> Result<(), FenError> {
        let waiting = self.side.opponent();
        if self.general_attacked(self.general(waiting), self.side) {
            return Err(FenError::WaitingSideInCheck(waiting));
        }
        Ok(())
    }
}

fn push_empty_count(text: &mut String, empty: &mut u8) {
    if *empty > 0 {
        text.push(char::from(b'0' + *empty));
        *empty = 0;
    }
}

fn parse_board(field: &str) -> Result<[Option<Piece>; 90], FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 10 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    let mut board = [None; 90];
    for (text, rank) in ranks.iter().zip((0..10u8).rev()) {
        parse_rank(text, rank, &mut board)?;
    }
    Ok(board)
}

/// Fills one rank of `board`; counts files first so that an overlong rank is reported as
/// such rather than as a point off the board.
fn parse_rank(text: &str, rank: u8, board: &mut [Option<Piece>; 90]) -> Result<(), FenError> {
    let mut cells = Vec::with_capacity(9);
    for c in text.chars() {
        match c.to_digit(10) {
            Some(0) => return Err(FenError::ZeroEmptyCount { rank }),
            Some(n) => cells.extend((0..n).map(|_| None)),
            None => cells.push(Some(
                Piece::from_fen_letter(c).ok_or(FenError::UnknownPieceLetter(c))?,
            )),
        }
    }
    if cells.len() != 9 {
        let files = cells.len();
        return Err(FenError::RankWidth { rank, files });
    }
    for (cell, file) in cells.into_iter().zip(0u8..) {
        let sq = Square::new(file, rank).expect("file and rank are on the board");
        board[sq.index()] = cell;
    }
    Ok(())
}

fn parse_side(field: &str) -> Result<Color, FenError> {
    match field {
        "w" | "r" => Ok(Color::Red),
        "b" => Ok(Color::Black),
        _ => Err(FenError::SideToMove(field.to_owned())),
    }
}

fn parse_counter(field: &'static str, text: &str) -> Result<u32, FenError> {
    text.parse().map_err(|_| FenError::Counter {
        field,
        found: text.to_owned(),
    })
}

/// Exactly one general per side, inside its palace (xiangqi 2.2).
fn find_generals(board: &[Option<Piece>; 90]) -> Result<[Square; 2], FenError> {
    let mut found = [None; 2];
    for color in Color::ALL {
        let general = Piece::new(color, PieceKind::General);
        let mut squares = (0u8..90).map(Square::at);
        let sq = squares.find(|s| board[s.index()] == Some(general));
        let sq = sq.ok_or(FenError::NoGeneral(color))?;
        if squares.any(|s| board[s.index()] == Some(general)) {
            return Err(FenError::TwoGenerals(color));
        }
        if !in_palace(color, sq) {
            return Err(FenError::GeneralOutsidePalace { color, square: sq });
        }
        found[color.index()] = Some(sq);
    }
    Ok(found.map(|sq| sq.expect("both generals were found")))
}

/// No more of a kind than the set holds (xiangqi 1.2). Where the pieces stand is not
/// checked beyond the generals: composed positions put advisors and elephants anywhere.
fn check_piece_counts(board: &[Option<Piece>; 90]) -> Result<(), FenError> {
    for color in Color::ALL {
        for kind in PieceKind::ALL {
            let piece = Piece::new(color, kind);
            let count = board.iter().filter(|&&cell| cell == Some(piece)).count();
            if count > kind.count_in_set() {
                return Err(FenError::TooMany { piece, count });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::position::START_FEN;
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let pos = Position::from_fen(START_FEN).unwrap();
        assert_eq!(pos.to_fen(), START_FEN);
        let red = Square::parse("e0").unwrap();
        assert_eq!(
            pos.piece_at(red),
            Some(Piece::new(Color::Red, PieceKind::General))
        );
    }

    #[test]
    fn composed_positions_round_trip() {
        for fen in [
            "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
            "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 b - - 12 40",
            "3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1",
        ] {
            assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
        }
    }

    #[test]
    fn defaults_and_aliases() {
        let short = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
        assert_eq!(Position::from_fen(short).unwrap().to_fen(), START_FEN);
        let red = format!("{short} r");
        assert_eq!(Position::from_fen(&red).unwrap().side_to_move(), Color::Red);
        let aliases = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b";
        let pos = Position::from_fen(aliases).unwrap();
        assert_eq!(pos.side_to_move(), Color::Black);
        assert!(pos.to_fen().starts_with("rnbakabnr/"));
    }

    fn error(fen: &str) -> String {
        Position::from_fen(fen).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let cases = [
            ("", "empty fen"),
            ("9/9/9 w", "the board has 3 ranks, not 10"),
            ("4k4/9/9/9/9/9/9/9/9/4K5 w", "rank 0 has 10 files"),
            ("4k4/9/9/9/9/9/5/9/9/4K4 w", "rank 3 has 5 files"),
            ("4k4/9/9/9/9/9/9/9/9/4K3z w", "unknown piece letter 'z'"),
            (
                "4k4/9/9/9/9/9/9/9/9/4K03 w",
                "rank 0 has an empty count of 0",
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/4K4 x",
                r#"side to move must be "w", "r" or "b", found "x""#,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/4K4 w KQ",
                r#"castling field must be "-" in xiangqi, found "KQ""#,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/4K4 w - - x",
                r#"halfmove clock must be a whole number, found "x""#,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1 z",
                r#"unexpected "z" after the fen"#,
            ),
            ("3k5/9/9/9/9/9/9/9/9/3KK4 w", "two red generals"),
            ("9/9/9/9/9/9/9/9/9/4K4 w", "no black general"),
            (
                "4k4/9/9/9/9/9/4K4/9/9/9 w",
                "red's general on e3 is outside its palace",
            ),
            (
                "3k5/9/9/9/9/9/9/9/9/AAAK5 w",
                "3 red advisors, the set has 2",
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/4K4 w",
                "black's general is attacked but it is red's turn",
            ),
            (
                "3k5/9/9/9/9/9/9/9/9/3R1K3 w",
                "black's general is attacked but it is red's turn",
            ),
        ];
        for (fen, message) in cases {
            assert_eq!(error(fen), message, "{fen}");
        }
    }
}
