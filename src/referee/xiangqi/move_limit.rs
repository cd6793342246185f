//! The natural move limit (xiangqi 4.2, 自然限着): so many moves by each side in a row
//! without a capture is a draw. The CXA rules it when reached; the reform of seed 001 only
//! when a player claims it.

use crate::event::{Header, Procedure, RuleSet};
use crate::games::xiangqi::Position;

/// The limit of a game and whether the referee applies it unasked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveLimit {
    /// Moves by each side (one move = red's and black's, 回合).
    pub moves: u32,
    /// Ruled when reached (CXA with the automatic procedure), or reported claimable and
    /// drawn only on a claim (the arbiter procedure, and the reform under either).
    pub automatic: bool,
}

/// The CXA default: 60 moves each (the regulations may lower it, e.g. to 50, 40 or 30).
const DEFAULT_MOVES: u32 = 60;

impl MoveLimit {
    /// The limit the header's rule set asks for.
    pub fn from_header(header: &Header) -> MoveLimit {
        MoveLimit {
            moves: header.rules.move_limit.unwrap_or(DEFAULT_MOVES),
            automatic: header.rules.rule_set != Some(RuleSet::Reform)
                && header.rules.procedure == Some(Procedure::Automatic),
        }
    }

    /// Plies (single moves) without a capture that reach the limit.
    pub fn plies(self) -> u32 {
        self.moves.saturating_mul(2)
    }

    /// Whether `pos` has reached the limit.
    pub fn reached(self, pos: &Position) -> bool {
        pos.halfmove_clock() >= self.plies()
    }
}

/// "61 single moves (30 by each side and one more)" in words a scoresheet reader checks.
pub fn count_words(plies: u32) -> String {
    let (each, odd) = (plies / 2, plies % 2);
    if odd == 0 {
        format!("{plies} single moves ({each} by each side)")
    } else {
        format!("{plies} single moves ({each} by each side and one more)")
    }
}
