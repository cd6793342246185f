//! Touch-move in draughts (5.11): a player who touches an own piece that can move must move
//! it. Moving another piece instead is an irregularity of 7.4 ("touching one piece and moving
//! another"), left to the opponent's decision like the others: the opponent may demand
//! correction (the move is void and the touched piece must be played) or play on (7.7).

use crate::event::{ClaimKind, Side};
use crate::games::draughts::{Resolution, Square};
use crate::referee::Article;
use crate::referee::table::{Kind, Played};

use super::{DraughtsTable, Ruling, color_of, name};

/// A binding touch (5.11): who touched which movable piece, at which event.
#[derive(Clone, Copy, Debug)]
pub struct Touch {
    side: Side,
    square: Square,
    at: u64,
}

impl DraughtsTable {
    /// An event, judged against the touch that binds it (5.11, 7.4).
    pub fn apply(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        match played.kind {
            Kind::Touch {
                square,
                adjust: false,
            } => {
                self.touched(seq, played.side, square);
                self.judge(seq, played)
            }
            Kind::Move { .. } => self.move_after_touch(seq, played),
            _ if played.claim() == Some(ClaimKind::IllegalMove) => {
                self.correction_after_touch(seq, played)
            }
            _ => self.judge(seq, played),
        }
    }

    /// A touch of an own movable piece by the side to move binds its move (the first such
    /// touch; an `adjust` touch binds nothing).
    fn touched(&mut self, seq: u64, side: Side, square: Square) {
        if self.touch.is_some() {
            return;
        }
        if let Some(square) = self.touch_binds(side, square) {
            self.touch = Some(Touch {
                side,
                square,
                at: seq,
            });
        }
    }

    /// A move, bound by its player's touch if there is one.
    fn move_after_touch(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        let touch = self.touch.take();
        self.touch_used = touch.filter(|t| t.side == played.side);
        match self.touch_used {
            Some(touch) => self.apply_after_touch(seq, played, touch.square, touch.at),
            None => self.judge(seq, played),
        }
    }

    /// A demand for correction voids the move: the touch binds its replacement.
    fn correction_after_touch(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        let rearm = self
            .touch_used
            .filter(|u| u.side == played.side.opponent() && self.correction_pending(u.side));
        let out = self.judge(seq, played);
        if rearm.is_some() && !self.correction_pending(played.side.opponent()) {
            self.touch = rearm;
        }
        out
    }

    /// Whether touching `square` binds `side` (5.11): it is the side to move, the square holds
    /// one of its pieces, and that piece has a legal move.
    fn touch_binds(&self, side: Side, square: Square) -> Option<Square> {
        let color = color_of(side)?;
        let pos = &self.game.position;
        if pos.side_to_move() != color || pos.piece_at(square).is_none_or(|p| p.color != color) {
            return None;
        }
        pos.legal_moves()
            .iter()
            .any(|mv| mv.from() == square)
            .then_some(square)
    }

    /// Whether an irregular move of `side` awaits the opponent's decision.
    fn correction_pending(&self, side: Side) -> bool {
        self.pending.as_ref().is_some_and(|p| p.side == side)
    }

    /// A move after `side` touched its movable piece on `touched` at event `touched_at`: a
    /// legal move of another piece is the irregularity of 5.11/7.4; anything else is judged
    /// as any move is.
    fn apply_after_touch(
        &mut self,
        seq: u64,
        played: &Played<Square>,
        touched: Square,
        touched_at: u64,
    ) -> Vec<Ruling> {
        let Kind::Move {
            from, to, captures, ..
        } = &played.kind
        else {
            return self.judge(seq, played);
        };
        let side = played.side;
        let pos = &self.game.position;
        let in_turn = color_of(side) == Some(pos.side_to_move());
        match pos.resolve(*from, *to, captures.as_deref()) {
            Resolution::Legal(mv) if in_turn && mv.from() != touched => {
                let options: Vec<String> = pos
                    .legal_moves()
                    .iter()
                    .filter(|m| m.from() == touched)
                    .map(|m| m.pdn_full())
                    .collect();
                let why = format!(
                    "{} touched its piece on {touched} at event {touched_at}, which could move \
                     ({}), and then moved another piece; a touched movable piece must be played",
                    name(side),
                    options.join(", ")
                );
                if self.pending.as_ref().is_some_and(|p| p.side != side) {
                    // Playing on accepts the opponent's irregular move (7.7).
                    self.pending = None;
                }
                let mut ruling = self.irregular(seq, side, mv, &why, Article::Draughts("5.11"));
                ruling.evidence = vec![touched_at, seq];
                vec![ruling]
            }
            _ => self.judge(seq, played),
        }
    }
}

impl DraughtsTable {
    /// A move event in PDN (`32-28`, `28x19`, the full path when routes would be ambiguous)
    /// in the current position; for a move against the rules, as it stands if accepted (7.7).
    /// `None` for other events and moves the board cannot make at all.
    pub fn describe(&self, played: &Played<Square>) -> Option<String> {
        let Kind::Move {
            from, to, captures, ..
        } = &played.kind
        else {
            return None;
        };
        let color = color_of(played.side)?;
        let pos = self.game.position.with_side_to_move(color);
        match pos.resolve(*from, *to, captures.as_deref()) {
            Resolution::Legal(mv) => Some(pos.pdn_text(&mv)),
            Resolution::Irregular { played, .. } => {
                Some(format!("{} (irregular)", played.pdn_full()))
            }
            _ => None,
        }
    }
}
