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

use crate::event::Side;
use crate::games::Variant;

use super::{Effect, Ruling, RulingKind};

/// The offer standing, and what each player has done that bears on the next offer.
#[derive(Clone, Debug, Default)]
pub struct DrawOffers {
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
    pub fn offer(
        &mut self,
        variant: Variant,
        seq: u64,
        side: Side,
        to_move: Side,
    ) -> Option<Ruling> {
        if let Some(reason) = self.forbidden(variant, side, to_move) {
            return Some(self.reject(variant, seq, side, &reason));
        }
        self.pending = Some((side, seq));
        self.must_wait[index(side.opponent())] = false;
        None
    }

    fn forbidden(&self, variant: Variant, side: Side, to_move: Side) -> Option<String> {
        let name = side.name(variant);
        if self.pending.is_some_and(|(offerer, _)| offerer == side) {
            return Some(format!("{name}'s earlier offer still stands"));
        }
        if self.must_wait[index(side)] && variant != Variant::ChessGjq {
            return Some(format!(
                "{name}'s last offer was refused and the opponent has not offered since"
            ));
        }
        match variant {
            Variant::ChessGjq if side != to_move => Some(format!(
                "a draw is offered on one's own turn, and it is {}'s",
                to_move.name(variant)
            )),
            Variant::Xiangqi | Variant::Draughts
                if self.last_mover != Some(side) || self.pressed_since_move =>
            {
                Some(
                    "a draw is offered after making one's own move and before pressing the clock"
                        .into(),
                )
            }
            Variant::Draughts if self.moves.iter().any(|m| *m < 40) => Some(format!(
                "a draw may be offered only once each player has made 40 moves (white {}, black {})",
                self.moves[0], self.moves[1]
            )),
            _ => None,
        }
    }

    /// An offer the rules do not allow; in xiangqi a repeated offer is also a foul.
    fn reject(&self, variant: Variant, seq: u64, side: Side, reason: &str) -> Ruling {
        let name = side.name(variant);
        let repeated = variant == Variant::Xiangqi && self.must_wait[index(side)];
        let foul = if repeated {
            "; offering again before the opponent has offered is a foul"
        } else {
            ""
        };
        let text = format!(
            "{name} offered a draw at event {seq}, which the rules do not allow: {reason}{foul}"
        );
        let mut ruling = Ruling::notice(
            seq,
            RulingKind::OfferRejected,
            Some(side),
            &agreement_rule(variant),
            text,
        );
        if repeated {
            ruling.effect = Effect::Foul;
        }
        ruling
    }

    /// The opponent answers the standing offer.
    pub fn reply(
        &mut self,
        variant: Variant,
        seq: u64,
        side: Side,
        accept: bool,
    ) -> Option<Ruling> {
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
                &agreement_rule(variant),
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
            Ruling::draw(seq, RulingKind::Agreement, &agreement_rule(variant), text)
                .with_evidence(vec![offered_at, seq]),
        )
    }
}

fn agreement_rule(variant: Variant) -> String {
    match variant {
        Variant::ChessGjq => "chess_gjq 6.6",
        Variant::Xiangqi => "xiangqi 4.2",
        Variant::Draughts => "draughts 12.4",
    }
    .to_string()
}
