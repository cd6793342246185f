//! A move as a scoresheet writes it, read into what it says before the position is known,
//! then resolved against the position: ICCS (`h2e2`, `H2-E2`), WXF (`C2.5`, `H8+7`, `C+.5`,
//! `+C-1`, and the tandem pawns `P+.4`, `++.4`, `3+.4`, `33.4`) and the Chinese notation
//! (`炮二平五`, `馬８進７`, `前車進一`, `中兵平四`, `二兵進一`, `前七進一`, `車前平三`).
//!
//! A move names a piece either by its file or by its place among like pieces on one file
//! (front, back, middle, or counted from the front), then the direction and a number: the
//! steps for a piece moving along its file, the arrival file otherwise (see `notation.rs`).
//! The reading is lenient where scoresheets are: either side's numerals, either side's piece
//! names, and a file number where 前/后 would be due, read when exactly one legal move fits.

use std::fmt;

use super::illegal::Illegal;
use super::moves::Move;
use super::notation::{Action, action, file_of, normalise};
use super::piece::{Color, Piece, PieceKind};
use super::position::Position;
use super::square::Square;

/// Which piece of its kind a written move names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    /// The piece on this file (counted from the mover's right, 1..=9).
    File(u8),
    /// The piece at this place among like pieces on one file, on `file` if given.
    Place { place: Place, file: Option<u8> },
}

/// A place among two or more like pieces on one file, front (nearest the enemy) first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// 前: the foremost.
    Front,
    /// 后: the rearmost.
    Back,
    /// 中: the middle one of an odd number.
    Middle,
    /// 一兵, 二兵, ...: counted from the front, 1 = foremost.
    Nth(u8),
    /// WXF `+` / `-` (`true` = front): front or rear of two or three, the second from the
    /// front or rear of four or five (whose ends are `++` and `--`).
    Sign(bool),
}

/// What a written move says, before a position is consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Written {
    kind: PieceKind,
    which: Which,
    action: Action,
    amount: u8,
}

/// Why a written move does not name one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unread {
    /// The text is no move in any notation read here.
    NotAMove,
    /// No piece of the side to move is where the text says.
    NoPiece,
    /// The one move the text names is illegal, for this reason.
    Illegal(Illegal),
    /// The move the text names leads off the board or is not a way the piece moves.
    NoWay,
    /// Several legal moves fit the text.
    Ambiguous(Vec<Move>),
    /// Several moves fit the text, none of them legal.
    NoneLegal(Vec<Move>),
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unread::NotAMove => f.write_str("not a move in ICCS, WXF or Chinese notation"),
            Unread::NoPiece => f.write_str("no piece of the side to move stands there"),
            Unread::Illegal(why) => write!(f, "illegal: {why}"),
            Unread::NoWay => f.write_str("the piece named cannot move that way"),
            Unread::Ambiguous(moves) => write!(f, "several legal moves fit: {}", list(moves)),
            Unread::NoneLegal(moves) => {
                write!(f, "none of the moves it may mean is legal: {}", list(moves))
            }
        }
    }
}

fn list(moves: &[Move]) -> String {
    let texts: Vec<String> = moves.iter().map(Move::to_string).collect();
    texts.join(", ")
}

/// Whether `text` is written as a move in one of the notations read here (the position
/// decides whether it names one).
pub fn is_move_text(text: &str) -> bool {
    iccs(text).is_some() || read(text).is_some()
}

