//! Reading and writing positions as FEN, hidden pieces as `X` (white) and `x` (black).
//!
//! The last four fields may be left out (castling `-`, en passant `-`, counters `0 1`), as in
//! the log examples that write `... b KQkq -`.

use std::fmt;

use crate::quote::quote;

use super::board::Board;
use super::castling::{CastlingRights, CastlingSide, is_castling_partner};
use super::hidden::{RevealedSet, quota, start_role};
use super::piece::{Color, Piece, Role};
use super::position::Position;
use super::square::Square;

/// Why a FEN does not describe a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Not 2 to 6 space-separated fields.
    FieldCount { found: usize },
    /// The board field does not have 8 ranks.
    RankCount { found: usize },
    /// A rank (1-8) does not cover exactly 8 squares.
    RankWidth { rank: u8 },
    /// A letter that is no piece.
    PieceLetter { letter: char },
    /// The side to move is neither `w` nor `b`.
    SideToMove { text: String },
    /// The castling field is not `-` or letters from `KQkq`.
    Castling { text: String },
    /// A castling right without an unmoved king and rook-square piece.
    CastlingPieces { color: Color, side: CastlingSide },
    /// The en-passant field is not `-` or a square.
    EnPassant { text: String },
    /// No double step can have passed over this square just now.
    EnPassantImpossible { square: Square },
    /// A move counter is not a number.
    Counter { text: String },
    /// A side does not have exactly one king.
    KingCount { color: Color, count: usize },
    /// A side has more than 16 pieces.
    TooManyPieces { color: Color, count: usize },
    /// A hidden piece off its start squares: hidden pieces never moved (chess_gjq 3.1.3).
    HiddenOffStart { color: Color, square: Square },
    /// A pawn on the rank where it must have promoted.
    PawnOnLastRank { color: Color, square: Square },
    /// The side that has just moved is in check.
    OpponentInCheck { color: Color },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount { found } => {
                write!(f, "a fen has 2 to 6 space-separated fields, found {found}")
            }
            FenError::RankCount { found } => write!(f, "the board has {found} ranks, not 8"),
            FenError::RankWidth { rank } => write!(f, "rank {rank} does not cover 8 squares"),
            FenError::PieceLetter { letter } => write!(f, "unknown piece letter '{letter}'"),
            FenError::SideToMove { text } => {
                write!(f, "side to move {} is not w or b", quote(text))
            }
            FenError::Castling { text } => {
                write!(
                    f,
                    "castling field {} is not - or letters of KQkq",
                    quote(text)
                )
            }
            FenError::CastlingPieces { color, side } => write!(
                f,
                "{color} cannot castle {}: it needs the king on {} and an unmoved piece on {}",
                side.name(),
                CastlingSide::king_from(*color),
                side.corner(*color)
            ),
            FenError::EnPassant { text } => {
                write!(f, "en-passant field {} is not - or a square", quote(text))
            }
            FenError::EnPassantImpossible { square } => {
                write!(f, "no double step can just have passed over {square}")
            }
            FenError::Counter { text } => {
                write!(f, "move counter {} is not a number", quote(text))
            }
            FenError::KingCount { color, count } => {
                write!(f, "{color} has {count} kings, not 1")
            }
            FenError::TooManyPieces { color, count } => {
                write!(f, "{color} has {count} pieces, more than 16")
            }
            FenError::HiddenOffStart { color, square } => write!(
                f,
                "a hidden {color} piece on {square} is off its start squares, but hidden \
                 pieces have never moved"
            ),
            FenError::PawnOnLastRank { color, square } => {
                write!(f, "a {color} pawn on {square} should have been promoted")
            }
            FenError::OpponentInCheck { color } => {
                write!(f, "{color} is in check but it is not {color}'s turn")
            }
        }
    }
}

impl std::error::Error for FenError {}

impl Position {
    /// Reads a FEN (hidden pieces `X`/`x`). See [`FenError`] for what is refused.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(2..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount {
                found: fields.len(),
            });
        }
        let field = |i: usize, default: &'static str| fields.get(i).copied().unwrap_or(default);
        let board = parse_board(fields[0])?;
        check_board(&board)?;
        let mut pos = Position {
            board,
            turn: parse_side(fields[1])?,
            castling: parse_castling(field(2, "-"))?,
            ep_square: parse_ep(field(3, "-"))?,
            halfmoves: parse_counter(field(4, "0"))?,
            fullmoves: parse_counter(field(5, "1"))?.max(1),
            pending: None,
            revealed: [RevealedSet::default(); 2],
        };
        pos.revealed = Color::ALL.map(|c| revealed_on_board(&pos.board, c));
        check_castling(&pos)?;
        check_ep(&pos)?;
        check_not_in_check(&pos)?;
        Ok(pos)
    }

    /// Writes the position as FEN. A piece awaiting its reveal is written face down (`X`) on
    /// its new square; such a FEN cannot be read back, since hidden pieces never moved.
    pub fn to_fen(&self) -> String {
        let ep = self.ep_square.map_or("-".to_string(), |s| s.to_string());
        format!(
            "{} {} {} {ep} {} {}",
            board_fen(&self.board),
            self.turn.fen_char(),
            self.castling.fen(),
            self.halfmoves,
            self.fullmoves
        )
    }
}

