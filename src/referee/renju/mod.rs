//! The renju table: stones placed in turn from the centre (renju 1), five in a row (2), black's
//! forbidden shapes (3) under the procedure the header chooses (4), the full board (5).
//!
//! The article numbers are those of docs/rules/renju.md, a digest of the gomoku texts of seed
//! 002 with the original Chinese beside each article.

mod claims;
mod policy;
mod words;

use crate::event::{ClaimKind, Event, EventKind, ForbiddenRule, Header, Side};
use crate::games::Variant;
use crate::games::renju::{Board, Foul, Point, Stone, foul};
use crate::referee::Article;

use self::words::{describe_shape, shape_article};
use super::{Effect, Reason, Ruling, RulingKind, SetupError};

/// Black's stone on a forbidden point, as the procedure needs it: where and when, why, and
/// the board before it (a true claim under `replay` puts that board back).
#[derive(Clone, Debug)]
struct ForbiddenStone {
    seq: u64,
    point: Point,
    foul: Foul,
    before: Box<Board>,
}

/// Black's last stone and the board before it: what a claim of `forbidden` is judged on.
#[derive(Clone, Debug)]
struct LastBlack {
    seq: u64,
    point: Point,
    before: Box<Board>,
}

/// The renju part of a referee.
#[derive(Clone, Debug)]
pub struct RenjuTable {
    board: Board,
    rule: ForbiddenRule,
    /// The seq of the event that placed each stone (`None`: it stood in the start position).
    placed: Vec<Option<u64>>,
    /// Whether the game began on the empty board, where the opening rules (1.3, 1.4) apply.
    from_empty: bool,
    last_black: Option<LastBlack>,
    /// Black's forbidden stone that white may still claim (claim and replay procedures).
    claimable: Option<ForbiddenStone>,
    /// The forbidden stone white played on from, and the seq of the stone that did.
    passed: Option<(ForbiddenStone, u64)>,
    /// The board is full after a claimable forbidden stone: drawn unless white claims at once.
    full_after_forbidden: bool,
}

impl RenjuTable {
    pub fn new(header: &Header) -> Result<RenjuTable, SetupError> {
        let board = super::start_position::<Board>(header)?;
        Ok(RenjuTable {
            from_empty: board.count() == 0,
            board,
            rule: header.rules.forbidden.unwrap_or(ForbiddenRule::Claim),
            placed: vec![None; Point::COUNT],
            last_black: None,
            claimable: None,
            passed: None,
            full_after_forbidden: false,
        })
    }

    pub fn fen(&self) -> String {
        self.board.to_fen()
    }

    pub fn side_to_move(&self) -> Side {
        side_of(self.board.to_move())
    }

    /// A stone as a scoresheet writes it (`h8`), if it may be placed there now.
    pub fn describe(&self, event: &Event) -> Option<String> {
        let EventKind::Place { to } = &event.kind else {
            return None;
        };
        let point = to.renju()?;
        let in_turn = stone_of(event.side) == Some(self.board.to_move());
        (in_turn && self.board.stone(point).is_none()).then(|| point.to_string())
    }