impl Position {
    /// The legal move `text` names in ICCS, WXF or Chinese notation, or why there is none.
    pub fn read_move(&self, text: &str) -> Result<Move, Unread> {
        if let Some(mv) = iccs(text) {
            return self.check_move(mv.from, mv.to).map_err(|why| match why {
                Illegal::EmptySquare { .. } | Illegal::OpponentPiece { .. } => Unread::NoPiece,
                other => Unread::Illegal(other),
            });
        }
        let written = read(text).ok_or(Unread::NotAMove)?;
        let named = self.named(&written);
        if named.is_empty() {
            return Err(Unread::NoPiece);
        }
        let ways: Vec<Move> = named
            .iter()
            .filter_map(|&from| destination(self.side, written, from).map(|to| Move::new(from, to)))
            .collect();
        let legal: Vec<Move> = ways.iter().copied().filter(|m| self.is_legal(*m)).collect();
        match (legal.as_slice(), ways.as_slice()) {
            ([one], _) => Ok(*one),
            ([], []) => Err(Unread::NoWay),
            ([], [one]) => Err(self
                .check_move(one.from, one.to)
                .err()
                .map_or(Unread::NoWay, Unread::Illegal)),
            ([], _) => Err(Unread::NoneLegal(ways)),
            (many, _) => Err(Unread::Ambiguous(many.to_vec())),
        }
    }

    /// The points of the side to move's pieces that `written` names.
    fn named(&self, written: &Written) -> Vec<Square> {
        let piece = Piece::new(self.side, written.kind);
        let on_board = (0..Square::COUNT).filter_map(Square::from_index);
        on_board
            .filter(|&sq| self.piece_at(sq) == Some(piece))
            .filter(|&sq| self.designates(written.which, piece, sq))
            .collect()
    }

    fn designates(&self, which: Which, piece: Piece, sq: Square) -> bool {
        let file = file_of(piece.color, sq);
        let column = self.column(piece, sq);
        let at = column.iter().position(|&s| s == sq);
        match which {
            // A file holding an odd number (3, 5) of soldiers names its middle one (WXF).
            Which::File(f) if piece.kind == PieceKind::Soldier && column.len() % 2 == 1 => {
                f == file && at == Some(column.len() / 2)
            }
            Which::File(f) => f == file,
            Which::Place { place, file: f } => {
                f.is_none_or(|f| f == file)
                    && column.len() >= 2
                    && at.is_some()
                    && index(place, column.len()) == at
            }
        }
    }

    /// The points of `piece`'s like pieces on `sq`'s file, front (towards the enemy) first.
    fn column(&self, piece: Piece, sq: Square) -> Vec<Square> {
        let mut points: Vec<Square> = (0u8..10)
            .filter_map(|r| Square::new(sq.file(), r))
            .filter(|&s| self.piece_at(s) == Some(piece))
            .collect();
        if piece.color == Color::Red {
            points.reverse();
        }
        points
    }
}

/// The index (front = 0) a place names among `count` like pieces.
fn index(place: Place, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    match place {
        Place::Front => Some(0),
        Place::Back => Some(last),
        Place::Middle => (count % 2 == 1).then_some(count / 2),
        Place::Nth(n) => usize::from(n).checked_sub(1).filter(|&i| i <= last),
        Place::Sign(true) => Some(usize::from(count >= 4)),
        Place::Sign(false) => last.checked_sub(usize::from(count >= 4)),
    }
}

/// Where the move written lands from `from`, if that is on the board and writing the move
/// found gives back what was read (whether the piece may go there is the position's say).
fn destination(color: Color, written: Written, from: Square) -> Option<Square> {
    let to = landing(color, written, from)?;
    (action(color, written.kind, Move::new(from, to)) == (written.action, written.amount))
        .then_some(to)
}

fn landing(color: Color, written: Written, from: Square) -> Option<Square> {
    let forward = color.forward();
    let sign = match written.action {
        Action::Forward => forward,
        Action::Back => -forward,
        Action::Across => 0,
    };
    let amount = i8::try_from(written.amount).ok()?;
    let file = file_index(color, written.amount);
    let diagonal = |dr: i8| {
        let df = i8::try_from(file?).ok()? - i8::try_from(from.file()).ok()?;
        from.offset(df, dr * sign)
    };
    match (written.kind, written.action) {
        (PieceKind::Horse | PieceKind::Elephant | PieceKind::Advisor, Action::Across) => None,
        (PieceKind::Horse, _) => {
            let across = file?.abs_diff(from.file());
            diagonal(match across {
                1 => 2,
                2 => 1,
                _ => return None,
            })
        }
        (PieceKind::Elephant, _) => diagonal(2),
        (PieceKind::Advisor, _) => diagonal(1),
        (_, Action::Across) => Square::new(file?, from.rank()),
        (_, _) => from.offset(0, amount * sign),
    }
}

