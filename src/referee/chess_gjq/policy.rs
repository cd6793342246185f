//! What the shared rules apply of the chess_gjq rule book: the second foul loses (5.7),
//! offers on one's own turn (6.6), touch-move (8.2), time (5.3, with FIDE Laws 6.9).

use crate::event::{ClaimKind, Header, Side};
use crate::games::chess_gjq::Square;

use super::super::article::Article;
use super::super::offers::{OfferMoment, OfferRule};
use super::super::table::{GameTable, Played, Policy, Positioned, TimeDraw};
use super::super::touch::{TouchRule, View};
use super::{ChessGjqTable, Ruling};

const POLICY: Policy = Policy {
    foul_limit: Some(2),
    foul_limit_article: Article::ChessGjq("5.7"),
    resignation: Article::ChessGjq("5.4"),
    clock: Article::ChessGjq("5.3"),
    offers: OfferRule {
        article: Article::ChessGjq("6.6"),
        moment: OfferMoment::OwnTurn,
        wait_after_refusal: false,
        repeat_is_foul: false,
        min_moves: 0,
    },
    touch: Some(TouchRule {
        article: Article::ChessGjq("8.2"),
        touching_can_foul: false,
    }),
};

impl GameTable for ChessGjqTable {
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

    /// 3.1.4: the shuffle's commitment and opening.
    fn after_end(&mut self, seq: u64, played: &Played<Square>) -> Option<Vec<Ruling>> {
        self.shuffle_event(seq, played)
    }

    fn touch_view(&self) -> Option<View> {
        // Owners of the occupied squares and the legal moves (chess_gjq 8.2).
        Some(View::of(self.position()))
    }

    fn open_conditions(&self) -> Vec<String> {
        Vec::new()
    }

    /// FIDE Laws 6.9, which chess_gjq follows where its book is silent: a flag's fall does
    /// not lose when the opponent cannot mate by any series of legal moves.
    fn time_draw(&self, flagged: Side, _header: &Header) -> Option<TimeDraw> {
        self.cannot_mate(flagged.opponent()).map(|why| TimeDraw {
            article: Article::ChessGjqFide {
                gjq: "5.3",
                fide: "6.9",
            },
            why: format!("{why}, and no series of legal moves can mate"),
        })
    }

    fn timed_claim(&self, _: u64, _: Side, _: ClaimKind, _: Option<i64>) -> Option<Ruling> {
        None
    }
}

impl Positioned for ChessGjqTable {
    type Position = crate::games::chess_gjq::Position;

    fn position(&self) -> &Self::Position {
        &self.position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess_gjq_policy() {
        let p = POLICY;
        assert_eq!(p.foul_limit, Some(2), "5.7: the second foul loses");
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
                "chess_gjq 5.7",
                "chess_gjq 5.4",
                "chess_gjq 5.3",
                "chess_gjq 6.6"
            ]
        );
        assert_eq!(p.offers.moment, OfferMoment::OwnTurn);
        assert!(!p.offers.wait_after_refusal && !p.offers.repeat_is_foul);
        assert_eq!(p.offers.min_moves, 0);
        let touch = p.touch.expect("8.2");
        assert_eq!(touch.article.to_string(), "chess_gjq 8.2");
        assert!(!touch.touching_can_foul, "8.2 fouls only a breach");
    }
}
