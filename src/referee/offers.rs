//! Draw offers and their answers: an accepted offer is a draw by agreement.

use crate::event::Side;
use crate::games::Variant;

use super::{Ruling, RulingKind};

/// The draw offer standing, if any.
#[derive(Clone, Debug, Default)]
pub struct DrawOffers {
    pending: Option<(Side, u64)>,
}

impl DrawOffers {
    /// A player offers a draw; the offer stands until answered or declined by a move.
    pub fn offer(&mut self, seq: u64, side: Side) -> Option<Ruling> {
        self.pending = Some((side, seq));
        None
    }

    /// The opponent's move declines a standing offer.
    pub fn moved(&mut self, side: Side) {
        if self.pending.is_some_and(|(offerer, _)| offerer != side) {
            self.pending = None;
        }
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
