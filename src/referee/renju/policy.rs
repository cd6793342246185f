//! What the shared rules apply of the renju texts: no foul limit, a draw by agreement (5.2),
//! resignation (6.2) and time (6.1); no touch-move (a stone placed is a move).

use crate::event::{ClaimKind, Event, Header, Side};

use super::super::article::Article;
use super::super::offers::{OfferMoment, OfferRule};
use super::super::table::{GameTable, Policy, TimeDraw};
use super::super::touch::View;
use super::{RenjuTable, Ruling};

/// The renju policy: the texts set no foul limit, so only a header's count.
const POLICY: Policy = Policy {
    foul_limit: None,
    foul_limit_article: Article::Renju("foul_limit"),
    resignation: Article::Renju("6.2"),
    clock: Article::Renju("6.1"),
    offers: OfferRule {
        article: Article::Renju("5.2"),
        moment: OfferMoment::AfterOwnMove,
        wait_after_refusal: false,
        repeat_is_foul: false,
        min_moves: 0,
    },
    touch: None,
};

impl GameTable for RenjuTable {
    fn policy(&self) -> Policy {
        POLICY
    }

    fn fen(&self) -> String {
        self.fen()
    }

    fn side_to_move(&self) -> Side {
        self.side_to_move()
    }

    fn describe(&self, event: &Event) -> Option<String> {
        self.describe(event)
    }

    fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        self.apply(seq, event)
    }

    fn after_end(&mut self, _seq: u64, _event: &Event) -> Option<Vec<Ruling>> {
        None
    }

    fn touch_view(&self) -> Option<View> {
        None
    }

    fn open_conditions(&self) -> Vec<String> {
        self.open_conditions()
    }

    /// The texts know no draw on time: the flag's fall loses (6.1).
    fn time_draw(&self, _flagged: Side, _header: &Header) -> Option<TimeDraw> {
        None
    }

    fn timed_claim(
        &self,
        _seq: u64,
        _side: Side,
        _claim: ClaimKind,
        _left: Option<i64>,
    ) -> Option<Ruling> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renju_policy() {
        let p = POLICY;
        assert_eq!(p.foul_limit, None, "the texts set no foul limit");
        let texts = [p.resignation, p.clock, p.offers.article].map(|a| a.to_string());
        assert_eq!(texts, ["renju 6.2", "renju 6.1", "renju 5.2"]);
        assert_eq!(p.touch, None, "a stone placed is a move: no touch-move");
    }
}
