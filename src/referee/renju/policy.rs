//! What the shared rules apply of the renju texts: no foul limit, a draw by agreement (5.2),
//! resignation (6.2) and time (6.1); no touch-move (a stone placed is a move).

use super::super::article::Article;
use super::super::offers::{OfferMoment, OfferRule};
use super::super::table::Policy;

/// The renju policy: the texts set no foul limit, so only a header's count.
pub(super) const POLICY: Policy = Policy {
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
