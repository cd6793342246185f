//! What stands open under the arbiter procedure (log format, "Draws and cycles the book
//! leaves to a claim"): an order to vary, and the cycles and natural limit already reported
//! as claimable, so that each is reported once.
//!
//! When "not varying" is established (走棋违犯禁例，应当变着而不变, xiangqi 4.1 with 26.1 or
//! 26.4): the order names the side and the position whose repetition was judged. The side
//! loses when that position occurs again (the next occurrence after the order: the fourth
//! under the default count) and its moves in the last turn of the cycle, from the previous
//! occurrence to this one, are still judged forbidden against the other side's. Re-entering
//! another position of the cycle is not yet enough: until the judged position comes back the
//! side may still vary. If it varied in that turn (an idle move, a different path), nothing is
//! ruled and the order stays.

use crate::games::xiangqi::{Color, PositionKey};

/// The arbiter's order that `side` must vary (应当变着).
#[derive(Clone, Debug)]
pub struct Order {
    /// Seq of the event whose ruling gave the order.
    pub seq: u64,
    pub side: Color,
    /// Perpetual check (26.1) rather than another forbidden cycle (26.4).
    pub check: bool,
    /// The position whose repetition was judged.
    pub position: PositionKey,
}

/// A cycle judged a draw (26.2, 26.3), which either side may claim while the position on the
/// board is one of its positions.
#[derive(Clone, Debug)]
pub struct DrawnCycle {
    /// Seq of the `draw_claimable` ruling.
    pub seq: u64,
    pub article: &'static str,
    pub positions: Vec<PositionKey>,
}

/// The open conditions since the last capture (a capture makes every earlier position
/// unreachable, so it closes them all).
#[derive(Clone, Debug, Default)]
pub struct Standing {
    pub order: Option<Order>,
    /// Positions of the cycles already judged, so a cycle is reported once and not again as
    /// each of its positions reaches the count.
    pub judged: Vec<PositionKey>,
    /// The drawn cycle reported claimable, while it stands.
    pub drawn: Option<DrawnCycle>,
    /// Seq of the ruling that reported the natural limit reached.
    pub limit: Option<u64>,
}

impl Standing {
    /// A capture: no earlier position can come back.
    pub fn capture(&mut self) {
        *self = Standing::default();
    }
}