fn parse_board(text: &str) -> Result<Board, FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    let mut board = Board::default();
    for (rank, row) in (0..8u8).rev().zip(ranks) {
        parse_rank(&mut board, rank, row)?;
    }
    Ok(board)
}

fn parse_rank(board: &mut Board, rank: u8, row: &str) -> Result<(), FenError> {
    let wrong_width = FenError::RankWidth { rank: rank + 1 };
    let mut file = 0u8;
    for c in row.chars() {
        if let Some(skip) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
            file += u8::try_from(skip).map_err(|_| wrong_width.clone())?;
            continue;
        }
        let piece = Piece::from_fen_char(c).ok_or(FenError::PieceLetter { letter: c })?;
        let sq = Square::new(file, rank).ok_or(wrong_width.clone())?;
        board.put_piece(sq, piece);
        file += 1;
    }
    if file == 8 { Ok(()) } else { Err(wrong_width) }
}

/// Kings, piece counts, hidden pieces on start squares, pawns short of the last rank.
fn check_board(board: &Board) -> Result<(), FenError> {
    for color in Color::ALL {
        let count = board.pieces(color, Role::King).count();
        if count != 1 {
            return Err(FenError::KingCount { color, count });
        }
        let count = board.by_color(color).count();
        if count > 16 {
            return Err(FenError::TooManyPieces { color, count });
        }
        check_hidden(board, color)?;
        check_pawns(board, color)?;
    }
    Ok(())
}

fn check_hidden(board: &Board, color: Color) -> Result<(), FenError> {
    let hidden = board.hidden() & board.by_color(color);
    match hidden
        .into_iter()
        .find(|&sq| start_role(color, sq).is_none())
    {
        Some(square) => Err(FenError::HiddenOffStart { color, square }),
        None => Ok(()),
    }
}

/// A pawn on its own back rank is possible here (chess_gjq 4.1.2.6.2 (1)); on the last
/// rank it is not: it would have promoted.
fn check_pawns(board: &Board, color: Color) -> Result<(), FenError> {
    let face_up_pawns = board.pieces(color, Role::Pawn) & !board.hidden();
    let last = super::bitboard::Bitboard::rank(color.relative_rank(7));
    match (face_up_pawns & last).first() {
        Some(square) => Err(FenError::PawnOnLastRank { color, square }),
        None => Ok(()),
    }
}

fn parse_side(text: &str) -> Result<Color, FenError> {
    match text {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => Err(FenError::SideToMove { text: text.into() }),
    }
}

fn parse_castling(text: &str) -> Result<CastlingRights, FenError> {
    let mut rights = CastlingRights::default();
    if text == "-" {
        return Ok(rights);
    }
    for c in text.chars() {
        let (color, side) = match c {
            'K' => (Color::White, CastlingSide::KingSide),
            'Q' => (Color::White, CastlingSide::QueenSide),
            'k' => (Color::Black, CastlingSide::KingSide),
            'q' => (Color::Black, CastlingSide::QueenSide),
            _ => return Err(FenError::Castling { text: text.into() }),
        };
        rights.add(color, side);
    }
    Ok(rights)
}

fn parse_ep(text: &str) -> Result<Option<Square>, FenError> {
    if text == "-" {
        return Ok(None);
    }
    Square::parse(text)
        .map(Some)
        .ok_or(FenError::EnPassant { text: text.into() })
}

fn parse_counter(text: &str) -> Result<u32, FenError> {
    text.parse()
        .map_err(|_| FenError::Counter { text: text.into() })
}

/// A lower bound of what each side has revealed: the face-up pieces on the board, at most
/// the piece set's number of each (more came from promotions).
fn revealed_on_board(board: &Board, color: Color) -> RevealedSet {
    let mut set = RevealedSet::default();
    let face_up = board.by_color(color) & !board.hidden();
    for role in Role::ALL {
        let on_board = (board.by_role(role) & face_up).count();
        for _ in 0..on_board.min(usize::from(quota(role))) {
            set.record(role);
        }
    }
    set
}

fn check_castling(pos: &Position) -> Result<(), FenError> {
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            let king_home = pos.board.king_of(color) == Some(CastlingSide::king_from(color));
            let partner = pos.board.piece_at(side.corner(color));
            let ok = king_home && partner.is_some_and(|p| is_castling_partner(p, color));
            if pos.castling.has(color, side) && !ok {
                return Err(FenError::CastlingPieces { color, side });
            }
        }
    }
    Ok(())
}

