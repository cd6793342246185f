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

use std::collections::HashSet;

use crate::games::xiangqi::{Color, PositionKey};
use crate::referee::Article;

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
    pub article: Article,
    pub positions: Vec<PositionKey>,
}

/// The open conditions since the last capture (a capture makes every earlier position
/// unreachable, so it closes them all).
#[derive(Clone, Debug, Default)]
pub struct Standing {
    pub order: Option<Order>,
    /// Positions of the cycles already judged, so a cycle is reported once and not again as
    /// each of its positions reaches the count.
    /// A set: without captures a long game can judge many cycles, and this is asked per move.
    pub judged: HashSet<PositionKey>,
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

    /// What stands, in words for the arbiter: who must vary or what may be claimed, since
    /// which event, and what ends it. `on_cycle` says whether the position on the board is
    /// one of the drawn cycle's.
    pub fn describe(&self, on_cycle: bool) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(o) = &self.order {
            let (kind, rule, _) = super::forbidden_article(o.check);
            let kind = kind.as_str();
            let side = o.side.name();
            out.push(format!(
                "{side} must vary, ordered at event {} ({kind}, {rule}); {side} loses if the \
                 position judged then comes back with {side}'s moves since its previous \
                 occurrence still forbidden (应当变着而不变, xiangqi 4.1); a capture or the \
                 arbiter's word ends the order",
                o.seq
            ));
        }
        if let Some(d) = &self.drawn {
            let now = if on_cycle {
                "it is now"
            } else {
                "it is not now, so a claim would be rejected"
            };
            out.push(format!(
                "draw claimable since event {} (repetition, {}): either side may claim \
                 repetition while the position on the board is one of the cycle's ({now}), or \
                 the arbiter may declare the draw",
                d.seq, d.article
            ));
        }
        if let Some(seq) = self.limit {
            out.push(format!(
                "draw claimable since event {seq} (move_limit, xiangqi 4.2): either side may \
                 claim move_limit until a capture, or the arbiter may declare the draw"
            ));
        }
        out
    }
}
