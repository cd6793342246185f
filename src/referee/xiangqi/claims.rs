//! Claims a player makes to the referee: the natural move limit, simple drawn material,
//! and a judgment of a repeated cycle. A true claim ends the game as the rule says; an
//! untrue one is rejected and, under the tournament regulations, is a foul.

use crate::event::{ClaimKind, Procedure, Side};
use crate::games::xiangqi::Color;
use crate::referee::Article;

use super::judgment::Judgment;
use super::move_limit::count_words;
use super::standing::Order;
use super::verdict::Verdict;
use super::{XiangqiTable, material, name};
use crate::referee::{Ruling, RulingKind};

/// What a cycle judgment comes to, as the claim kinds name it.
fn claim_kind_of(verdict: Verdict, claimant: Color) -> Option<ClaimKind> {
    match verdict {
        Verdict::Draw { .. } => Some(ClaimKind::Repetition),
        // A side can only claim the opponent's perpetual check or chase.
        Verdict::Loss { loser, .. } if loser == claimant => None,
        Verdict::Loss { check: true, .. } => Some(ClaimKind::PerpetualCheck),
        Verdict::Loss { check: false, .. } => Some(ClaimKind::PerpetualChase),
    }
}

impl XiangqiTable {
    /// Checks `side`'s claim at event `seq`.
    pub(super) fn on_claim(&mut self, seq: u64, side: Side, claim: ClaimKind) -> Vec<Ruling> {
        let ruling = match claim {
            ClaimKind::MoveLimit => self.claim_move_limit(seq, side),
            ClaimKind::InsufficientMaterial => self.claim_material(seq, side),
            ClaimKind::Repetition | ClaimKind::PerpetualCheck | ClaimKind::PerpetualChase => {
                self.claim_cycle(seq, side, claim)
            }
            _ => return Vec::new(),
        };
        vec![ruling]
    }

    fn claim_move_limit(&self, seq: u64, side: Side) -> Ruling {
        if self.limit.reached(&self.position) {
            return self.move_limit(seq, Some(side));
        }
        let (since, _) = self.since_last_capture();
        let why = format!(
            "since {since} only {} have been played without a capture, fewer than the {} \
             moves by each side of the natural move limit (xiangqi 4.2)",
            count_words(self.position.halfmove_clock()),
            self.limit.moves
        );
        rejected(seq, side, "move_limit", &why, Article::Xiangqi("4.2"))
    }

    fn claim_material(&self, seq: u64, side: Side) -> Ruling {
        if material::neither_can_win(&self.position) {
            return self.insufficient_material(seq, Some(side));
        }
        let why = format!(
            "a chariot, horse, cannon or soldier is still on the board ({}), so a win is \
             still possible (xiangqi 4.2)",
            material::pieces_left(&self.position)
        );
        rejected(
            seq,
            side,
            "insufficient_material",
            &why,
            Article::Xiangqi("4.2"),
        )
    }

    fn claim_cycle(&mut self, seq: u64, side: Side, claim: ClaimKind) -> Ruling {
        let Some(claimant) = color_of(side) else {
            return rejected(
                seq,
                side,
                claim.as_str(),
                "only a player may claim",
                Article::Xiangqi("25.1"),
            );
        };
        // A claim asks for the judgment now: under the CXA's automatic procedure once the
        // position has come back (the referee would rule unasked at the set count anyway);
        // under the arbiter procedure and the reform only once the cycle has repeated the
        // set number of times (循环反复已达三次; 待判局面, seed 001).
        let arbiter = self.automatic_cycles && self.procedure == Procedure::Arbiter;
        if arbiter && claim == ClaimKind::Repetition {
            return self.claim_drawn_cycle(seq, side);
        }
        let needed = if self.automatic_cycles && !arbiter {
            2
        } else {
            self.repetition_count
        };
        let Some(judgment) = self.judgment(needed) else {
            let why = format!(
                "the current position has not occurred {needed} times since the last capture, \
                 so there is no cycle to judge (xiangqi 25.1)"
            );
            return rejected(seq, side, claim.as_str(), &why, Article::Xiangqi("25.1"));
        };
        if !self.automatic_cycles {
            return self.ask_arbiters(seq, side, claim, &judgment);
        }
        if claim_kind_of(judgment.verdict, claimant) == Some(claim) {
            if arbiter {
                return self.claimed_order(seq, side, &judgment);
            }
            return self.cycle_ruling(seq, &judgment, Some(side));
        }
        let verdict = self.cycle_ruling(seq, &judgment, None);
        let claimed = match claim {
            ClaimKind::Repetition => "a drawn repetition".to_string(),
            other => format!("{} by the opponent", other.as_str()),
        };
        let why = format!(
            "judging the cycle now does not give {claimed}. The judgment would read: {}",
            verdict.text
        );
        let mut evidence = verdict.evidence;
        evidence.push(seq);
        rejected(seq, side, claim.as_str(), &why, verdict.article).with_evidence(evidence)
    }
}