/// The square passed over must be on the mover's third rank, empty, with the moved piece in
/// front of it and its start square empty. The piece may be anything (chess_gjq 4.1.2.6.2).
fn check_ep(pos: &Position) -> Result<(), FenError> {
    let Some(square) = pos.ep_square else {
        return Ok(());
    };
    let mover = pos.turn.other();
    let impossible = FenError::EnPassantImpossible { square };
    let file = square.file();
    let passed = Square::new(file, mover.relative_rank(2)).ok_or(impossible.clone())?;
    let landed = Square::new(file, mover.relative_rank(3)).ok_or(impossible.clone())?;
    let start = Square::new(file, mover.relative_rank(1)).ok_or(impossible.clone())?;
    let occupied = pos.board.occupied();
    let moved_piece = pos.board.piece_at(landed);
    let ok = square == passed
        && !occupied.contains(square)
        && !occupied.contains(start)
        && moved_piece.is_some_and(|p| p.color == mover && p.role.is_some());
    if ok { Ok(()) } else { Err(impossible) }
}

fn check_not_in_check(pos: &Position) -> Result<(), FenError> {
    let them = pos.turn.other();
    let attacked = pos
        .board
        .king_of(them)
        .is_some_and(|k| pos.board.is_attacked(k, pos.turn));
    if attacked {
        Err(FenError::OpponentInCheck { color: them })
    } else {
        Ok(())
    }
}

fn board_fen(board: &Board) -> String {
    let rows: Vec<String> = (0..8u8).rev().map(|rank| rank_fen(board, rank)).collect();
    rows.join("/")
}

fn rank_fen(board: &Board, rank: u8) -> String {
    let mut row = String::new();
    let mut empty = 0;
    for file in 0..8u8 {
        match Square::new(file, rank).and_then(|sq| board.piece_at(sq)) {
            Some(piece) => {
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push(piece.fen_char());
            }
            None => empty += 1,
        }
    }
    if empty > 0 {
        row.push_str(&empty.to_string());
    }
    row
}

#[cfg(test)]
mod tests {
    use super::super::position::{Position, START_FEN};
    use super::FenError;

    fn error(fen: &str) -> String {
        Position::from_fen(fen).unwrap_err().to_string()
    }

    #[test]
    fn round_trips() {
        for fen in [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "xxxxkxxx/xx1xxxxx/8/2n5/4R3/5B2/XXXX1XXX/XXXXKX1X b KQkq - 0 3",
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
        ] {
            assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
        }
    }

    #[test]
    fn short_fens_get_default_counters() {
        let pos = Position::from_fen("xxxxkxxx/xx1xxxxx/8/2n5/4R3/5B2/XXXX1XXX/XXXXKX1X b KQkq -");
        assert!(pos.unwrap().to_fen().ends_with(" b KQkq - 0 1"));
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(
            error("xxxxkxxx/xxxxxxxx/8/8/4X3/8/XXXX1XXX/XXXXKXXX w KQkq - 0 1"),
            "a hidden white piece on e4 is off its start squares, but hidden pieces have never moved"
        );
        assert_eq!(
            error("4k3/8/8/8/8/8/8/4X3 w - - 0 1"),
            "white has 0 kings, not 1"
        );
        assert_eq!(
            error("4k3/8/8/8/8/8/8/3XK3 w K - 0 1"),
            "white cannot castle king-side: it needs the king on e1 and an unmoved piece on h1"
        );
        assert_eq!(
            error("P3k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            "a white pawn on a8 should have been promoted"
        );
        assert_eq!(
            error("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
            "no double step can just have passed over e6"
        );
        assert_eq!(
            error("4k3/8/8/8/8/8/8/4K2z w - - 0 1"),
            "unknown piece letter 'z'"
        );
        assert_eq!(
            error("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1"),
            "black is in check but it is not black's turn"
        );
        assert!(matches!(
            Position::from_fen("8/8/8 w"),
            Err(FenError::RankCount { found: 3 })
        ));
    }

    #[test]
    fn back_rank_pawns_are_valid() {
        // chess_gjq 4.1.2.6.2 (1): a hidden back-rank piece may turn out a pawn on rank 1.
        assert!(Position::from_fen("4k3/8/8/8/8/8/8/3PK3 w - - 0 1").is_ok());
    }

    #[test]
    fn en_passant_after_a_hidden_double_step_that_revealed_a_knight() {
        let fen = "xxxxkxxx/xxxx1xxx/8/4n3/8/8/XXXXXXXX/XXXXKXXX w KQkq e6 0 2";
        assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
    }
}