/// The board file (0 = a) of a file numbered `n` from `color`'s right.
fn file_index(color: Color, n: u8) -> Option<u8> {
    (1..=9).contains(&n).then(|| match color {
        Color::Red => 9 - n,
        Color::Black => n - 1,
    })
}

/// ICCS in either case, with or without the dash.
fn iccs(text: &str) -> Option<Move> {
    Move::parse(&text.trim().to_ascii_lowercase())
}

/// What a Chinese or WXF text says.
fn read(text: &str) -> Option<Written> {
    let chars: Vec<char> = normalise(text).chars().collect();
    let (head, tail) = chars.split_at_checked(chars.len().checked_sub(2)?)?;
    let action = action_of(tail[0])?;
    let amount = numeral(tail[1]).filter(|n| (1..=9).contains(n))?;
    let (kind, which) = if chars.iter().all(char::is_ascii) {
        wxf_head(head)?
    } else {
        chinese_head(head)?
    };
    Some(Written {
        kind,
        which,
        action,
        amount,
    })
}

/// `炮二`, `前炮`, `车前`, `前七` (a soldier), `前兵七`, `二兵`.
fn chinese_head(head: &[char]) -> Option<(PieceKind, Which)> {
    let place = |c: char| place_of(c).or_else(|| numeral(c).map(Place::Nth));
    let place_of_file = |p, f| Which::Place { place: p, file: f };
    match *head {
        [k, n] if kind_of(k).is_some() && numeral(n).is_some() => {
            Some((kind_of(k)?, Which::File(numeral(n)?)))
        }
        [k, p] if kind_of(k).is_some() => Some((kind_of(k)?, place_of_file(place_of(p)?, None))),
        [p, k] if kind_of(k).is_some() => Some((kind_of(k)?, place_of_file(place(p)?, None))),
        [p, n] => Some((
            PieceKind::Soldier,
            place_of_file(place(p)?, Some(numeral(n)?)),
        )),
        [p, k, n] => Some((kind_of(k)?, place_of_file(place(p)?, Some(numeral(n)?)))),
        _ => None,
    }
}

/// `C2`, `C+`, `+C`, `++` / `--` (soldiers), `3+` (soldier on file 3), `33` (middle soldier).
fn wxf_head(head: &[char]) -> Option<(PieceKind, Which)> {
    let sign = |c: char| match c {
        '+' => Some(true),
        '-' => Some(false),
        _ => None,
    };
    let digit = |c: char| c.to_digit(10).and_then(|d| u8::try_from(d).ok());
    let at = |place, file| Which::Place { place, file };
    match *head {
        [l, d] if letter(l).is_some() && digit(d).is_some() => {
            Some((letter(l)?, Which::File(digit(d)?)))
        }
        [l, s] if letter(l).is_some() => Some((letter(l)?, at(Place::Sign(sign(s)?), None))),
        [s, l] if letter(l).is_some() => Some((letter(l)?, at(Place::Sign(sign(s)?), None))),
        [s, t] if sign(s).is_some() && sign(s) == sign(t) => {
            let end = if sign(s)? { Place::Front } else { Place::Back };
            Some((PieceKind::Soldier, at(end, None)))
        }
        [d, s] if digit(d).is_some() && sign(s).is_some() => Some((
            PieceKind::Soldier,
            at(Place::Sign(sign(s)?), Some(digit(d)?)),
        )),
        [d, e] if digit(d).is_some() && d == e => {
            Some((PieceKind::Soldier, at(Place::Middle, Some(digit(d)?))))
        }
        _ => None,
    }
}

