//! What the shared rules apply of the FMJD rules: no foul limit, offers after 40 moves each
//! (12.4), touch-move left to this table (5.11), time under 8.1.

use crate::event::{ClaimKind, Header, Side};
use crate::games::draughts::Square;

use super::super::article::Article;
use super::super::offers::{OfferMoment, OfferRule};
use super::super::table::{GameTable, Played, Policy, Positioned, TimeDraw};
use super::super::touch::View;
use super::{DraughtsTable, Ruling};

/// The draughts policy: the FMJD rules set no foul limit, so only a header's counts.
const POLICY: Policy = Policy {
    foul_limit: None,
    foul_limit_article: Article::Draughts("foul_limit"),
    resignation: Article::Draughts("12.2"),
    clock: Article::Draughts("8.1"),
    offers: OfferRule {
        article: Article::Draughts("12.4"),
        moment: OfferMoment::AfterOwnMove,
        wait_after_refusal: true,
        repeat_is_foul: false,
        min_moves: 40,
    },
    // 5.11: a breach is an irregularity of 7.4 the opponent may correct, judged here.
    touch: None,
};

impl GameTable for DraughtsTable {
    type Square = Square;

    fn policy(&self) -> Policy {
        POLICY
    }

    fn describe(&self, played: &Played<Square>) -> Option<String> {
        self.describe(played)
    }

    fn apply(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        self.apply(seq, played)
    }

    fn after_end(&mut self, _seq: u64, _played: &Played<Square>) -> Option<Vec<Ruling>> {
        None
    }

    fn touch_view(&self) -> Option<View> {
        None
    }

    /// An irregular move awaiting the opponent's decision (7.4, 7.7).
    fn open_conditions(&self) -> Vec<String> {
        self.pending_correction().into_iter().collect()
    }

    fn time_draw(&self, _flagged: Side, header: &Header) -> Option<TimeDraw> {
        self.time_draw(header)
    }

    /// 8.1.3.1B: `insufficient_material` asks the arbiter for a draw when short of time.
    fn timed_claim(
        &self,
        seq: u64,
        side: Side,
        claim: ClaimKind,
        left: Option<i64>,
    ) -> Option<Ruling> {
        (claim == ClaimKind::InsufficientMaterial).then(|| self.judgment_claim(seq, side, left))
    }
}

impl Positioned for DraughtsTable {
    type Position = crate::games::draughts::Position;

    fn position(&self) -> &Self::Position {
        &self.game.position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draughts_policy() {
        let p = POLICY;
        assert_eq!(p.foul_limit, None, "the FMJD rules set no foul limit");
        let articles = [
            p.foul_limit_article,
            p.resignation,
            p.clock,
            p.offers.article,
        ];
        let texts = articles.map(|a| a.to_string());
        assert_eq!(
            texts,
            [
                "draughts foul_limit",
                "draughts 12.2",
                "draughts 8.1",
                "draughts 12.4"
            ]
        );
        assert_eq!(p.offers.moment, OfferMoment::AfterOwnMove);
        assert!(p.offers.wait_after_refusal && !p.offers.repeat_is_foul);
        assert_eq!(p.offers.min_moves, 40, "12.4");
        assert_eq!(p.touch, None, "5.11 is judged by the table");
    }
}