    pub fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        if self.full_after_forbidden {
            return self.full_board_window(seq, event);
        }
        match &event.kind {
            EventKind::Place { to } => match to.renju() {
                Some(point) => self.on_stone(seq, event.side, point),
                None => Vec::new(),
            },
            EventKind::Claim { claim } => self.on_claim(seq, event.side, *claim),
            _ => Vec::new(),
        }
    }

    /// What stands open: a forbidden stone white may still claim.
    pub fn open_conditions(&self) -> Vec<String> {
        let Some(f) = &self.claimable else {
            return Vec::new();
        };
        let then = match self.rule {
            ForbiddenRule::Replay => "black places again",
            ForbiddenRule::Claim | ForbiddenRule::Loss => "black loses",
        };
        let mut open = format!(
            "black's stone at {} (event {}) stands on a forbidden point ({}); if white claims \
             forbidden before placing its next stone, {then} ({})",
            f.point,
            f.seq,
            f.foul.kind(),
            procedure_article(self.rule)
        );
        if self.full_after_forbidden {
            open.push_str("; otherwise the full board is a draw (renju 5.1)");
        }
        vec![open]
    }

    fn on_stone(&mut self, seq: u64, side: Side, point: Point) -> Vec<Ruling> {
        let Some(stone) = stone_of(side) else {
            let text = format!(
                "the arbiter reported a stone at {point} at event {seq}; stones are the \
                 players' to place, and the arbiter must look at the board"
            );
            return vec![invalid(seq, Some(side), text)];
        };
        if let Some(by) = self.board.stone(point) {
            let text = format!(
                "{} reported a stone at {point} at event {seq}, but {point} already holds {}'s \
                 stone{}: the log and the board disagree and the arbiter must look",
                name(side),
                name(side_of(by)),
                self.placed_at(point)
            );
            return vec![invalid(seq, Some(side), text)];
        }
        if let Some(ruling) = self.placement_breach(seq, side, stone, point) {
            return vec![ruling];
        }
        if stone == Stone::White
            && let Some(f) = self.claimable.take()
        {
            // White plays on: the text's 继续应子, after which black is not ruled lost.
            self.passed = Some((f, seq));
        }
        let before = self.board.clone();
        self.board.play(point).expect("checked: the point is empty");
        self.placed[point.index()] = Some(seq);
        if stone == Stone::Black {
            self.last_black = Some(LastBlack {
                seq,
                point,
                before: Box::new(before.clone()),
            });
        }
        if let Some(five) = self.board.five(point) {
            return vec![self.five(seq, stone, point, &five, &before)];
        }
        let mut out = Vec::new();
        if stone == Stone::Black
            && let Some(foul) = foul(&before, point)
        {
            let found = ForbiddenStone {
                seq,
                point,
                foul,
                before: Box::new(before),
            };
            match self.rule {
                ForbiddenRule::Loss => return vec![self.forbidden_loss(&found)],
                ForbiddenRule::Claim | ForbiddenRule::Replay => {
                    out.push(self.forbidden_notice(&found));
                    self.claimable = Some(found);
                }
            }
        }
        if self.board.is_full() {
            if self.claimable.is_some() {
                self.full_after_forbidden = true;
            } else {
                out.push(self.full_board(seq));
            }
        }
        out
    }

    /// A stone placed out of turn (1.2), or an opening stone off its place (1.3, 1.4).
    fn placement_breach(&self, seq: u64, side: Side, stone: Stone, point: Point) -> Option<Ruling> {
        let (rule, why) = if stone != self.board.to_move() {
            (
                Article::Renju("1.2"),
                format!("it was {}'s turn", name(side.opponent())),
            )
        } else if self.from_empty && self.board.count() == 0 && point != Point::CENTRE {
            (
                Article::Renju("1.3"),
                format!("black's first stone goes on the centre {}", Point::CENTRE),
            )
        } else if self.from_empty
            && self.board.count() == 1
            && point.rank() < Point::CENTRE.rank() + 1
        {
            (
                Article::Renju("1.4"),
                "white's first stone goes on white's side of the centre, rows 9 to 15".to_string(),
            )
        } else {
            return None;
        };
        let text = format!(
            "{} placed a stone at {point} at event {seq}, but {why} ({rule}): an illegal move \
             loses",
            name(side)
        );
        Some(Ruling::loss(seq, RulingKind::IllegalMove, side, rule, text))
    }

    /// Five in a row wins (2.1); white's longer row counts as five (2.2); black's five wins
    /// even where the stone makes a forbidden shape too (2.3).
    fn five(&self, seq: u64, stone: Stone, point: Point, five: &[Point], before: &Board) -> Ruling {
        let side = side_of(stone);
        let stones: Vec<String> = five.iter().map(Point::to_string).collect();
        let (rule, what) = if stone == Stone::White && five.len() > 5 {
            (
                Article::Renju("2.2"),
                format!(
                    "{} white stones in a row, {}: white's overline counts as five",
                    five.len(),
                    stones.join(" ")
                ),
            )
        } else {
            (
                Article::Renju("2.1"),
                format!("five in a row, {}", stones.join(" ")),
            )
        };
        let also = match stone {
            Stone::Black => words::shapes_beside_five(before, &self.board, point),
            Stone::White => None,
        };
        let (rule, also) = match also {
            Some(shape) => (
                Article::Renju("2.3"),
                format!(
                    "; the stone also makes {shape}, but a five made together with a forbidden \
                     shape wins (renju 2.3)"
                ),
            ),
            None => (rule, String::new()),
        };
        let text = format!(
            "{}'s stone at {point} at event {seq} makes {what}{}{also}: {} wins ({rule})",
            name(side),
            self.placed_list(five),
            name(side)
        );
        let mut evidence = self.seqs_of(five);
        evidence.push(seq);
        evidence.sort_unstable();
        evidence.dedup();
        Ruling::loss(seq, RulingKind::Five, side.opponent(), rule, text).with_evidence(evidence)
    }

    /// Under `loss` (4.3): the forbidden stone loses at once.
    fn forbidden_loss(&self, f: &ForbiddenStone) -> Ruling {
        let rule = shape_article(f.foul.kind(), ForbiddenRule::Loss);
        let text = format!(
            "black's stone at {} at event {} stands on a forbidden point: {}; a forbidden \
             stone loses ({rule})",
            f.point,
            f.seq,
            describe_shape(&f.foul, &self.placed)
        );
        Ruling::loss(f.seq, RulingKind::Forbidden, Side::First, rule, text)
            .with_evidence(self.shape_evidence(f, None))
    }

    /// Under `claim` and `replay` (4.1, 4.2): the stone stands until white claims; the
    /// arbiter sees the shape at once.
    fn forbidden_notice(&self, f: &ForbiddenStone) -> Ruling {
        let rule = shape_article(f.foul.kind(), self.rule);
        let then = match self.rule {
            ForbiddenRule::Replay => "the stone is void and black places again",
            ForbiddenRule::Claim | ForbiddenRule::Loss => "black loses",
        };
        let text = format!(
            "black's stone at {} at event {} stands on a forbidden point: {}. If white claims \
             forbidden before placing its next stone, {then}; if white plays on, the stone \
             stands ({rule})",
            f.point,
            f.seq,
            describe_shape(&f.foul, &self.placed)
        );
        Ruling::notice(f.seq, RulingKind::Forbidden, Some(Side::First), rule, text)
            .with_evidence(self.shape_evidence(f, None))
    }

    /// 5.1: the board is full and nobody has won.
    fn full_board(&self, seq: u64) -> Ruling {
        let text = format!(
            "the stone at event {seq} fills the last of the 225 points and nobody has made \
             five: a draw (renju 5.1)"
        );
        Ruling::draw(seq, RulingKind::FullBoard, Article::Renju("5.1"), text)
    }

    /// The board is full after a claimable forbidden stone: white's claim is judged, any
    /// other event of white's closes the window and the full board is drawn.
    fn full_board_window(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        if event.side != Side::Second {
            return match event.kind {
                EventKind::Claim { claim } => self.on_claim(seq, event.side, claim),
                _ => Vec::new(),
            };
        }
        self.full_after_forbidden = false;
        if let EventKind::Claim {
            claim: ClaimKind::Forbidden,
        } = event.kind
        {
            let out = self.on_claim(seq, event.side, ClaimKind::Forbidden);
            if self.board.is_full() && out.iter().all(|r| r.result.is_none()) {
                let mut out = out;
                out.push(self.full_board(seq));
                return out;
            }
            return out;
        }
        let passed = self.claimable.take();
        let mut ruling = self.full_board(seq);
        if let Some(f) = passed {
            ruling.text = format!(
                "white did not claim black's forbidden stone at {} (event {}) and the board is \
                 full: nobody has made five, a draw (renju 4.1, 5.1)",
                f.point, f.seq
            );
            ruling.evidence = vec![f.seq, seq];
        }
        vec![ruling]
    }

    /// " (events 3, 5, 7, 9 and 11)": when the stones were placed, for the arbiter to find.
    fn placed_list(&self, points: &[Point]) -> String {
        let seqs = self.seqs_of(points);
        match seqs.as_slice() {
            [] => " (standing in the start position)".to_string(),
            [one] => format!(" (event {one})"),
            [init @ .., last] => {
                let init: Vec<String> = init.iter().map(u64::to_string).collect();
                format!(" (events {} and {last})", init.join(", "))
            }
        }
    }

    fn placed_at(&self, point: Point) -> String {
        self.placed[point.index()]
            .map(|seq| format!(" from event {seq}"))
            .unwrap_or_default()
    }

    fn seqs_of(&self, points: &[Point]) -> Vec<u64> {
        points
            .iter()
            .filter_map(|p| self.placed[p.index()])
            .collect()
    }

    /// The stones of the shape, the forbidden stone and the claim, as seqs in order.
    fn shape_evidence(&self, f: &ForbiddenStone, claim: Option<u64>) -> Vec<u64> {
        let mut seqs = self.seqs_of(&words::shape_stones(&f.foul));
        seqs.push(f.seq);
        seqs.extend(claim);
        seqs.sort_unstable();
        seqs.dedup();
        seqs
    }
}

