//! Naming a move inside a repeated cycle (xiangqi 25.2, 27, 28): check 将, mate threat 杀,
//! chase 捉 (with the chased piece and why it counts), or idle 闲. A move with several
//! effects takes its heaviest name (27.4).

use std::fmt;

use crate::games::xiangqi::{Color, Move, Piece, PieceKind, Position, Square};

/// What one move in a cycle does, heaviest effect first (xiangqi 27.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Class {
    /// 将: the move attacks the enemy general (28.1).
    Check,
    /// 杀: the move threatens a mate by a check or a series of checks next (28.2).
    MateThreat { mate: Move },
    /// 捉: the move makes a new capture possible that wins material (28.3).
    Chase(Chase),
    /// An attack by a soldier that would otherwise be a chase: idle (27.2), unless the
    /// attacks in the cycle are mutual (相互长打), when it counts as a chase.
    SoldierAttack(Chase),
    /// 闲: none of the above, including exchange offers and attacks that do not count;
    /// the note says why a new attack the move makes does not count, if it makes one.
    Idle(Option<String>),
}

impl Class {
    /// Whether the class is a forbidden move when repeated (25.2).
    pub fn forbidden(&self) -> bool {
        !matches!(self, Class::Idle(_) | Class::SoldierAttack(_))
    }

    /// Whether the class is an attack (打, 28.4) once soldiers' attacks count as chases,
    /// as they do when both sides attack every move (27.2).
    pub fn forbidden_counting_soldiers(&self) -> bool {
        self.forbidden() || matches!(self, Class::SoldierAttack(_))
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
    /// The check or exchange that must come first, when the capture is won by one (28.3).
    pub via: Option<Series>,
}

/// The first step of a chase that wins its piece only after a check or an exchange (28.3:
/// "including from the next move by a series of checks or exchanges").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Series {
    /// The check to give first; every reply leaves the piece to be won.
    Check(Move),
    /// The equal exchange to make first (a capture of a protected piece of the same value).
    Exchange(Move),
}

/// Why a chased piece counts (xiangqi 28.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Why {
    /// No enemy piece can legally take back on its point (无根).
    Unprotected,
    /// It is worth more than its attacker (a chariot attacked by a horse or cannon; for a
    /// soldier, 27.2, a chariot, horse or cannon), protected or not.
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
            Class::Chase(c)
                if matches!(c.target_kind, PieceKind::Advisor | PieceKind::Elephant) =>
            {
                write!(
                    f,
                    "chase (捉, 28.3) of {c} (27.3 would name it idle if the move occupied a key \
                     defensive point that made a simple draw at once: the arbiter's judgment)"
                )
            }
            Class::Chase(c) => write!(f, "chase (捉, 28.3) of {c}"),
            Class::SoldierAttack(c) => write!(
                f,
                "soldier's attack (兵捉, 27.2) on {c}: idle, unless both sides attack every move"
            ),
            Class::Idle(None) => f.write_str("idle (闲)"),
            Class::Idle(Some(note)) => write!(f, "idle (闲): {note}"),
        }
    }
}

impl fmt::Display for Chase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.why {
            Why::Unprotected => "which no piece can legally take back on its point (unprotected)",
            Why::HigherValue if self.target_kind == PieceKind::Chariot => {
                "a chariot, which counts even when protected"
            }
            Why::HigherValue => "worth more than a soldier, which counts even when protected",
        };
        write!(
            f,
            "the {} on {} by the {} on {}, {why}",
            self.target_kind.name(),
            self.target,
            self.attacker_kind.name(),
            self.attacker
        )?;
        match self.via {
            None => Ok(()),
            Some(Series::Check(first)) => write!(
                f,
                ", won after the check {first} whatever the reply (a series of checks, 28.3)"
            ),
            Some(Series::Exchange(first)) => write!(
                f,
                ", won after the exchange that starts with {first} (a series of exchanges, 28.3)"
            ),
        }
    }
}

