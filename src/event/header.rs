//! The game header: the first line of every log.

use crate::games::Variant;

use super::named_enum;

/// The header of a game log: which game, which rules, which clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub variant: Variant,
    /// Free text naming the game, e.g. `2026-ch-r3-b12`.
    pub id: String,
    /// A FEN to start from instead of the standard start.
    pub start: Option<String>,
    pub rules: RuleOptions,
    pub clock: Option<ClockControl>,
}

impl Header {
    /// A header for the standard start with the variant's default rules and no clock.
    pub fn new(variant: Variant, id: impl Into<String>) -> Header {
        Header {
            variant,
            id: id.into(),
            start: None,
            rules: RuleOptions::default(),
            clock: None,
        }
    }
}

/// Overrides of the variant's rule set. Every field absent means the variant's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleOptions {
    /// Xiangqi natural move limit: moves by each side without a capture (default 60).
    pub move_limit: Option<u32>,
    /// Fouls that lose the game (chess_gjq 2, xiangqi default 3).
    pub foul_limit: Option<u32>,
    /// Whether an illegal move loses or is a foul, where a rule set allows the choice.
    pub illegal_move: Option<IllegalMovePolicy>,
    /// Occurrence of a repeated position at which a cycle is judged (xiangqi default 3).
    pub repetition_count: Option<u32>,
    /// Xiangqi: the CXA rules (default) or the reform proposal of seed 001.
    pub rule_set: Option<RuleSet>,
    /// Xiangqi: who carries out a cycle's or the natural limit's verdict (default arbiter).
    pub procedure: Option<Procedure>,
}

named_enum! {
    /// What an illegal move costs.
    IllegalMovePolicy {
        Loss = "loss",
        Foul = "foul",
    }
}

named_enum! {
    /// Xiangqi: how the verdict on a cycle or the natural limit is carried out (log format,
    /// "Draws and cycles the book leaves to a claim"): `arbiter` as the CXA books do it (an
    /// order to vary, a draw on a claim or the arbiter's word), `automatic` as engines and
    /// online play do (the verdict ends the game when it arises).
    Procedure {
        Arbiter = "arbiter",
        Automatic = "automatic",
    }
}

named_enum! {
    /// A named rule set of a variant.
    RuleSet {
        Cxa = "cxa",
        Reform = "reform",
    }
}

/// A time control.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClockControl {
    /// Sudden death or Fischer: the time each side starts with.
    pub initial_ms: Option<u64>,
    /// "N moves in T" periods; the last one repeats.
    pub periods: Vec<Period>,
    /// Fischer increment added after each move.
    pub increment_ms: u64,
    /// A per-move limit whose overrun is a foul.
    pub per_move_ms: Option<u64>,
    /// The per-move limit applies once a side has used this much time.
    pub per_move_after_ms: Option<u64>,
}

/// One period of a time control: `moves` moves in `ms` milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub moves: u32,
    pub ms: u64,
}