impl XiangqiTable {
    /// A claim of the opponent's forbidden cycle under the arbiter procedure: it brings the
    /// order to vary (if the referee has not given it already), not yet a loss.
    fn claimed_order(&mut self, seq: u64, side: Side, judgment: &Judgment) -> Ruling {
        if let Verdict::Loss { loser, check } = judgment.verdict {
            let position = self.position.repetition_key();
            let stands = self
                .standing
                .order
                .as_ref()
                .is_some_and(|o| o.side == loser && o.position == position);
            if !stands {
                self.standing.order = Some(Order {
                    seq,
                    side: loser,
                    check,
                    position,
                });
            }
        }
        self.order_to_vary(seq, judgment, Some(side))
    }

    /// A claim of a drawn repetition under the arbiter procedure: true while the position on
    /// the board is one of a cycle judged a draw (26.2, 26.3; xiangqi 4.2).
    fn claim_drawn_cycle(&self, seq: u64, side: Side) -> Ruling {
        let key = self.position.repetition_key();
        match &self.standing.drawn {
            Some(drawn) if drawn.positions.contains(&key) => {
                let text = format!(
                    "{} claimed the drawn repetition at event {seq}: the cycle reported at event \
                     {} as a draw ({}) stands, the position on the board is one of its \
                     positions; draw (xiangqi 4.2, {})",
                    name(side),
                    drawn.seq,
                    drawn.article,
                    drawn.article
                );
                Ruling::draw(seq, RulingKind::Repetition, drawn.article, text)
                    .with_evidence(vec![drawn.seq, seq])
            }
            Some(drawn) => {
                let why = format!(
                    "the position on the board is no longer one of the drawn cycle reported at \
                     event {}, so no drawn cycle stands (xiangqi 4.2)",
                    drawn.seq
                );
                rejected(seq, side, "repetition", &why, Article::Xiangqi("4.2"))
                    .with_evidence(vec![drawn.seq, seq])
            }
            None => {
                let why = format!(
                    "no cycle judged a draw has occurred {} times since the last capture \
                     (xiangqi 4.2, 26.2, 26.3)",
                    self.repetition_count
                );
                rejected(seq, side, "repetition", &why, Article::Xiangqi("4.2"))
            }
        }
    }
}

impl XiangqiTable {
    /// The reform's claim card (请裁, seed 001): once the cycle has repeated the set number of
    /// times (待判局面) either player may ask for a judgment, which three arbiters give by
    /// majority, finding who caused the cycle; the referee does not decide it. The ruling asks
    /// for that decision and gives the arbiters the cycle move by move with the classification
    /// of the CXA 棋例, for reference.
    fn ask_arbiters(&self, seq: u64, side: Side, claim: ClaimKind, judgment: &Judgment) -> Ruling {
        let reference = self.cycle_ruling(seq, judgment, None);
        let text = format!(
            "{} raised the claim card (请裁) at event {seq}, asking for {}: the position has occurred {} times (待判局面). Under the reform rule set the arbiters, not the referee, decide who caused the cycle (three arbiters, by majority), and the players may still agree a draw; the arbiters' decision is awaited (an arbiter event). For their reference, the cycle under the CXA 棋例 ({}): {}",
            name(side),
            claim.as_str(),
            judgment.occurrence,
            reference.rule(),
            reference.text
        );
        let mut evidence = reference.evidence;
        evidence.push(seq);
        Ruling::notice(
            seq,
            claim_ruling_kind(claim),
            Some(side),
            REFORM_CLAIM,
            text,
        )
        .with_evidence(evidence)
    }
}

/// The article cited for the reform's claim card.
pub(super) const REFORM_CLAIM: Article = Article::Xiangqi("reform (seed 001) 请裁");

fn claim_ruling_kind(claim: ClaimKind) -> RulingKind {
    match claim {
        ClaimKind::PerpetualCheck => RulingKind::PerpetualCheck,
        ClaimKind::PerpetualChase => RulingKind::PerpetualChase,
        _ => RulingKind::Repetition,
    }
}

fn color_of(side: Side) -> Option<Color> {
    match side {
        Side::First => Some(Color::Red),
        Side::Second => Some(Color::Black),
        Side::Arbiter | Side::Board => None,
    }
}

/// An untrue claim: rejected, and a foul under the tournament regulations (an untrue
/// claim is one of the fouls they list). The game goes on.
fn rejected(seq: u64, side: Side, claim: &str, why: &str, rule: Article) -> Ruling {
    let act = format!("{} claimed {claim} at event {seq}, but {why}", name(side));
    let text = format!(
        "{act}. The claim is rejected and, as an untrue claim, counts as a foul (tournament \
         regulations)"
    );
    Ruling::notice(seq, RulingKind::ClaimRejected, Some(side), rule, text).foul(act)
}