/// Names the move `mv` that led from `before` to `after`. `earlier` is the mover's previous
/// turn, if known: a move that answers a check makes nothing possible that the check only
/// held in suspense (28.3 "makes it possible"), so what the mover could already win there,
/// or could take in `before` but for the check, is no new threat.
pub fn classify(
    before: &Position,
    mv: Move,
    after: &Position,
    earlier: Option<&Position>,
) -> Class {
    if after.in_check() {
        return Class::Check;
    }
    let threat = after.passed();
    if let Some(mate) = mate_in_one(&threat) {
        return Class::MateThreat { mate };
    }
    let fresh = new_captures(before, mv, &threat);
    let mut notes = Vec::new();
    let mut soldier = None;
    for m in &fresh {
        let chase = counted(&threat, *m).map_err(|why| why.to_string());
        match chase.and_then(|chase| not_an_offer(after, *m, chase)) {
            Ok(chase) if chase.attacker_kind == PieceKind::Soldier => {
                soldier.get_or_insert(chase);
            }
            Ok(chase) => return Class::Chase(chase),
            Err(note) => notes.push(note),
        }
    }
    // A piece won only after a check or an exchange; but if it can take its attacker
    // first, the attack is an offer or a sacrifice as with a plain capture (25.2).
    let offered = |c: &Chase| {
        let direct = Move::new(c.attacker, c.target);
        threat.piece_at(c.attacker).map(|p| p.kind) == Some(c.attacker_kind)
            && offer(after, direct, c).is_some()
    };
    if let Some(chase) = new_series_wins(before, earlier, &threat)
        .into_iter()
        .find(|c| !offered(c))
    {
        return Class::Chase(chase);
    }
    match soldier {
        Some(chase) => Class::SoldierAttack(chase),
        None => Class::Idle((!notes.is_empty()).then(|| notes.join("; "))),
    }
}

/// A piece the side to move in `threat` can win by a check or an equal exchange first that
/// it could not win so in `before` (the position before its move, itself to move), and
/// could not win there by a plain capture either (xiangqi 28.3). One check or one exchange
/// deep: the judgment runs only on repeated cycles, where longer series are rare.
fn new_series_wins(before: &Position, earlier: Option<&Position>, threat: &Position) -> Vec<Chase> {
    let mover = threat.side_to_move();
    let old_pos = before.passed_if_needed(mover);
    let fresh = series_wins(threat);
    if fresh.is_empty() {
        return fresh;
    }
    // In check, the mover could make only the answers; what it could win before the check
    // came is held in suspense, not made new by the answer.
    let suspended = earlier
        .filter(|_| old_pos.in_check())
        .map(|e| e.passed_if_needed(mover));
    let mut old: Vec<Square> = Vec::new();
    for pos in std::iter::once(&old_pos).chain(suspended.as_ref()) {
        old.extend(series_wins(pos).into_iter().map(|c| c.target));
        old.extend(
            pos.captures_apart_from_check()
                .into_iter()
                .filter(|&m| counted(pos, m).is_ok())
                .map(|m| m.to),
        );
    }
    fresh
        .into_iter()
        .filter(|c| !old.contains(&c.target))
        .collect()
}

/// The pieces the side to move can win by first giving a check, or first making an equal
/// exchange, whatever the opponent replies: after every reply that leaves it no better
/// than even, a capture that counts (28.3) takes the piece, for a net gain.
fn series_wins(pos: &Position) -> Vec<Chase> {
    let mut wins: Vec<Chase> = Vec::new();
    for first in pos.legal_moves() {
        let mut after = pos.clone();
        let taken = after.play(first);
        let series = if after.in_check() {
            Series::Check(first)
        } else if equal_exchange(pos, first, taken) {
            Series::Exchange(first)
        } else {
            continue;
        };
        let replies = after.legal_moves();
        if replies.is_empty() {
            continue; // a mate, named by 28.2, not a chase
        }
        let gained = taken.map_or(0, |p| value(p.kind));
        // Candidate targets by their square now; a reply may move one, which is followed.
        let mut targets: Vec<(Square, Option<Chase>)> = after
            .pieces_of(after.side_to_move())
            .into_iter()
            .filter(|&sq| {
                after
                    .piece_at(sq)
                    .is_some_and(|p| piece_counts(p.color, p.kind, sq))
            })
            .filter(|sq| !wins.iter().any(|w| w.target == *sq))
            .map(|sq| (sq, None))
            .collect();
        let mut needed = false;
        for reply in replies {
            let mut next = after.clone();
            let lost = next.play(reply).map_or(0, |p| value(p.kind));
            if gained > lost {
                continue; // already ahead, whatever else happens
            }
            needed = true;
            let captures = next.legal_captures();
            targets.retain_mut(|(sq, found)| {
                let now = if reply.from == *sq { reply.to } else { *sq };
                let win = captures.iter().filter(|w| w.to == now).find_map(|&w| {
                    let target = next.piece_at(w.to)?;
                    if gained + value(target.kind) <= lost {
                        return None;
                    }
                    counted(&next, w)
                        .ok()
                        .filter(|c| c.attacker_kind != PieceKind::Soldier)
                });
                match win {
                    Some(chase) => {
                        found.get_or_insert(chase);
                        true
                    }
                    None => false,
                }
            });
            if targets.is_empty() {
                break;
            }
        }
        if !needed {
            continue;
        }
        for (sq, found) in targets {
            if let Some(chase) = found {
                wins.push(Chase {
                    target: sq,
                    via: Some(series),
                    ..chase
                });
            }
        }
    }
    wins
}