fn letter(c: char) -> Option<PieceKind> {
    Some(match c {
        'K' | 'G' => PieceKind::General,
        'A' => PieceKind::Advisor,
        'E' | 'B' => PieceKind::Elephant,
        'H' | 'N' => PieceKind::Horse,
        'R' => PieceKind::Chariot,
        'C' => PieceKind::Cannon,
        'P' | 'S' => PieceKind::Soldier,
        _ => return None,
    })
}

/// A piece name, either side's (after `normalise`).
fn kind_of(c: char) -> Option<PieceKind> {
    Some(match c {
        '帅' | '将' => PieceKind::General,
        '仕' | '士' => PieceKind::Advisor,
        '相' | '象' => PieceKind::Elephant,
        '马' => PieceKind::Horse,
        '车' => PieceKind::Chariot,
        '炮' => PieceKind::Cannon,
        '兵' | '卒' => PieceKind::Soldier,
        _ => return None,
    })
}

fn place_of(c: char) -> Option<Place> {
    Some(match c {
        '前' => Place::Front,
        '后' => Place::Back,
        '中' => Place::Middle,
        _ => return None,
    })
}

/// 进 / 退 / 平, or WXF `+` / `-` / `=` (`.` is normalised to `=`).
fn action_of(c: char) -> Option<Action> {
    Some(match c {
        '进' | '+' => Action::Forward,
        '退' | '-' => Action::Back,
        '平' | '=' => Action::Across,
        _ => return None,
    })
}

