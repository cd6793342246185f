//! Draw offers and their answers: when each rule book allows an offer, what declines it, and
//! an accepted offer as a draw by agreement.
//!
//! - chess_gjq 6.6: a player offers on his own turn.
//! - xiangqi (reform text 7.4, CXA 22): after making one's own move and before pressing the
//!   clock; offers alternate — offering again before the opponent has offered is a foul;
//!   declined by word or by playing a move.
//! - draughts 12.4: only once each player has made 40 moves; move, offer, press the clock; the
//!   offer stands until answered, a move declines it; after a refusal no new offer by the same
//!   player until the opponent has offered.
//!
//! Each game's table states its [`OfferRule`]; this module applies it.

use crate::event::Side;
use crate::games::Variant;

use super::article::Article;
use super::{Ruling, RulingKind};

/// A game's rule for draw offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OfferRule {
    /// The article of offers, their answers and the draw by agreement.
    pub article: Article,
    /// When in the game's turn a player may offer.
    pub moment: OfferMoment,
    /// Whether a player whose offer was refused must wait until the opponent has offered.
    pub wait_after_refusal: bool,
    /// Whether offering again before the opponent has offered is a foul.
    pub repeat_is_foul: bool,
    /// The moves each player must have made before an offer; 0 for none.
    pub min_moves: u32,
}

/// When a draw may be offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferMoment {
    /// On one's own turn (chess_gjq 6.6).
    OwnTurn,
    /// After making one's own move and before pressing the clock (xiangqi, draughts 12.4).
    AfterOwnMove,
}

/// The offer standing, and what each player has done that bears on the next offer.
#[derive(Clone, Debug)]
pub struct DrawOffers {
    rule: OfferRule,
    /// For the players' names.
    variant: Variant,
    pending: Option<(Side, u64)>,
    /// A player whose offer was refused may not offer again until the opponent has offered.
    must_wait: [bool; 2],
    moves: [u32; 2],
    last_mover: Option<Side>,
    pressed_since_move: bool,
}

fn index(side: Side) -> usize {
    usize::from(side == Side::Second)
}

impl DrawOffers {
    pub fn new(rule: OfferRule, variant: Variant) -> DrawOffers {
        DrawOffers {
            rule,
            variant,
            pending: None,
            must_wait: [false; 2],
            moves: [0; 2],
            last_mover: None,
            pressed_since_move: false,
        }
    }

    /// A move by `side`: it declines the opponent's standing offer.
    pub fn moved(&mut self, side: Side) {
        if let Some((offerer, _)) = self.pending.filter(|(offerer, _)| *offerer != side) {
            self.pending = None;
            self.must_wait[index(offerer)] = true;
        }
        if side != Side::Arbiter {
            self.moves[index(side)] += 1;
        }
        self.last_mover = Some(side);
        self.pressed_since_move = false;
    }

    /// A clock press ends the moment in which the mover may offer.
    pub fn pressed(&mut self) {
        self.pressed_since_move = true;
    }

    /// `side` offers a draw while `to_move` is to move.
    pub fn offer(&mut self, seq: u64, side: Side, to_move: Side) -> Option<Ruling> {
        if let Some(reason) = self.forbidden(side, to_move) {
            return Some(self.reject(seq, side, &reason));
        }
        self.pending = Some((side, seq));
        self.must_wait[index(side.opponent())] = false;
        None
    }

    fn forbidden(&self, side: Side, to_move: Side) -> Option<String> {
        let name = side.name(self.variant);
        if self.pending.is_some_and(|(offerer, _)| offerer == side) {
            return Some(format!("{name}'s earlier offer still stands"));
        }
        if self.must_wait[index(side)] && self.rule.wait_after_refusal {
            return Some(format!(
                "{name}'s last offer was refused and the opponent has not offered since"
            ));
        }
        self.out_of_moment(side, to_move)
            .or_else(|| self.too_early())
    }

    /// An offer outside the moment of the turn the rule allows.
    fn out_of_moment(&self, side: Side, to_move: Side) -> Option<String> {
        match self.rule.moment {
            OfferMoment::OwnTurn => (side != to_move).then(|| {
                format!(
                    "a draw is offered on one's own turn, and it is {}'s",
                    to_move.name(self.variant)
                )
            }),
            OfferMoment::AfterOwnMove => (self.last_mover != Some(side) || self.pressed_since_move)
                .then(|| {
                    "a draw is offered after making one's own move and before pressing the clock"
                        .into()
                }),
        }
    }

