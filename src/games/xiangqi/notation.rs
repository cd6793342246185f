//! Move notation besides ICCS: the Chinese notation of the scoresheets (`炮二平五`,
//! `马8进7`, `前炮退一`) and its Latin transcription WXF (`C2=5`, `H8+7`, `+C-1`).
//!
//! Files are counted from each side's right: red writes Chinese numerals 一..九 (file `i`
//! is 一), black Arabic digits 1..9 (file `a` is 1). A piece that moves along a file gives
//! the number of steps for 进/退 (forward, back); a horse, elephant or advisor gives the
//! file it arrives on. Two like pieces on one file are told apart by 前/后 (front, back).
//! Reading is in `written.rs`, which also takes ICCS and the variants scoresheets use.

use super::moves::Move;
use super::piece::{Color, PieceKind};
use super::position::Position;
use super::square::Square;

const RED_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// Which notation to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// `炮二平五`.
    Chinese,
    /// `C2=5`.
    Wxf,
}

impl Position {
    /// `mv` (a move of the side to move's piece) in Chinese notation, or `None` if `from`
    /// is empty.
    pub fn to_chinese(&self, mv: Move) -> Option<String> {
        self.notate(mv, Notation::Chinese)
    }

    /// `mv` in WXF notation.
    pub fn to_wxf(&self, mv: Move) -> Option<String> {
        self.notate(mv, Notation::Wxf)
    }

    /// The legal move that `text` names in Chinese, WXF or ICCS notation. Traditional and
    /// simplified piece names and full-width digits are accepted.
    ///
    /// Many scoresheets give the file number where 前/后 would be due (`炮三进二` for the
    /// back one of two cannons on file 3); such a text is read when exactly one legal move
    /// fits it. [`Position::read_move`] says why a text names no move.
    pub fn parse_notation(&self, text: &str) -> Option<Move> {
        self.read_move(text).ok()
    }

    /// Two like pieces on a file are told apart by 前/后 (advisors and elephants excepted).
    fn notate(&self, mv: Move, notation: Notation) -> Option<String> {
        let piece = self.piece_at(mv.from)?;
        let color = piece.color;
        // Advisors and elephants keep their file number: the direction tells them apart.
        let named_by_file = matches!(piece.kind, PieceKind::Advisor | PieceKind::Elephant);
        let tag = (!named_by_file).then(|| self.tandem(mv.from)).flatten();
        let (name, file) = match notation {
            Notation::Chinese => (
                chinese_name(color, piece.kind),
                number(color, file_of(color, mv.from), notation),
            ),
            Notation::Wxf => (wxf_letter(piece.kind), file_of(color, mv.from).to_string()),
        };
        let head = match (tag, notation) {
            (Some(front), Notation::Chinese) => {
                format!("{}{name}", if front { '前' } else { '后' })
            }
            (Some(front), Notation::Wxf) => format!("{}{name}", if front { '+' } else { '-' }),
            (None, _) => format!("{name}{file}"),
        };
        let (action, amount) = action(color, piece.kind, mv);
        let action = match notation {
            Notation::Chinese => action.chinese(),
            Notation::Wxf => action.wxf(),
        };
        Some(format!("{head}{action}{}", number(color, amount, notation)))
    }

    /// For a piece sharing its file with a like piece: whether it is the front one.
    fn tandem(&self, from: Square) -> Option<bool> {
        let piece = self.piece_at(from)?;
        let ahead = |r: u8| match piece.color {
            Color::Red => r > from.rank(),
            Color::Black => r < from.rank(),
        };
        let twins: Vec<u8> = (0u8..10)
            .filter(|&r| r != from.rank())
            .filter(|&r| Square::new(from.file(), r).and_then(|s| self.piece_at(s)) == Some(piece))
            .collect();
        match twins.as_slice() {
            [] => None,
            others => Some(!others.iter().any(|&r| ahead(r))),
        }
    }
}

/// 进 / 退 / 平.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    Forward,
    Back,
    Across,
}

impl Action {
    fn chinese(self) -> char {
        match self {
            Action::Forward => '进',
            Action::Back => '退',
            Action::Across => '平',
        }
    }

    fn wxf(self) -> char {
        match self {
            Action::Forward => '+',
            Action::Back => '-',
            Action::Across => '=',
        }
    }
}

