//! Touch-move: what touching pieces obliges a player to play.
//!
//! - xiangqi 5 (摸子): a touched own piece must be moved unless it cannot move; a touched enemy
//!   piece must be captured unless no own piece can; own then enemy: the own piece must capture
//!   it, else the own piece must move, else another piece must capture it, else free; enemy then
//!   own: the own piece must capture it, else another piece must, else the own piece must move,
//!   else free. Touching an own piece that cannot move, or an enemy piece nothing can capture,
//!   is itself a foul (tournament regulations).
//! - chess_gjq 8.2: a touched own piece must be moved if it can; a touched enemy piece captured
//!   if any own piece can; each breach is one foul.
//!
//! An `adjust: true` touch binds nothing, nor does a touch by the player not on move. Which
//! of these a game follows is its table's [`TouchRule`].

use crate::event::{GameSquare, Side, Square};
use crate::games::{Game, Variant};

use super::article::Article;
use super::move_text::move_text;
use super::{Ruling, RulingKind};

/// A game's touch-move rule as this module judges it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TouchRule {
    /// The article a breach breaks (xiangqi 5, chess_gjq 8.2).
    pub article: Article,
    /// Whether touching an own piece that cannot move, or an enemy piece nothing can
    /// capture, is itself a foul (xiangqi's tournament regulations).
    pub touching_can_foul: bool,
}

/// What touch-move needs of a position: who owns each square and the legal moves.
pub struct View {
    pub owners: Vec<(Square, Side)>,
    pub legal: Vec<(Square, Square)>,
}

impl View {
    /// The view of any game's position, written once over the games' trait.
    pub fn of<P: Game>(position: &P) -> View
    where
        P::Square: GameSquare,
    {
        let square = |sq: P::Square| -> Square { sq.into() };
        let owners = position
            .occupants()
            .into_iter()
            .map(|(sq, player)| (square(sq), Side::from(player)))
            .collect();
        let legal = position
            .legal_moves()
            .iter()
            .filter_map(P::move_squares)
            .map(|(from, to)| (square(from), square(to)))
            .collect();
        View { owners, legal }
    }

    fn owner(&self, sq: Square) -> Option<Side> {
        self.owners
            .iter()
            .find(|(s, _)| *s == sq)
            .map(|(_, side)| *side)
    }

    fn can_move(&self, from: Square) -> bool {
        self.legal.iter().any(|(f, _)| *f == from)
    }

    fn can_capture(&self, target: Square) -> bool {
        self.legal.iter().any(|(_, t)| *t == target)
    }

    fn legal(&self, from: Square, to: Square) -> bool {
        self.legal.contains(&(from, to))
    }
}

/// A binding touch: its seq and square.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Touched {
    seq: u64,
    square: Square,
}

/// What the touches require of the next move.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Duty {
    Free,
    MoveOwn(Square),
    CaptureWith(Square, Square),
    CaptureAny(Square),
}

/// The binding touches of the player on move since its last move, under a game's rule.
#[derive(Clone, Debug)]
pub struct TouchMove {
    rule: TouchRule,
    /// For the players' names.
    variant: Variant,
    own: Option<Touched>,
    enemy: Option<Touched>,
    /// Whether the own piece was touched before the enemy piece.
    own_first: bool,
}

impl TouchMove {
    pub fn new(rule: TouchRule, variant: Variant) -> TouchMove {
        TouchMove {
            rule,
            variant,
            own: None,
            enemy: None,
            own_first: false,
        }
    }

    /// Whether any touch binds the next move.
    pub fn binding(&self) -> bool {
        self.own.is_some() || self.enemy.is_some()
    }

