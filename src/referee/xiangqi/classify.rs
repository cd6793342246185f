//! Naming a move inside a repeated cycle (xiangqi 25.2, 27, 28): check 将, mate threat 杀,
//! chase 捉 (with the chased piece and why it counts), or idle 闲. A move with several
//! effects takes its heaviest name (27.4).

use std::fmt;

use crate::games::xiangqi::{Color, Move, PieceKind, Position, Square};

/// What one move in a cycle does, heaviest effect first (xiangqi 27.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Class {
    /// 将: the move attacks the enemy general (28.1).
    Check,
    /// 杀: the move threatens a mate by a check or a series of checks next (28.2).
    MateThreat { mate: Move },
    /// 捉: the move makes a new capture possible that wins material (28.3).
    Chase(Chase),
    /// 闲: none of the above, including exchange offers and attacks that do not count;
    /// the note says why a new attack the move makes does not count, if it makes one.
    Idle(Option<String>),
}

impl Class {
    /// Whether the class is a forbidden move when repeated (25.2).
    pub fn forbidden(&self) -> bool {
        !matches!(self, Class::Idle(_))
    }
}

/// A chase: who attacks whom, and why the target counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Chase {
    pub attacker: Square,
    pub attacker_kind: PieceKind,
    pub target: Square,
    pub target_kind: PieceKind,
    pub why: Why,
}

/// Why a chased piece counts (xiangqi 28.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Why {
    /// No enemy piece can legally take back on its point (无根).
    Unprotected,
    /// It is a chariot attacked by a horse or cannon, protected or not.
    HigherValue,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Class::Check => f.write_str("check (将, 28.1)"),
            Class::MateThreat { mate } => write!(
                f,
                "mate threat (杀, 28.2): {mate} would start a mate by checks next"
            ),
            Class::Chase(c) => write!(f, "chase (捉, 28.3) of {c}"),
            Class::Idle(None) => f.write_str("idle (闲)"),
            Class::Idle(Some(note)) => write!(f, "idle (闲): {note}"),
        }
    }
}

impl fmt::Display for Chase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.why {
            Why::Unprotected => "which no piece can legally take back on its point (unprotected)",
            Why::HigherValue => "a chariot, which counts even when protected",
        };
        write!(
            f,
            "the {} on {} by the {} on {}, {why}",
            self.target_kind.name(),
            self.target,
            self.attacker_kind.name(),
            self.attacker
        )
    }
}

/// Names the move `mv` that led from `before` to `after`.
pub fn classify(before: &Position, mv: Move, after: &Position) -> Class {
    if after.in_check() {
        return Class::Check;
    }
    let threat = after.passed();
    if let Some(mate) = mate_in_one(&threat) {
        return Class::MateThreat { mate };
    }
    let fresh = new_captures(before, mv, &threat);
    let mut notes = Vec::new();
    for m in &fresh {
        match counted(&threat, *m).and_then(|chase| not_an_offer(after, *m, chase)) {
            Ok(chase) => return Class::Chase(chase),
            Err(note) => notes.push(note),
        }
    }
    Class::Idle((!notes.is_empty()).then(|| notes.join("; ")))
}

/// How many checks in a row a mate threat may take (28.2 "a check or a series of checks").
/// Two keeps the search small: it runs only when a cycle is judged.
const MATE_CHECKS: u32 = 2;

/// The first check of a mate the side to move can force by checks alone.
fn mate_in_one(pos: &Position) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|&m| mates_by_checks(pos, m, MATE_CHECKS))
}

/// Whether the check `m` mates, or leaves every reply to a further mate by checks.
fn mates_by_checks(pos: &Position, m: Move, checks: u32) -> bool {
    let mut next = pos.clone();
    next.play(m);
    if !next.in_check() {
        return false;
    }
    let replies = next.legal_moves();
    if replies.is_empty() {
        return true;
    }
    checks > 1
        && replies.iter().all(|&r| {
            let mut after = next.clone();
            after.play(r);
            after
                .legal_moves()
                .into_iter()
                .any(|m2| mates_by_checks(&after, m2, checks - 1))
        })
}

/// The captures the mover could make in `threat` (its turn again) that it could not make
/// before the move with the same piece on the same target.
fn new_captures(before: &Position, mv: Move, threat: &Position) -> Vec<Move> {
    let old = before
        .passed_if_needed(threat.side_to_move())
        .legal_captures();
    threat
        .legal_captures()
        .into_iter()
        .filter(|c| {
            let was = if c.from == mv.to { mv.from } else { c.from };
            !old.iter().any(|o| o.from == was && o.to == c.to)
        })
        .collect()
}

