//! What the shared rules apply of the xiangqi rules: the third foul loses (tournament
//! regulations, 4.1), offers alternate after one's move (4.2), touch-move (5), time (4.1).

use crate::event::{ClaimKind, Header, Side};
use crate::games::xiangqi::Square;

use super::super::article::Article;
use super::super::offers::{OfferMoment, OfferRule};
use super::super::table::{GameTable, Played, Policy, Positioned, TimeDraw};
use super::super::touch::{TouchRule, View};
use super::{Ruling, XiangqiTable};

const POLICY: Policy = Policy {
    foul_limit: Some(3),
    foul_limit_article: Article::Xiangqi("4.1"),
    resignation: Article::Xiangqi("4.1"),
    clock: Article::Xiangqi("4.1"),
    offers: OfferRule {
        article: Article::Xiangqi("4.2"),
        moment: OfferMoment::AfterOwnMove,
        wait_after_refusal: true,
        repeat_is_foul: true,
        min_moves: 0,
    },
    touch: Some(TouchRule {
        article: Article::Xiangqi("5"),
        touching_can_foul: true,
    }),
};

impl GameTable for XiangqiTable {
    type Square = Square;

    fn policy(&self) -> Policy {
        POLICY
    }

    fn describe(&self, played: &Played<Square>) -> Option<String> {
        self.describe_event(played)
    }

    fn apply(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        self.apply(seq, played)
    }

    fn after_end(&mut self, _seq: u64, _played: &Played<Square>) -> Option<Vec<Ruling>> {
        None
    }

    fn touch_view(&self) -> Option<View> {
        Some(View::of(self.position()))
    }

    fn open_conditions(&self) -> Vec<String> {
        self.open_conditions()
    }

    /// The xiangqi rules know no position that saves a player whose flag fell.
    fn time_draw(&self, _flagged: Side, _header: &Header) -> Option<TimeDraw> {
        None
    }

    fn timed_claim(&self, _: u64, _: Side, _: ClaimKind, _: Option<i64>) -> Option<Ruling> {
        None
    }
}

impl Positioned for XiangqiTable {
    type Position = crate::games::xiangqi::Position;

    fn position(&self) -> &Self::Position {
        &self.position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xiangqi_policy() {
        let p = POLICY;
        assert_eq!(p.foul_limit, Some(3), "the third foul loses");
        let articles = [
            p.foul_limit_article,
            p.resignation,
            p.clock,
            p.offers.article,
        ];
        let texts = articles.map(|a| a.to_string());
        assert_eq!(
            texts,
            ["xiangqi 4.1", "xiangqi 4.1", "xiangqi 4.1", "xiangqi 4.2"]
        );
        assert_eq!(p.offers.moment, OfferMoment::AfterOwnMove);
        assert!(p.offers.wait_after_refusal && p.offers.repeat_is_foul);
        assert_eq!(p.offers.min_moves, 0);
        let touch = p.touch.expect("xiangqi 5");
        assert_eq!(touch.article.to_string(), "xiangqi 5");
        assert!(
            touch.touching_can_foul,
            "touching what cannot move is a foul"
        );
    }
}
