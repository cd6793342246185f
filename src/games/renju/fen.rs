//! The renju FEN of the log format: the 15 rows from row 15 down to row 1, separated by `/`,
//! each a run of `x` (black), `o` (white) and numbers counting empty points, then the side to
//! move, `b` or `w`. The empty board is `15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b`.
//!
//! The side to move is as written, whatever the stone counts: a composed position (a
//! problem, a handicap start) need not follow from alternate moves.

use thiserror::Error;

use super::board::{Board, Stone};
use super::point::Point;

/// Why a text is not a renju FEN.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    #[error("expected the rows and the side to move (b or w), separated by a space")]
    Fields,
    #[error("side to move {0:?} is neither b nor w")]
    Side(String),
    #[error("{0} rows, not 15")]
    Rows(usize),
    #[error("row {row} ({text:?}) covers {points} points, not 15")]
    RowLength {
        row: usize,
        text: String,
        points: usize,
    },
    #[error("row {row}: {found:?} is not x, o or a number of empty points (1-15)")]
    Cell { row: usize, found: String },
}

impl Board {
    /// Reads a renju FEN.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        let mut fields = fen.split_whitespace();
        let (Some(rows), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(FenError::Fields);
        };
        let rows: Vec<&str> = rows.split('/').collect();
        if rows.len() != usize::from(Point::SIDE) {
            return Err(FenError::Rows(rows.len()));
        }
        let mut board = Board::new();
        for (rank, text) in (0..Point::SIDE).rev().zip(rows) {
            read_row(&mut board, rank, text)?;
        }
        board.set_to_move(match side {
            "b" => Stone::Black,
            "w" => Stone::White,
            other => return Err(FenError::Side(other.to_string())),
        });
        Ok(board)
    }

    /// The FEN of this position.
    pub fn to_fen(&self) -> String {
        let rows: Vec<String> = (0..Point::SIDE).rev().map(|r| self.fen_row(r)).collect();
        let side = match self.to_move() {
            Stone::Black => 'b',
            Stone::White => 'w',
        };
        format!("{} {side}", rows.join("/"))
    }

    fn fen_row(&self, rank: u8) -> String {
        let mut out = String::new();
        let mut empty = 0;
        for file in 0..Point::SIDE {
            let point = Point::new(file, rank).expect("file and rank are on the board");
            match self.stone(point) {
                None => empty += 1,
                Some(stone) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(stone.letter());
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        out
    }
}

/// Reads one row; `rank` 14 is row 15, the first of the FEN.
fn read_row(board: &mut Board, rank: u8, text: &str) -> Result<(), FenError> {
    let row = usize::from(rank) + 1;
    let mut file = 0usize;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (stone, width, len) = match c {
            'x' => (Some(Stone::Black), 1, 1),
            'o' => (Some(Stone::White), 1, 1),
            '1'..='9' => {
                let len = rest.bytes().take_while(u8::is_ascii_digit).count();
                let number = &rest[..len];
                let count = number
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=15).contains(n));
                let Some(count) = count else {
                    let found = number.to_string();
                    return Err(FenError::Cell { row, found });
                };
                (None, count, len)
            }
            other => {
                let found = other.to_string();
                return Err(FenError::Cell { row, found });
            }
        };
        if file + width > usize::from(Point::SIDE) {
            return Err(FenError::RowLength {
                row,
                text: text.to_string(),
                points: file + width,
            });
        }
        for _ in 0..width {
            let f = u8::try_from(file).expect("checked: below 15");
            let point = Point::new(f, rank).expect("checked: on the board");
            board.put(point, stone);
            file += 1;
        }
        rest = &rest[len..];
    }
    if file != usize::from(Point::SIDE) {
        return Err(FenError::RowLength {
            row,
            text: text.to_string(),
            points: file,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY: &str = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b";

    #[test]
    fn the_empty_board_is_the_specs_start() {
        assert_eq!(Board::new().to_fen(), EMPTY);
        assert_eq!(Board::from_fen(EMPTY).unwrap(), Board::new());
    }

    #[test]
    fn fens_round_trip_with_two_digit_runs() {
        let board = Board::from_moves("h8 i9 a1 o15 o1").unwrap();
        let fen = board.to_fen();
        assert_eq!(fen, "14o/15/15/15/15/15/8o6/7x7/15/15/15/15/15/15/x13x w");
        assert_eq!(Board::from_fen(&fen).unwrap(), board);
    }

    #[test]
    fn the_side_to_move_is_as_written() {
        let fen = "15/15/15/15/15/15/15/7x7/15/15/15/15/15/15/15 b";
        let board = Board::from_fen(fen).unwrap();
        assert_eq!(board.to_move(), Stone::Black);
        assert_eq!(board.to_fen(), fen);
    }

    #[test]
    fn bad_fens_say_why() {
        let bad = |fen: &str| Board::from_fen(fen).unwrap_err().to_string();
        assert!(
            bad("15/15").contains("expected the rows"),
            "{}",
            bad("15/15")
        );
        assert_eq!(bad("15/15 b"), "2 rows, not 15");
        let rows = |row15: &str| format!("{row15}/15/15/15/15/15/15/15/15/15/15/15/15/15/15 b");
        assert!(
            bad(&rows("16")).contains("row 15: \"16\""),
            "{}",
            bad(&rows("16"))
        );
        assert!(bad(&rows("14")).contains("covers 14 points"));
        assert!(bad(&rows("15x")).contains("covers 16 points"));
        assert!(bad(&rows("7z7")).contains("\"z\" is not x, o"));
        assert!(bad(&rows("0x14")).contains("\"0\""));
        assert_eq!(
            bad(&EMPTY.replace(" b", " r")),
            "side to move \"r\" is neither b nor w"
        );
    }
}