/// The capture `m` as a chase, if it counts: not by the general (27.1) or a soldier (27.2),
/// of a piece that counts (25.3), which is unprotected or a chariot taken by a horse or
/// cannon (28.3). Otherwise why it does not count.
fn counted(pos: &Position, m: Move) -> Result<Chase, String> {
    let (Some(attacker), Some(target)) = (pos.piece_at(m.from), pos.piece_at(m.to)) else {
        return Err(format!("{m} is no capture"));
    };
    let what = format!(
        "the {} on {} attacks the {} on {}",
        attacker.kind.name(),
        m.from,
        target.kind.name(),
        m.to
    );
    if attacker.kind == PieceKind::General {
        return Err(format!(
            "{what}, but an attack by the general alone counts as idle (27.1)"
        ));
    }
    if attacker.kind == PieceKind::Soldier {
        return Err(format!(
            "{what}, but an attack by a soldier counts as idle (27.2)"
        ));
    }
    if !piece_counts(target.color, target.kind, m.to) {
        return Err(format!("{what}, which does not count as a piece (25.3)"));
    }
    let higher = target.kind == PieceKind::Chariot
        && matches!(attacker.kind, PieceKind::Horse | PieceKind::Cannon);
    let why = if higher {
        Why::HigherValue
    } else if !pos.recapture_possible(m) {
        Why::Unprotected
    } else {
        return Err(format!(
            "{what}, which is protected: taking it would be an exchange, not a win (28.3)"
        ));
    };
    Ok(Chase {
        attacker: m.from,
        attacker_kind: attacker.kind,
        target: m.to,
        target_kind: target.kind,
        why,
    })
}

/// The value of a piece for exchanges (xiangqi 25.3): a chariot is worth two horses, two
/// cannons or a horse and a cannon; a horse equals a cannon; an advisor equals an elephant;
/// a soldier is counted with the advisors and elephants.
fn value(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::General => u32::MAX,
        PieceKind::Chariot => 4,
        PieceKind::Horse | PieceKind::Cannon => 2,
        PieceKind::Advisor | PieceKind::Elephant | PieceKind::Soldier => 1,
    }
}

/// A chase of a piece that, with its side to move, can take the attacker first is no chase:
/// an attacker of equal or greater value offers an exchange (兑) or a sacrifice (献), and an
/// attacker of lesser value that nothing protects is simply given away (献). Both are idle
/// moves (xiangqi 25.2). `after` is the position after the move, the chased side to move.
fn not_an_offer(after: &Position, m: Move, chase: Chase) -> Result<Chase, String> {
    let Ok(take_first) = after.check_move(m.to, m.from) else {
        return Ok(chase);
    };
    let (a, t) = (chase.attacker_kind, chase.target_kind);
    let what = format!(
        "the {} on {} attacks the {} on {}, which can take it first ({})",
        a.name(),
        m.from,
        t.name(),
        m.to,
        take_first
    );
    if value(a) == value(t) {
        return Err(format!("{what}: an offer to exchange (兑), idle (25.2)"));
    }
    if value(a) > value(t) {
        return Err(format!("{what}: a sacrifice (献), idle (25.2)"));
    }
    if !after.recapture_possible(take_first) {
        return Err(format!(
            "{what}, and nothing takes back: a sacrifice (献), idle (25.2)"
        ));
    }
    Ok(chase)
}

/// Xiangqi 25.3: every piece but the general counts; a soldier only once across the river.
fn piece_counts(color: Color, kind: PieceKind, sq: Square) -> bool {
    match kind {
        PieceKind::General => false,
        PieceKind::Soldier => Position::across_river(color, sq),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(fen: &str, iccs: &str) -> Class {
        let before = Position::from_fen(fen).unwrap();
        let mv = Move::parse(iccs).unwrap();
        let mut after = before.clone();
        after.play(mv);
        classify(&before, mv, &after)
    }

    #[test]
    fn chariot_on_an_unprotected_horse_chases() {
        let class = named("5k3/9/1n7/8R/9/9/9/9/9/3K5 w - - 0 1", "i6i7");
        let Class::Chase(chase) = class else {
            panic!("{class:?}")
        };
        assert_eq!(
            (chase.target.to_string(), chase.why),
            ("b7".into(), Why::Unprotected)
        );
    }

    #[test]
    fn blocked_horse_attacks_nothing() {
        // The horse on c4 would reach a5, but its leg b4 is occupied.
        let fen = "3k5/9/9/9/r8/1p7/3r5/1N7/4A4/4K4 w - - 0 1";
        assert_eq!(named(fen, "b2c4"), Class::Idle(None));
    }

    #[test]
    fn check_outweighs_everything() {
        assert_eq!(
            named("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1", "a1a9"),
            Class::Check
        );
    }
}