    /// A touch by `side` of `square`; returns a foul where touching itself is one (xiangqi).
    pub fn touch(
        &mut self,
        seq: u64,
        side: Side,
        square: Square,
        to_move: Side,
        view: &View,
    ) -> Option<Ruling> {
        if side != to_move {
            return None;
        }
        let touched = Touched { seq, square };
        let (rule, name) = (self.rule, side.name(self.variant));
        let fouls = rule.touching_can_foul;
        match view.owner(square) {
            Some(owner) if owner == side && self.own.is_none() => {
                self.own = Some(touched);
                self.own_first = self.enemy.is_none();
                (fouls && !view.can_move(square))
                    .then(|| foul(rule, seq, side, format!("{name} touched its own piece on {square} at event {seq}, which has no legal move"), String::new()))
            }
            Some(owner) if owner != side && self.enemy.is_none() => {
                self.enemy = Some(touched);
                (fouls && !view.can_capture(square))
                    .then(|| foul(rule, seq, side, format!("{name} touched the opponent's piece on {square} at event {seq}, which no piece of {name}'s can capture"), String::new()))
            }
            _ => None,
        }
    }

    /// The move `from`-`to` by the player on move: a foul if it breaks what the touches required.
    pub fn moved(
        &mut self,
        seq: u64,
        side: Side,
        from: Square,
        to: Square,
        view: &View,
    ) -> Option<Ruling> {
        let (own, enemy) = (self.own.take(), self.enemy.take());
        let own_first = std::mem::take(&mut self.own_first);
        let duty = duty(
            own.map(|t| t.square),
            enemy.map(|t| t.square),
            own_first,
            view,
        );
        let kept = match duty {
            Duty::Free => true,
            Duty::MoveOwn(o) => from == o,
            Duty::CaptureWith(o, e) => from == o && to == e,
            Duty::CaptureAny(e) => to == e,
        };
        if kept {
            return None;
        }
        let name = side.name(self.variant);
        let touches: Vec<String> = [
            own.map(|t| ("its own piece", t)),
            enemy.map(|t| ("the opponent's piece", t)),
        ]
        .into_iter()
        .flatten()
        .map(|(what, t)| format!("{what} on {} at event {}", t.square, t.seq))
        .collect();
        let required = match duty {
            Duty::MoveOwn(o) => format!("the touched piece on {o} can move, so it had to be moved"),
            Duty::CaptureWith(o, e) => {
                format!("the touched piece on {o} can capture on {e}, so it had to")
            }
            Duty::CaptureAny(e) => format!(
                "a piece of {name}'s can capture on {e}, so the touched piece there had to be captured"
            ),
            Duty::Free => String::new(),
        };
        let mut evidence: Vec<u64> = own.iter().chain(enemy.iter()).map(|t| t.seq).collect();
        evidence.sort_unstable();
        evidence.push(seq);
        let act = format!(
            "{name} touched {} and then played {} at event {seq}",
            touches.join(" and "),
            move_text(from, to, false)
        );
        let details = format!(": {required}; a breach of touch-move is a foul");
        Some(foul(self.rule, seq, side, act, details).with_evidence(evidence))
    }
}

/// The order rules of xiangqi 5 (chess_gjq 8.2 reads the same for one touch of each kind).
fn duty(own: Option<Square>, enemy: Option<Square>, own_first: bool, view: &View) -> Duty {
    match (own, enemy) {
        (None, None) => Duty::Free,
        (Some(o), None) => {
            if view.can_move(o) {
                Duty::MoveOwn(o)
            } else {
                Duty::Free
            }
        }
        (None, Some(e)) => {
            if view.can_capture(e) {
                Duty::CaptureAny(e)
            } else {
                Duty::Free
            }
        }
        (Some(o), Some(e)) if view.legal(o, e) => Duty::CaptureWith(o, e),
        (Some(o), Some(e)) if own_first => {
            if view.can_move(o) {
                Duty::MoveOwn(o)
            } else if view.can_capture(e) {
                Duty::CaptureAny(e)
            } else {
                Duty::Free
            }
        }
        (Some(o), Some(e)) => {
            if view.can_capture(e) {
                Duty::CaptureAny(e)
            } else if view.can_move(o) {
                Duty::MoveOwn(o)
            } else {
                Duty::Free
            }
        }
    }
}

/// A breach of touch-move: `act` opens the text, `details` follow it.
fn foul(rule: TouchRule, seq: u64, side: Side, act: String, details: String) -> Ruling {
    let text = format!("{act}{details}");
    Ruling::notice(seq, RulingKind::Foul, Some(side), rule.article, text).foul(act)
}
