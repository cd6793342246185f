//! A game described once: what the layers shared by every game (the log reader, the event
//! checks, the proto conversion, tournament scoring, help and error texts, the console) need
//! to know of it. Each game's folder holds its [`GameSpec`] as `SPEC`; [`super::Variant`]
//! lists the games once and hands out their specs, so those layers read a table instead of
//! matching on the variant.

use serde::Serialize;

use crate::named_enum::named_enum;

/// One game as the shared layers see it.
#[derive(Debug, Serialize)]
pub struct GameSpec {
    /// The name used in logs, on the command line and on the wire (`xiangqi`).
    pub name: &'static str,
    /// The name an arbiter reads (`Xiangqi (中国象棋)`).
    pub title: &'static str,
    /// How the first and second player are called in this game's logs (in renju black moves
    /// first).
    pub sides: [&'static str; 2],
    pub squares: Squares,
    pub moves: MoveShape,
    /// The header's rule options this game reads; any other is refused.
    pub rules: &'static [RuleKey],
    pub scoring: Scoring,
    /// Rulings that call for an alert of their own in the console, beyond those every game
    /// shares (an illegal move, a foul, an order to vary, a claimable draw, a result).
    pub alerts: &'static [Alert],
    pub notation: Notation,
}

/// How an event names a square.
#[derive(Debug, Serialize)]
pub struct Squares {
    pub kind: SquareKind,
    /// The squares' range as the board is written (`a1-h8`, `1-50`).
    pub range: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SquareKind {
    /// A string of file and rank (`e2`, `h9`, `o15`).
    Named,
    /// A number (`32`): JSON numbers in logs, decimal strings in the proto.
    Numbered,
}

/// The fields a `move` event of this game may carry.
#[derive(Debug, Serialize)]
pub struct MoveShape {
    /// Whether a move has a `from` square; without one a move places a piece on `to`.
    pub from: bool,
    /// The letters a `promotion` may hold; empty when the game has no promotion field.
    pub promotion: &'static str,
    /// Whether a move may list the squares it `captures` (what a board saw taken).
    pub captures: bool,
    /// Whether the game has `reveal` events (hidden pieces).
    pub reveals: bool,
}

/// Points of a win and of a draw, in half points (a loss scores nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Scoring {
    pub win: u32,
    pub draw: u32,
    /// Where the scale is written (`chess_gjq 7`).
    pub source: &'static str,
}

/// A ruling kind that gets an alert of its own while its effect is still open.
#[derive(Debug, Serialize)]
pub struct Alert {
    /// The ruling kind, as the log format writes it.
    pub kind: &'static str,
    /// The alert's name in the console.
    pub alert: &'static str,
    /// What the arbiter is told, in a few words.
    pub meaning: &'static str,
}

/// How the game's moves read in rulings, replays and the console.
#[derive(Debug, Serialize)]
pub struct Notation {
    /// A move as the referee writes it.
    pub example: &'static str,
    /// Where the notation comes from, in a few words.
    pub source: &'static str,
}

named_enum! {
    /// The rule options a header's `rules` may set; each game's spec lists those it reads.
    RuleKey {
        MoveLimit = "move_limit",
        FoulLimit = "foul_limit",
        IllegalMove = "illegal_move",
        RepetitionCount = "repetition_count",
        RuleSet = "rule_set",
        Procedure = "procedure",
        Forbidden = "forbidden",
        Opening = "opening",
        BoardHoldMs = "board_hold_ms",
        BoardTouch = "board_touch",
    }
}

impl Serialize for RuleKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl GameSpec {
    /// Whether this game reads the rule option `key`.
    pub fn reads(&self, key: RuleKey) -> bool {
        self.rules.contains(&key)
    }

    /// The rule options this game reads, for a message: `"foul_limit", "forbidden"`.
    pub fn rule_list(&self) -> String {
        let keys: Vec<String> = self.rules.iter().map(|k| format!("\"{k}\"")).collect();
        keys.join(", ")
    }
}
