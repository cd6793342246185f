//! What a board reports: the game header and the events of a game, as facts in the past tense.
//!
//! Events are validated only as far as "could this be an event at all" (known type and
//! fields, squares that exist on this game's board). Whether an event breaks a rule of the
//! game is the referee's business: it becomes a ruling, never a refused write.

pub mod check;
mod games;
mod header;
mod jsonl;
mod square;
mod text;

pub use games::{describe, describe_games, rule_values};
pub use header::{
    BoardTouch, ClockControl, ForbiddenRule, Header, IllegalMovePolicy, OpeningRule, Period,
    Procedure, RuleOptions, RuleSet,
};
pub use jsonl::{
    GameLog, LineError, event_from_json, event_to_json, event_value, header_from_json,
    header_to_json, opening_refused, parse_log, write_log,
};
pub use square::{GameSquare, Square};
pub use text::{TextError, read_text};

use std::fmt;

use crate::games::Variant;

/// Who an event or ruling concerns: the first player (white in chess and draughts, red in
/// xiangqi), the second player (black), the arbiter, or an electronic board (whose `board`
/// reports have no side in the log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    First,
    Second,
    Arbiter,
    Board,
}

/// The player whose turn the board gives, as events name sides.
impl From<crate::games::Player> for Side {
    fn from(player: crate::games::Player) -> Side {
        match player {
            crate::games::Player::First => Side::First,
            crate::games::Player::Second => Side::Second,
        }
    }
}

/// The side that places renju stones of this colour: black is the first player.
impl From<crate::games::renju::Stone> for Side {
    fn from(stone: crate::games::renju::Stone) -> Side {
        match stone {
            crate::games::renju::Stone::Black => Side::First,
            crate::games::renju::Stone::White => Side::Second,
        }
    }
}

impl Side {
    /// The name used in this variant's logs (`white`, `red`, `black`, `arbiter`).
    pub fn name(self, variant: Variant) -> &'static str {
        match self {
            Side::First => variant.side_names()[0],
            Side::Second => variant.side_names()[1],
            Side::Arbiter => "arbiter",
            Side::Board => "board",
        }
    }

    pub fn parse(text: &str, variant: Variant) -> Option<Side> {
        let [first, second] = variant.side_names();
        match text {
            t if t == first => Some(Side::First),
            t if t == second => Some(Side::Second),
            "arbiter" => Some(Side::Arbiter),
            _ => None,
        }
    }

    /// The other player; the arbiter has no opponent.
    pub fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
            Side::Arbiter => Side::Arbiter,
            Side::Board => Side::Board,
        }
    }

    /// The result in which this player loses.
    pub fn loses(self) -> GameResult {
        match self {
            Side::Second => GameResult::FirstWins,
            _ => GameResult::SecondWins,
        }
    }
}

/// A game's result, written from the first player's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    FirstWins,
    SecondWins,
    Draw,
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::FirstWins => "1-0",
            GameResult::SecondWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub fn parse(text: &str) -> Option<GameResult> {
        match text {
            "1-0" => Some(GameResult::FirstWins),
            "0-1" => Some(GameResult::SecondWins),
            "1/2-1/2" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One event of a game log. `seq` is not part of it: an event's seq is its place in the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub side: Side,
    /// Milliseconds since the game began, from the board or clock.
    pub ts_ms: Option<u64>,
    pub kind: EventKind,
}

/// What happened, with the fields of its type.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// The player touched the piece on `square`; `adjust` = announced adjustment, binds nothing.
    Touch {
        square: Square,
        adjust: bool,
    },
    /// A completed move. `promotion` is a chess letter as written (`q r b n`); `captures`
    /// lists the squares of the pieces a draughts capture took.
    Move {
        from: Square,
        to: Square,
        promotion: Option<char>,
        captures: Option<Vec<Square>>,
    },
    /// Renju: a stone placed on `to`, written as a `move` with no `from`.
    Place {
        to: Square,
    },
    /// Chess Gjq: the hidden piece on `square` turned out to be `piece` (`Q R B N P`).
    Reveal {
        square: Square,
        piece: char,
        promotion: Option<char>,
    },
    /// The player pressed the clock; the times it showed after the press.
    Clock {
        first_ms: Option<u64>,
        second_ms: Option<u64>,
    },
    DrawOffer,
    DrawReply {
        accept: bool,
    },
    Claim {
        claim: ClaimKind,
    },
    Resign,
    /// The arbiter's word; `moves` (decision `set`) are the moves the arbiter finds were
    /// made, after a board mismatch.
    Arbiter {
        decision: Decision,
        ruling: Option<u64>,
        result: Option<GameResult>,
        text: Option<String>,
        moves: Vec<Event>,
    },
    /// Renju under an opening rule: the player now holding `side` takes the other colour.
    Swap,
    /// Renju under an opening rule: the number of fifth-move offers the player declares.
    Declare {
        offers: u32,
    },
    /// Renju under an opening rule: the alternative fifth stones, placed at once.
    Offer {
        points: Vec<Square>,
    },
    /// Renju under an opening rule: the offer the opponent picks as the fifth stone.
    Choose {
        to: Square,
    },
    /// What an electronic board's sensors read, whole, exactly as reported: the board part
    /// of the game's FEN (see `games::sensor`), and the device that read it.
    Board {
        placement: String,
        device: Option<String>,
    },
}

impl EventKind {
    /// The `type` name of this event in logs.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::Touch { .. } => "touch",
            EventKind::Move { .. } | EventKind::Place { .. } => "move",
            EventKind::Reveal { .. } => "reveal",
            EventKind::Clock { .. } => "clock",
            EventKind::DrawOffer => "draw_offer",
            EventKind::DrawReply { .. } => "draw_reply",
            EventKind::Claim { .. } => "claim",
            EventKind::Resign => "resign",
            EventKind::Arbiter { .. } => "arbiter",
            EventKind::Board { .. } => "board",
            EventKind::Swap => "swap",
            EventKind::Declare { .. } => "declare",
            EventKind::Offer { .. } => "offer",
            EventKind::Choose { .. } => "choose",
        }
    }
}

pub(crate) use crate::named_enum::named_enum;

named_enum! {
    /// What a `claim` event claims.
    ClaimKind {
        Repetition = "repetition",
        PerpetualCheck = "perpetual_check",
        PerpetualChase = "perpetual_chase",
        MoveLimit = "move_limit",
        EndgameCount = "endgame_count",
        InsufficientMaterial = "insufficient_material",
        Flag = "flag",
        IllegalMove = "illegal_move",
        Forbidden = "forbidden",
    }
}

named_enum! {
    /// The arbiter's decision in an `arbiter` event.
    Decision {
        Uphold = "uphold",
        Overturn = "overturn",
        Declare = "declare",
        Warn = "warn",
        Foul = "foul",
        Set = "set",
    }
}