/// A number 1..9 in Chinese numerals or digits (full-width digits are normalised).
fn numeral(c: char) -> Option<u8> {
    const NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    match NUMERALS.iter().position(|&n| n == c) {
        Some(i) => u8::try_from(i + 1).ok(),
        None => c
            .to_digit(10)
            .and_then(|d| u8::try_from(d).ok())
            .filter(|&d| d >= 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> Move {
        Move::parse(text).unwrap()
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn every_notation_of_one_move() {
        let start = Position::startpos();
        for text in [
            "h2e2",
            "H2-E2",
            "h2-e2",
            "C2.5",
            "C2=5",
            "c2.5",
            "炮二平五",
            "砲二平五",
            "炮2平5",
            "炮二平５",
        ] {
            assert_eq!(start.read_move(text), Ok(mv("h2e2")), "{text}");
        }
        let mut after = start.clone();
        after.play(mv("h2e2"));
        for text in ["H8+7", "馬８進７", "马8进7", "馬八進七", "N8+7", "h9g7"] {
            assert_eq!(after.read_move(text), Ok(mv("h9g7")), "{text}");
        }
    }

    #[test]
    fn front_and_back_pieces() {
        // Red cannons on e1 and e3 (the e3 one in front).
        let red = pos("3k5/9/9/9/9/9/4C4/9/4C4/5K3 w - - 0 1");
        for text in ["前炮進二", "前炮进二", "+C+2", "C++2", "炮前進二"] {
            assert_eq!(red.read_move(text), Ok(mv("e3e5")), "{text}");
        }
        for text in ["後炮平九", "后炮平九", "-C=9", "C-.9"] {
            assert_eq!(red.read_move(text), Ok(mv("e1a1")), "{text}");
        }
        // Both cannons can go forward one step: the file alone is ambiguous.
        assert_eq!(
            red.read_move("炮五進一"),
            Err(Unread::Ambiguous(vec![mv("e1e2"), mv("e3e4")]))
        );
        // With a black cannon on e9 both screen the red general on e0: neither may leave.
        let pinned = pos("3kc4/9/9/9/9/9/4C4/9/4C4/4K4 w - - 0 1");
        let both = vec![mv("e1d1"), mv("e3d3")];
        assert_eq!(pinned.read_move("炮五平六"), Err(Unread::NoneLegal(both)));
        // Only the front one can go forward three: the file alone then names it.
        assert_eq!(red.read_move("炮五進三"), Ok(mv("e3e6")));
        // Black chariots on c9 and c7; black's front is towards rank 0.
        let black = pos("2r1k4/9/2r6/9/9/9/9/9/9/5K3 b - - 0 1");
        assert_eq!(black.read_move("前車進1"), Ok(mv("c7c6")));
        assert_eq!(black.read_move("后车平4"), Ok(mv("c9d9")));
        assert_eq!(black.read_move("R-.4"), Ok(mv("c9d9")));
    }

    #[test]
    fn tandem_soldiers_on_two_files() {
        // Red soldiers on c5, c6, c7 (file 七) and g6, g7 (file 三).
        let p = pos("4k4/9/2P3P2/2P3P2/2P6/9/9/9/9/3K5 w - - 0 1");
        assert_eq!(p.read_move("前兵七平六"), Ok(mv("c7d7")));
        assert_eq!(p.read_move("前七平六"), Ok(mv("c7d7")));
        assert_eq!(p.read_move("7+.6"), Ok(mv("c7d7")));
        assert_eq!(p.read_move("中兵平六"), Ok(mv("c6d6")));
        assert_eq!(
            p.read_move("兵七平六"),
            Ok(mv("c6d6")),
            "the file names the middle"
        );
        assert_eq!(p.read_move("77.6"), Ok(mv("c6d6")));
        assert_eq!(p.read_move("後七平六"), Ok(mv("c5d5")));
        assert_eq!(p.read_move("三兵平六"), Ok(mv("c5d5")));
        assert_eq!(p.read_move("7-.6"), Ok(mv("c5d5")));
        assert_eq!(p.read_move("3+.4"), Ok(mv("g7f7")));
        assert!(matches!(
            p.read_move("后三进一"),
            Err(Unread::Illegal(Illegal::OwnPieceOnTarget { .. }))
        ));
        // The front soldier of either file may step forward: ambiguous.
        assert_eq!(
            p.read_move("前兵进一"),
            Err(Unread::Ambiguous(vec![mv("c7c8"), mv("g7g8")]))
        );
        assert!(matches!(p.read_move("P++1"), Err(Unread::Ambiguous(_))));
    }

    #[test]
    fn five_soldiers_on_a_file() {
        // Black soldiers on c0..c4; black's front is towards rank 0.
        let p = pos("5k3/9/9/9/9/2p6/2p6/2p6/2p6/2p1K4 b - - 0 1");
        for (text, want) in [
            ("++.2", "c0b0"),
            ("一卒平2", "c0b0"),
            ("前卒平2", "c0b0"),
            ("P+.2", "c1b1"),
            ("二卒平2", "c1b1"),
            ("P3.2", "c2b2"),
            ("中卒平2", "c2b2"),
            ("33.2", "c2b2"),
            ("P-.2", "c3b3"),
            ("--.2", "c4b4"),
            ("五卒平2", "c4b4"),
            ("後卒平2", "c4b4"),
        ] {
            assert_eq!(p.read_move(text), Ok(mv(want)), "{text}");
        }
    }

    #[test]
    fn what_cannot_be_read() {
        let start = Position::startpos();
        for text in ["c3c4x", "Z2.5", "炮二走五", "炮十平五", "", "1-0", "c2.0"] {
            assert_eq!(start.read_move(text), Err(Unread::NotAMove), "{text}");
        }
        assert_eq!(start.read_move("炮三平五"), Err(Unread::NoPiece));
        assert_eq!(start.read_move("e5e6"), Err(Unread::NoPiece));
        assert_eq!(start.read_move("马二进五"), Err(Unread::NoWay));
        assert_eq!(start.read_move("相三平五"), Err(Unread::NoWay));
        assert!(matches!(
            start.read_move("炮二進五"),
            Err(Unread::Illegal(Illegal::CannonNoScreen { .. }))
        ));
        assert!(matches!(
            start.read_move("b0d1"),
            Err(Unread::Illegal(Illegal::HorseLegBlocked { .. }))
        ));
    }
}