/// Whether `first` (which took `taken`) captures a protected piece of the same value as
/// the capturer: an exchange (兑), the start of a series of exchanges (28.3).
fn equal_exchange(pos: &Position, first: Move, taken: Option<Piece>) -> bool {
    let (Some(taken), Some(capturer)) = (taken, pos.piece_at(first.from)) else {
        return false;
    };
    capturer.kind != PieceKind::General
        && value(taken.kind) == value(capturer.kind)
        && pos.recapture_possible(first)
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
    // The last check of the series needs only whether a reply exists, not the replies.
    if checks <= 1 {
        return !next.has_legal_move();
    }
    let replies = next.legal_moves();
    replies.is_empty()
        || replies.iter().all(|&r| {
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
        .captures_apart_from_check();
    threat
        .legal_captures()
        .into_iter()
        .filter(|c| {
            let was = if c.from == mv.to { mv.from } else { c.from };
            !old.iter().any(|o| o.from == was && o.to == c.to)
        })
        .collect()
}

/// The capture `m` as a chase, if it counts: not by the general (27.1), of a piece that
/// counts (25.3), which is unprotected or worth more than its attacker (28.3). Otherwise why
/// it does not count. A soldier's chase is returned too: the caller names it (27.2).
fn counted(pos: &Position, m: Move) -> Result<Chase, Uncounted> {
    let (Some(attacker), Some(target)) = (pos.piece_at(m.from), pos.piece_at(m.to)) else {
        return Err(Uncounted::NoCapture(m));
    };
    let attack = Attack {
        m,
        attacker: attacker.kind,
        target: target.kind,
    };
    if attacker.kind == PieceKind::General {
        return Err(Uncounted::ByGeneral(attack));
    }
    if !piece_counts(target.color, target.kind, m.to) {
        return Err(Uncounted::NotAPiece(attack));
    }
    let higher = match attacker.kind {
        PieceKind::Horse | PieceKind::Cannon => target.kind == PieceKind::Chariot,
        PieceKind::Soldier => value(target.kind) > value(PieceKind::Soldier),
        _ => false,
    };
    // A soldier's target is named unprotected when it is; a chariot attacked by a horse or
    // cannon by its value, as the rule book gives it.
    let unprotected = || !pos.recapture_possible(m);
    let why = if attacker.kind == PieceKind::Soldier && unprotected() {
        Why::Unprotected
    } else if higher {
        Why::HigherValue
    } else if unprotected() {
        Why::Unprotected
    } else {
        return Err(Uncounted::Protected(attack));
    };
    Ok(Chase {
        attacker: m.from,
        attacker_kind: attacker.kind,
        target: m.to,
        target_kind: target.kind,
        why,
        via: None,
    })
}

/// A capture by one piece of another.
#[derive(Clone, Copy, Debug)]
struct Attack {
    m: Move,
    attacker: PieceKind,
    target: PieceKind,
}

/// Why a capture is no chase: data, written out only when a ruling's note needs it (the
/// judgment weighs many captures whose reasons no ruling names).
#[derive(Clone, Copy, Debug)]
enum Uncounted {
    NoCapture(Move),
    /// 27.1: an attack by the general alone is idle.
    ByGeneral(Attack),
    /// 25.3: the general, and a soldier on its own side of the river, are no pieces.
    NotAPiece(Attack),
    /// 28.3: taking a protected piece of no higher value is an exchange, not a win.
    Protected(Attack),
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} on {} attacks the {} on {}",
            self.attacker.name(),
            self.m.from,
            self.target.name(),
            self.m.to
        )
    }
}

