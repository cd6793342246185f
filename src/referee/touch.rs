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
//! An `adjust: true` touch binds nothing, nor does a touch by the player not on move.

use crate::event::{Side, Square};
use crate::games::Variant;

use super::{Effect, Ruling, RulingKind};

/// What touch-move needs of a position: who owns each square and the legal moves.
pub struct View {
    pub owners: Vec<(Square, Side)>,
    pub legal: Vec<(Square, Square)>,
}

impl View {
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

/// The binding touches of the player on move since its last move.
#[derive(Clone, Debug, Default)]
pub struct TouchMove {
    own: Option<Touched>,
    enemy: Option<Touched>,
    /// Whether the own piece was touched before the enemy piece.
    own_first: bool,
}

impl TouchMove {
    /// Whether any touch binds the next move.
    pub fn binding(&self) -> bool {
        self.own.is_some() || self.enemy.is_some()
    }

    /// A touch by `side` of `square`; returns a foul where touching itself is one (xiangqi).
    pub fn touch(
        &mut self,
        variant: Variant,
        seq: u64,
        side: Side,
        square: Square,
        to_move: Side,
        view: &View,
    ) -> Option<Ruling> {
        if side != to_move || variant == Variant::Draughts {
            return None;
        }
        let touched = Touched { seq, square };
        let name = side.name(variant);
        match view.owner(square) {
            Some(owner) if owner == side && self.own.is_none() => {
                self.own = Some(touched);
                self.own_first = self.enemy.is_none();
                (variant == Variant::Xiangqi && !view.can_move(square))
                    .then(|| foul(variant, seq, side, format!("{name} touched its own piece on {square} at event {seq}, which has no legal move")))
            }
            Some(owner) if owner != side && self.enemy.is_none() => {
                self.enemy = Some(touched);
                (variant == Variant::Xiangqi && !view.can_capture(square))
                    .then(|| foul(variant, seq, side, format!("{name} touched the opponent's piece on {square} at event {seq}, which no piece of {name}'s can capture")))
            }
            _ => None,
        }
    }

    /// The move `from`-`to` by the player on move: a foul if it breaks what the touches required.
    pub fn moved(
        &mut self,
        variant: Variant,
        seq: u64,
        side: Side,
        from: Square,
        to: Square,
        view: &View,
    ) -> Option<Ruling> {
        let (own, enemy, own_first) = (self.own, self.enemy, self.own_first);
        *self = TouchMove::default();
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
        let name = side.name(variant);
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
        let text = format!(
            "{name} touched {} and then played {from}-{to} at event {seq}: {required}; a breach of touch-move is a foul",
            touches.join(" and ")
        );
        Some(foul(variant, seq, side, text).with_evidence(evidence))
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

fn foul(variant: Variant, seq: u64, side: Side, text: String) -> Ruling {
    let rule = match variant {
        Variant::ChessGjq => "chess_gjq 8.2",
        _ => "xiangqi 5",
    };
    let mut r = Ruling::notice(seq, RulingKind::Foul, Some(side), rule, text);
    r.effect = Effect::Foul;
    r
}