fn invalid(seq: u64, side: Option<Side>, text: String) -> Ruling {
    Ruling::notice(
        seq,
        RulingKind::InvalidEvent,
        side,
        Article::LogFormat("invalid_event"),
        text,
    )
}

/// The article of the procedure the header chose.
fn procedure_article(rule: ForbiddenRule) -> Article {
    match rule {
        ForbiddenRule::Claim => Article::Renju("4.1"),
        ForbiddenRule::Replay => Article::Renju("4.2"),
        ForbiddenRule::Loss => Article::Renju("4.3"),
    }
}

fn side_of(stone: Stone) -> Side {
    match stone {
        Stone::Black => Side::First,
        Stone::White => Side::Second,
    }
}

fn stone_of(side: Side) -> Option<Stone> {
    match side {
        Side::First => Some(Stone::Black),
        Side::Second => Some(Stone::White),
        Side::Arbiter => None,
    }
}

fn name(side: Side) -> &'static str {
    side.name(Variant::Renju)
}

/// A ruling's fields where the procedure, not a constructor, sets the effect.
fn ruling(
    at: u64,
    kind: RulingKind,
    effect: Effect,
    article: Article,
    text: String,
    evidence: Vec<u64>,
) -> Ruling {
    Ruling {
        at,
        kind,
        side: Some(Side::First),
        effect,
        result: None,
        article,
        rule: article.to_string(),
        text,
        evidence,
        reason: Reason::Plain,
    }
}