impl fmt::Display for Uncounted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Uncounted::NoCapture(m) => write!(f, "{m} is no capture"),
            Uncounted::ByGeneral(a) => write!(
                f,
                "{a}, but an attack by the general alone counts as idle (27.1)"
            ),
            Uncounted::NotAPiece(a) => {
                write!(f, "{a}, which does not count as a piece (25.3)")
            }
            Uncounted::Protected(a) => write!(
                f,
                "{a}, which is protected: taking it would be an exchange, not a win (28.3)"
            ),
        }
    }
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
    match offer(after, m, &chase) {
        None => Ok(chase),
        Some((take_first, kind)) => {
            let (a, t) = (chase.attacker_kind, chase.target_kind);
            let what = format!(
                "the {} on {} attacks the {} on {}, which can take it first ({})",
                a.name(),
                m.from,
                t.name(),
                m.to,
                take_first
            );
            Err(match kind {
                Offer::Exchange => format!("{what}: an offer to exchange (兑), idle (25.2)"),
                Offer::Sacrifice => format!("{what}: a sacrifice (献), idle (25.2)"),
                Offer::GivenAway => {
                    format!("{what}, and nothing takes back: a sacrifice (献), idle (25.2)")
                }
            })
        }
    }
}

/// How an attack that the chased piece can answer by taking the attacker is offered.
#[derive(Clone, Copy, Debug)]
enum Offer {
    /// Attacker and target of equal value (兑).
    Exchange,
    /// An attacker worth more (献).
    Sacrifice,
    /// An attacker worth less that nothing protects (献).
    GivenAway,
}

/// Whether the chase `m` is an offer (see [`not_an_offer`]): the capture of the attacker
/// that makes it one, and which offer. Words are left to the caller that needs them.
fn offer(after: &Position, m: Move, chase: &Chase) -> Option<(Move, Offer)> {
    let take_first = after.check_move(m.to, m.from).ok()?;
    let (a, t) = (value(chase.attacker_kind), value(chase.target_kind));
    let kind = if a == t {
        Offer::Exchange
    } else if a > t {
        Offer::Sacrifice
    } else if !after.recapture_possible(take_first) {
        Offer::GivenAway
    } else {
        return None;
    };
    Some((take_first, kind))
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
        classify(&before, mv, &after, None)
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
    fn a_battery_that_wins_a_horse_after_a_check_chases() {
        // The chariot steps behind its horse: next, the horse leaves with a discovered check
        // to g7 and, whatever black replies, takes the unprotected horse on i8 (28.3).
        let fen = "2b1k4/8n/3c5/4N4/9/9/9/3R5/4A4/4K4 w - - 0 1";
        let class = named(fen, "d2e2");
        let Class::Chase(chase) = class else {
            panic!("{class:?}")
        };
        assert_eq!(chase.target.to_string(), "i8");
        assert_eq!(chase.via, Some(Series::Check(Move::parse("e6g7").unwrap())));
    }

    #[test]
    fn a_check_first_wins_nothing_when_the_piece_is_protected() {
        // As above, but the chariot on i5 protects the horse on i8.
        let fen = "2b1k4/8n/3c5/4N4/8r/9/9/3R5/4A4/4K4 w - - 0 1";
        assert_eq!(named(fen, "d2e2"), Class::Idle(None));
    }

    #[test]
    fn a_soldier_attack_is_named_apart() {
        let class = named("5k3/9/9/2cP1n3/9/9/9/9/9/3K5 w - - 0 1", "d6e6");
        assert!(matches!(class, Class::SoldierAttack(_)), "{class:?}");
        assert!(!class.forbidden() && class.forbidden_counting_soldiers());
    }

    #[test]
    fn check_outweighs_everything() {
        assert_eq!(
            named("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1", "a1a9"),
            Class::Check
        );
    }

    #[test]
    fn answering_a_check_releases_no_chase() {
        // Red's chariot a9 checks; black's chariot b5 already attacked the unprotected horse
        // b2, a capture the check only held in suspense. Stepping the general aside does not
        // make it possible (28.3): idle.
        let fen = "R3k4/9/9/9/1r7/9/9/1N7/9/3K5 b - - 0 1";
        assert!(matches!(named(fen, "e9e8"), Class::Idle(_)));
    }

    #[test]
    fn an_answer_that_attacks_anew_chases() {
        // Red's chariot a8 checks the general on e8, which also blocks the leg of black's horse
        // f8. The general steps up to e9 and so lets the horse reach red's unprotected cannon
        // d7, which it could not reach before, check or no check: a chase by means of the
        // general (27.1, 28.3).
        let fen = "9/R3kn3/3C5/9/9/9/9/9/9/3K5 b - - 0 1";
        let class = named(fen, "e8e9");
        let Class::Chase(chase) = class else {
            panic!("{class:?}")
        };
        assert_eq!(chase.target.to_string(), "d7");
    }
}
