//! The named counters of the draws by move count: 12.3.2 (25 moves each with only kings moved
//! and no capture) and the endgame counts of 12.3.3 (16 more moves each) and 12.3.4 (5 more).

use crate::games::draughts::{Color, Move, PieceKind, Position};
use crate::referee::Article;

/// The endgame classes of draughts 12.3.3 and 12.3.4: material against a lone king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndgameClass {
    /// Three kings, two kings and a man, or a king and two men against a lone king (12.3.3).
    Sixteen,
    /// Two kings, a king and a man, or a king against a lone king (12.3.4).
    Five,
}

impl EndgameClass {
    /// Moves each side may still make once the class holds.
    pub fn limit(self) -> u32 {
        match self {
            EndgameClass::Sixteen => 16,
            EndgameClass::Five => 5,
        }
    }

    /// The article that sets the limit.
    pub fn article(self) -> Article {
        match self {
            EndgameClass::Sixteen => Article::Draughts("12.3.3"),
            EndgameClass::Five => Article::Draughts("12.3.4"),
        }
    }

    /// The class of `pos`, if one side has a lone king and the other one of the listed sets.
    pub fn of(pos: &Position) -> Option<EndgameClass> {
        let lone =
            |c: Color| pos.count(c, PieceKind::King) == 1 && pos.count(c, PieceKind::Man) == 0;
        let strong = if lone(Color::Black) {
            Color::White
        } else if lone(Color::White) {
            Color::Black
        } else {
            return None;
        };
        let kings = pos.count(strong, PieceKind::King);
        let men = pos.count(strong, PieceKind::Man);
        match (kings, men) {
            (3, 0) | (2, 1) | (1, 2) => Some(EndgameClass::Sixteen),
            (2, 0) | (1, 1) | (1, 0) => Some(EndgameClass::Five),
            _ => None,
        }
    }
}

/// "white 3 kings v black 1 king".
pub fn material(pos: &Position) -> String {
    let side = |c: Color| {
        let kings = pos.count(c, PieceKind::King);
        let men = pos.count(c, PieceKind::Man);
        let mut parts = Vec::new();
        if kings > 0 {
            parts.push(plural(kings, "king"));
        }
        if men > 0 || kings == 0 {
            parts.push(plural(men, "man"));
        }
        format!("{} {}", c.name(), parts.join(" and "))
    };
    format!("{} v {}", side(Color::White), side(Color::Black))
}

fn plural(n: usize, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "man") => format!("{n} men"),
        _ => format!("{n} {noun}s"),
    }
}

/// A running endgame count: which class, where it began, and the moves made since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndgameCount {
    pub class: EndgameClass,
    /// Seq of the move that created the material; 0 when it held at the start.
    pub since: u64,
    /// That move in PDN (the full path only where it is ambiguous), `None` at the start.
    pub since_move: Option<String>,
    /// The material when the count began.
    pub material: String,
    /// Moves (plies) made since the count began.
    pub plies: u32,
}

impl EndgameCount {
    /// Whether each side has made its allowed moves.
    pub fn expired(&self) -> bool {
        self.plies >= 2 * self.class.limit()
    }

    /// "since event 211 (32x41, leaving white 3 kings v black 1 king)".
    pub fn origin(&self) -> String {
        match &self.since_move {
            Some(mv) => format!(
                "since event {} ({mv}, leaving {})",
                self.since, self.material
            ),
            None => format!("since the start position ({})", self.material),
        }
    }
}

/// A run of moves in which only kings moved and nothing was taken (12.3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KingRun {
    /// Seq of the first move of the run.
    pub since: u64,
    /// Seq of the latest move of the run.
    pub last: u64,
    /// Moves (plies) in the run.
    pub plies: u32,
}

impl KingRun {
    /// 25 moves by each player (12.3.2).
    pub const LIMIT: u32 = 25;

    pub fn expired(&self) -> bool {
        self.plies >= 2 * KingRun::LIMIT
    }
}

/// Both counters, kept move by move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawCounts {
    pub kings_only: Option<KingRun>,
    pub endgame: Option<EndgameCount>,
}

impl DrawCounts {
    /// The counters at the start: an endgame count when the start already holds the material.
    pub fn at_start(pos: &Position) -> DrawCounts {
        DrawCounts {
            kings_only: None,
            endgame: EndgameClass::of(pos).map(|class| EndgameCount {
                class,
                since: 0,
                since_move: None,
                material: material(pos),
                plies: 0,
            }),
        }
    }

    /// Updates both counters for `mv` (played at `seq` by a king if `by_king`) from `before`
    /// to `after`.
    pub fn record(
        &mut self,
        seq: u64,
        mv: &Move,
        by_king: bool,
        before: &Position,
        after: &Position,
    ) {
        self.record_kings_only(seq, mv, by_king);
        self.record_endgame(seq, mv, before, after);
    }

    fn record_kings_only(&mut self, seq: u64, mv: &Move, by_king: bool) {
        if !by_king || mv.is_capture() {
            self.kings_only = None;
            return;
        }
        let run = self.kings_only.get_or_insert(KingRun {
            since: seq,
            last: seq,
            plies: 0,
        });
        run.last = seq;
        run.plies += 1;
    }

    /// Counts go on within a class; a move that creates a class (or changes it, which only a
    /// capture can) starts that class's count afresh, 12.3.3-12.3.4.
    fn record_endgame(&mut self, seq: u64, mv: &Move, before: &Position, after: &Position) {
        let class = EndgameClass::of(after);
        match (&mut self.endgame, class) {
            (Some(count), Some(class)) if count.class == class => count.plies += 1,
            (_, Some(class)) => {
                self.endgame = Some(EndgameCount {
                    class,
                    since: seq,
                    since_move: Some(before.pdn_text(mv)),
                    material: material(after),
                    plies: 0,
                });
            }
            (_, None) => self.endgame = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EndgameClass, material};
    use crate::games::draughts::Position;

    fn class(fen: &str) -> Option<EndgameClass> {
        EndgameClass::of(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn classes() {
        assert_eq!(class("W:WK1,K2,K3:BK50"), Some(EndgameClass::Sixteen));
        assert_eq!(class("W:WK1,K2,33:BK50"), Some(EndgameClass::Sixteen));
        assert_eq!(class("W:WK1,32,33:BK50"), Some(EndgameClass::Sixteen));
        assert_eq!(class("W:WK1,K2:BK50"), Some(EndgameClass::Five));
        assert_eq!(class("W:WK1,33:BK50"), Some(EndgameClass::Five));
        assert_eq!(class("W:WK1:BK50"), Some(EndgameClass::Five));
        assert_eq!(class("W:WK1,K2,K3,K4:BK50"), None);
        assert_eq!(class("W:W31,32,33:BK50"), None);
        assert_eq!(class("W:WK1:B45"), None);
    }

    #[test]
    fn material_in_words() {
        let pos = Position::from_fen("W:WK1,K2,33:BK50").unwrap();
        assert_eq!(material(&pos), "white 2 kings and 1 man v black 1 king");
    }
}
