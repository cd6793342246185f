//! An irregular move awaiting the opponent's decision (draughts 7.4, 7.7): the state before it,
//! kept so that a demand for correction can void it.

use crate::event::Side;

use super::Game;

/// The last irregular move, until the opponent either demands correction or plays on.
#[derive(Clone, Debug)]
pub struct Pending {
    /// The side that made it.
    pub side: Side,
    /// Its event, and the move as played (PDN).
    pub seq: u64,
    pub played: String,
    /// The game as it stood before the move; restored on a demand for correction.
    pub before: Box<Game>,
}