    /// An offer before each player has made the moves the rule asks (draughts 12.4).
    fn too_early(&self) -> Option<String> {
        let min = self.rule.min_moves;
        self.moves.iter().any(|m| *m < min).then(|| {
            format!(
                "a draw may be offered only once each player has made {min} moves ({} {}, {} {})",
                Side::First.name(self.variant),
                self.moves[0],
                Side::Second.name(self.variant),
                self.moves[1]
            )
        })
    }

    /// An offer the rules do not allow; in xiangqi a repeated offer is also a foul.
    fn reject(&self, seq: u64, side: Side, reason: &str) -> Ruling {
        let name = side.name(self.variant);
        let repeated = self.rule.repeat_is_foul && self.must_wait[index(side)];
        let foul = if repeated {
            "; offering again before the opponent has offered is a foul"
        } else {
            ""
        };
        let act = format!("{name} offered a draw at event {seq}, which the rules do not allow");
        let text = format!("{act}: {reason}{foul}");
        let ruling = Ruling::notice(
            seq,
            RulingKind::OfferRejected,
            Some(side),
            self.rule.article,
            text,
        );
        if repeated { ruling.foul(act) } else { ruling }
    }

    /// The opponent answers the standing offer.
    pub fn reply(&mut self, seq: u64, side: Side, accept: bool) -> Option<Ruling> {
        let (variant, rule) = (self.variant, self.rule.article);
        let name = side.name(variant);
        let Some((offerer, offered_at)) = self.pending.filter(|(offerer, _)| *offerer != side)
        else {
            let text = format!(
                "{name} answered a draw offer at event {seq}, but no offer by the opponent was standing"
            );
            return Some(Ruling::notice(
                seq,
                RulingKind::InvalidEvent,
                Some(side),
                rule,
                text,
            ));
        };
        self.pending = None;
        if !accept {
            self.must_wait[index(offerer)] = true;
            return None;
        }
        let text = format!(
            "{} offered a draw at event {offered_at} and {name} accepted it at event {seq}: the game is drawn by agreement",
            offerer.name(variant)
        );
        Some(
            Ruling::draw(seq, RulingKind::Agreement, rule, text)
                .with_evidence(vec![offered_at, seq]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Header;
    use crate::referee::table::Table;
    use crate::referee::{Effect, Reason};

    fn offers(variant: Variant) -> DrawOffers {
        let table = Table::new(&Header::new(variant, "g")).expect("table");
        DrawOffers::new(table.policy().offers, variant)
    }

    #[test]
    fn chess_gjq_offers_on_ones_own_turn() {
        let mut book = offers(Variant::ChessGjq);
        let refused = book
            .offer(1, Side::Second, Side::First)
            .expect("not black's turn");
        assert!(refused.text.ends_with("it is white's"), "{}", refused.text);
        assert_eq!(refused.rule(), "chess_gjq 6.6");
        assert_eq!(book.offer(2, Side::First, Side::First), None);
    }

    #[test]
    fn draughts_offers_wait_for_forty_moves_each() {
        let mut book = offers(Variant::Draughts);
        book.moved(Side::First);
        let early = book.offer(2, Side::First, Side::Second).expect("too early");
        assert!(
            early.text.ends_with("made 40 moves (white 1, black 0)"),
            "{}",
            early.text
        );
        assert_eq!(early.reason, Reason::Plain, "no foul in draughts");
    }

    #[test]
    fn a_repeated_xiangqi_offer_is_a_foul_that_names_the_offer() {
        let mut book = offers(Variant::Xiangqi);
        book.moved(Side::First);
        assert_eq!(book.offer(2, Side::First, Side::Second), None);
        assert_eq!(book.reply(3, Side::Second, false), None);
        book.moved(Side::Second);
        book.moved(Side::First);
        let again = book.offer(6, Side::First, Side::Second).expect("repeated");
        let act = "red offered a draw at event 6, which the rules do not allow";
        assert_eq!(
            (again.effect, again.reason.clone()),
            (Effect::Foul, Reason::Foul { act: act.into() })
        );
        assert!(again.text.starts_with(act), "{}", again.text);
    }
}