#[cfg(test)]
mod tests {
    use crate::event::parse_log;
    use crate::referee::{Ruling, replay};

    /// The rulings of a log given as its header's `rules`, `start` and event lines.
    fn rulings(rules: &str, start: Option<&str>, lines: &[&str]) -> Vec<Ruling> {
        let start = start
            .map(|s| format!(r#","start":"{s}""#))
            .unwrap_or_default();
        let mut text =
            format!(r#"{{"type":"game","variant":"renju","id":"t","rules":{rules}{start}}}"#);
        for line in lines {
            text.push('\n');
            text.push_str(line);
        }
        let log = parse_log(&text).expect("log");
        replay(&log.header, &log.events)
            .expect("start")
            .rulings()
            .to_vec()
    }

    fn stone(side: &str, to: &str) -> String {
        format!(r#"{{"type":"move","side":"{side}","to":"{to}"}}"#)
    }

    fn kinds(rulings: &[Ruling]) -> Vec<(u64, &str, &str, Option<&str>)> {
        rulings
            .iter()
            .map(|r| {
                let result = r.result.map(|x| x.as_str());
                (r.at, r.kind.as_str(), r.effect.as_str(), result)
            })
            .collect()
    }

    /// 224 stones without a five; the last point, h13, would give black six in a row
    /// (e13-j13), an overline.
    const LAST_POINT_OVERLINE: &str = "xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxoxxx1xxoxoox/\
        ooxooxooxooxoox/xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxooxooxooxoox/ooxooxooxooxoox/\
        xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxooxooxooxoox/ooxooxooxooxoox/xxoxxoxxoxxoxxo/\
        xxoxxoxxoxxoxxo/ooxooxooxooxoox b";

    #[test]
    fn a_full_board_waits_for_whites_claim_of_the_last_stone() {
        let claim = r#"{"type":"claim","side":"white","claim":"forbidden"}"#;
        let black = stone("black", "h13");
        let claimed = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, claim]);
        assert_eq!(
            kinds(&claimed),
            [
                (1, "forbidden", "none", None),
                (2, "forbidden", "loss", Some("0-1"))
            ]
        );
        assert!(
            claimed[1]
                .text
                .contains("overline: e13 f13 g13 h13 i13 j13")
        );
        let press = r#"{"type":"clock","side":"white"}"#;
        let drawn = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, press]);
        assert_eq!(
            kinds(&drawn),
            [
                (1, "forbidden", "none", None),
                (2, "full_board", "draw", Some("1/2-1/2"))
            ]
        );
        assert!(
            drawn[1].text.contains("white did not claim"),
            "{}",
            drawn[1].text
        );
        // Black's own events do not close white's window.
        let black_press = r#"{"type":"clock","side":"black"}"#;
        let open = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, black_press]);
        assert_eq!(kinds(&open), [(1, "forbidden", "none", None)]);
        // Under "loss" the overline loses at once; the full board does not come into it.
        let lost = rulings(
            r#"{"forbidden":"loss"}"#,
            Some(LAST_POINT_OVERLINE),
            &[&black],
        );
        assert_eq!(kinds(&lost), [(1, "forbidden", "loss", Some("0-1"))]);
    }

    #[test]
    fn the_opening_stones_go_on_the_centre_and_on_whites_side() {
        let off = rulings("{}", None, &[&stone("black", "h9")]);
        assert_eq!(kinds(&off), [(1, "illegal_move", "loss", Some("0-1"))]);
        assert_eq!(off[0].rule, "renju 1.3");
        let row8 = rulings("{}", None, &[&stone("black", "h8"), &stone("white", "i8")]);
        assert_eq!(kinds(&row8), [(2, "illegal_move", "loss", Some("1-0"))]);
        assert_eq!(row8[0].rule, "renju 1.4");
        let row9 = [
            stone("black", "h8"),
            stone("white", "g9"),
            stone("black", "a1"),
        ];
        let row9: Vec<&str> = row9.iter().map(String::as_str).collect();
        assert!(
            rulings("{}", None, &row9).is_empty(),
            "later stones go anywhere"
        );
        let twice = rulings("{}", None, &[&stone("black", "h8"), &stone("black", "h9")]);
        assert_eq!(kinds(&twice), [(2, "illegal_move", "loss", Some("0-1"))]);
        assert_eq!(twice[0].rule, "renju 1.2");
        let taken = rulings("{}", None, &[&stone("black", "h8"), &stone("white", "h8")]);
        assert_eq!(kinds(&taken), [(2, "invalid_event", "none", None)]);
        assert!(
            taken[0]
                .text
                .contains("h8 already holds black's stone from event 1")
        );
    }

    #[test]
    fn under_replay_a_true_claim_voids_the_stone_and_black_places_again() {
        let lines = [
            stone("black", "h8"),
            stone("white", "a15"),
            stone("black", "g8"),
            stone("white", "c15"),
            stone("black", "g9"),
            stone("white", "e15"),
            stone("black", "h10"),
            stone("white", "o1"),
            stone("black", "f8"),
            r#"{"type":"claim","side":"white","claim":"forbidden"}"#.to_string(),
            stone("black", "i8"),
            r#"{"type":"claim","side":"white","claim":"forbidden"}"#.to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = rulings(r#"{"forbidden":"replay"}"#, None, &lines);
        assert_eq!(
            kinds(&out),
            [
                (9, "forbidden", "none", None),
                (10, "forbidden", "correction_required", None),
                (12, "claim_rejected", "none", None)
            ]
        );
        assert_eq!(out[1].rule, "renju 3.1, 4.2");
        // i8 makes g8 h8 i8, one live three, and nothing else.
        assert!(
            out[2]
                .text
                .contains("black's last stone at i8 (event 11) is not on a forbidden point"),
            "{}",
            out[2].text
        );
        assert!(
            out[2].text.contains("no four and one live three"),
            "{}",
            out[2].text
        );
    }
}
