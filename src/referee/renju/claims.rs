//! White's claim that black's stone is forbidden (renju 4): judged on black's last stone and
//! the board before it; too late once white has placed its next stone.

use crate::event::{ClaimKind, ForbiddenRule, Side};
use crate::games::renju::{Board, Point, fours, threes};
use crate::referee::Article;

use super::words::{describe_shape, shape_article};
use super::{ForbiddenStone, RenjuTable, procedure_article, ruling};
use crate::referee::{Effect, Ruling, RulingKind};

impl RenjuTable {
    pub(super) fn on_claim(&mut self, seq: u64, side: Side, claim: ClaimKind) -> Vec<Ruling> {
        match claim {
            ClaimKind::Forbidden if side == Side::Second => self.forbidden_claim(seq),
            ClaimKind::Forbidden => vec![reject(
                seq,
                side,
                procedure_article(self.rule),
                "only white claims that black's stone stands on a forbidden point".to_string(),
            )],
            // The shared clock judges flag claims.
            ClaimKind::Flag => Vec::new(),
            other => vec![reject(
                seq,
                side,
                Article::Renju("5"),
                format!(
                    "{other} is not a claim of renju, which has no draw by repetition or move \
                     count (a game is drawn by agreement or a full board)"
                ),
            )],
        }
    }

    fn forbidden_claim(&mut self, seq: u64) -> Vec<Ruling> {
        if let Some(f) = self.claimable.take() {
            return vec![self.true_claim(seq, f)];
        }
        let last = self.last_black.as_ref();
        if let Some((f, by)) = &self.passed
            && last.is_some_and(|l| l.seq == f.seq)
        {
            let text = match self.rule {
                ForbiddenRule::Replay => "白方如果不向黑方提出则视作认同",
                ForbiddenRule::Claim | ForbiddenRule::Loss => {
                    "若白方未发现或发现后未指明而继续应子，则不能判黑方负"
                }
            };
            let why = format!(
                "black's stone at {} (event {}) stood on a forbidden point ({}), but white \
                 placed its stone at event {by} without claiming it; a claim must come before \
                 white plays on, and the stone stands ({text})",
                f.point,
                f.seq,
                f.foul.kind()
            );
            let mut out = reject(seq, Side::Second, procedure_article(self.rule), why);
            out.evidence = vec![f.seq, *by, seq];
            return vec![out];
        }
        let Some(last) = last else {
            let why = "black has placed no stone in this game to claim against".to_string();
            return vec![reject(seq, Side::Second, procedure_article(self.rule), why)];
        };
        let (rule, why) = allowed(&last.before(&self.board), last.point);
        let why = format!(
            "black's last stone at {} (event {}) is not on a forbidden point: {why}",
            last.point, last.seq
        );
        let mut out = reject(seq, Side::Second, rule, why);
        out.evidence = vec![last.seq, seq];
        vec![out]
    }

    /// A claim in time of a forbidden stone: black loses (claim), or the stone is void and
    /// black places again (replay).
    fn true_claim(&mut self, seq: u64, f: ForbiddenStone) -> Ruling {
        let rule = shape_article(f.foul.kind(), self.rule);
        let shape = describe_shape(&f, &self.board, &self.placed);
        let evidence = self.shape_evidence(&f, Some(seq));
        let claimed = format!(
            "white claims at event {seq} that black's stone at {} (event {}) stands on a \
             forbidden point, before placing its next stone, and it does: {shape}",
            f.point, f.seq
        );
        if self.rule == ForbiddenRule::Replay {
            self.placed[f.point.index()] = None;
            self.board = self.board.lifted(f.point);
            self.last_black = None;
            let text = format!("{claimed}; the stone is void and black places again ({rule})");
            return ruling(
                seq,
                RulingKind::Forbidden,
                Effect::CorrectionRequired,
                rule,
                text,
                evidence,
            );
        }
        let text = format!("{claimed}; black loses ({rule})");
        Ruling::loss(seq, RulingKind::Forbidden, Side::First, rule, text).with_evidence(evidence)
    }
}

/// Why black's stone on `point` (placed on `before`) is allowed, and the article that says so:
/// its fours and threes, each three live or not with its straight-four points.
fn allowed(before: &Board, point: Point) -> (Article, String) {
    let fours = fours(before, point);
    let threes = threes(before, point);
    if fours.is_empty() && threes.is_empty() {
        return (
            Article::Renju("3"),
            "it makes no four and no three".to_string(),
        );
    }
    let mut parts: Vec<String> = fours.iter().map(|l| format!("four {l}")).collect();
    parts.extend(threes.iter().map(ToString::to_string));
    let live = threes.iter().filter(|t| t.is_live()).count();
    let dead = threes.len() - live;
    let verdict = format!(
        "{} and {}: a stone is forbidden only with two or more fours, two or more live threes \
         or six in a row",
        count(fours.len(), "four"),
        count(live, "live three")
    );
    // A three that is not live is judged by the recursive definition (3.4).
    let rule = if dead > 0 {
        Article::Renju("3.4")
    } else {
        Article::Renju("3")
    };
    (rule, format!("it makes {}; {verdict}", parts.join("; ")))
}

fn count(n: usize, what: &str) -> String {
    match n {
        0 => format!("no {what}"),
        1 => format!("one {what}"),
        n => format!("{n} {what}s"),
    }
}

/// A claim the log does not bear out.
fn reject(seq: u64, side: Side, rule: Article, why: String) -> Ruling {
    let name = side.name(crate::games::Variant::Renju);
    let text = format!("{name}'s claim at event {seq} is rejected: {why}");
    Ruling::notice(seq, RulingKind::ClaimRejected, Some(side), rule, text)
}