/// The action and its number: steps for pieces moving along a file, the arrival file
/// otherwise.
pub(super) fn action(color: Color, kind: PieceKind, mv: Move) -> (Action, u8) {
    let (r0, r1) = (mv.from.rank(), mv.to.rank());
    let forward = match color {
        Color::Red => r1 > r0,
        Color::Black => r1 < r0,
    };
    let act = match (r0 == r1, forward) {
        (true, _) => Action::Across,
        (false, true) => Action::Forward,
        (false, false) => Action::Back,
    };
    let diagonal = matches!(
        kind,
        PieceKind::Horse | PieceKind::Elephant | PieceKind::Advisor
    );
    match act {
        Action::Across => (act, file_of(color, mv.to)),
        _ if diagonal => (act, file_of(color, mv.to)),
        _ => (act, r0.abs_diff(r1)),
    }
}

/// A file as `color` counts it, 1..=9 from its right.
pub(super) fn file_of(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => 9 - sq.file(),
        Color::Black => sq.file() + 1,
    }
}

fn number(color: Color, n: u8, notation: Notation) -> String {
    match (color, notation) {
        (Color::Red, Notation::Chinese) => RED_NUMERALS
            .get(usize::from(n).wrapping_sub(1))
            .map(char::to_string)
            .unwrap_or_default(),
        _ => n.to_string(),
    }
}

fn chinese_name(color: Color, kind: PieceKind) -> char {
    match (color, kind) {
        (Color::Red, PieceKind::General) => '帅',
        (Color::Black, PieceKind::General) => '将',
        (Color::Red, PieceKind::Advisor) => '仕',
        (Color::Black, PieceKind::Advisor) => '士',
        (Color::Red, PieceKind::Elephant) => '相',
        (Color::Black, PieceKind::Elephant) => '象',
        (_, PieceKind::Horse) => '马',
        (_, PieceKind::Chariot) => '车',
        (_, PieceKind::Cannon) => '炮',
        (Color::Red, PieceKind::Soldier) => '兵',
        (Color::Black, PieceKind::Soldier) => '卒',
    }
}

fn wxf_letter(kind: PieceKind) -> char {
    match kind {
        PieceKind::General => 'K',
        PieceKind::Advisor => 'A',
        PieceKind::Elephant => 'E',
        PieceKind::Horse => 'H',
        PieceKind::Chariot => 'R',
        PieceKind::Cannon => 'C',
        PieceKind::Soldier => 'P',
    }
}

/// Folds the spellings of the scoresheets onto one: traditional and variant piece names,
/// full-width digits, `.` for `=` in WXF, upper case.
pub(super) fn normalise(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '帥' => '帅',
            '將' => '将',
            '馬' | '傌' | '馮' => '马',
            '車' | '俥' | '伡' => '车',
            '砲' | '炮' | '包' => '炮',
            '相' => '相',
            '士' => '士',
            '仕' => '仕',
            '進' => '进',
            '後' => '后',
            '.' => '=',
            '０'..='９' => char::from_u32(u32::from(c) - 0xFF10 + 0x30).unwrap_or(c),
            other => other.to_ascii_uppercase(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(pos: &mut Position, iccs: &[&str]) -> Vec<(String, String)> {
        iccs.iter()
            .map(|t| {
                let mv = Move::parse(t).unwrap();
                let out = (pos.to_chinese(mv).unwrap(), pos.to_wxf(mv).unwrap());
                assert_eq!(pos.parse_notation(&out.0), Some(mv), "{t} {}", out.0);
                assert_eq!(pos.parse_notation(&out.1), Some(mv), "{t} {}", out.1);
                pos.play(mv);
                out
            })
            .collect()
    }

    #[test]
    fn opening_moves() {
        let mut pos = Position::startpos();
        let got = play_all(
            &mut pos,
            &["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "e3e4"],
        );
        let want = [
            ("炮二平五", "C2=5"),
            ("马8进7", "H8+7"),
            ("马二进三", "H2+3"),
            ("车9平8", "R9=8"),
            ("车一平二", "R1=2"),
            ("马2进3", "H2+3"),
            ("兵五进一", "P5+1"),
        ];
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0.as_str(), g.1.as_str()), w);
        }
    }

    #[test]
    fn front_and_back() {
        // Red cannons on e1 and e3: the e3 one is in front.
        let pos = Position::from_fen("3k5/9/9/9/9/9/4C4/9/4C4/5K3 w - - 0 1").unwrap();
        let front = Move::parse("e3e5").unwrap();
        let back = Move::parse("e1a1").unwrap();
        assert_eq!(pos.to_chinese(front).unwrap(), "前炮进二");
        assert_eq!(pos.to_chinese(back).unwrap(), "后炮平九");
        assert_eq!(pos.to_wxf(back).unwrap(), "-C=9");
        assert_eq!(pos.parse_notation("後砲平九"), Some(back));
    }
}
