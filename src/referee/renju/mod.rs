//! The renju table: stones placed in turn from the centre (renju 1), five in a row (2), black's
//! forbidden shapes (3) under the procedure the header chooses (4), the full board (5).
//!
//! The article numbers are those of docs/rules/renju.md, a digest of the gomoku texts of seed
//! 002 with the original Chinese beside each article.

mod claims;
mod opening;
mod policy;
mod words;

use crate::event::{ClaimKind, EventKind, ForbiddenRule, Header, OpeningRule, Side};
use crate::games::Variant;
use crate::games::renju::{Board, Foul, Point, Stone, foul, foul_kind};
use crate::referee::Article;

use self::opening::{Act, Opening, Outcome};
use self::words::{describe_shape, shape_article};
use super::table::{GameTable, Kind, Played, Policy, TimeDraw};
use super::touch::View;
use super::{Effect, Reason, Ruling, RulingKind, SetupError};

/// Black's stone on a forbidden point, as the procedure needs it: where and when, and why.
/// While it is claimable no stone has followed it, so the board before it is the board with
/// it lifted (a true claim under `replay` puts that board back).
#[derive(Clone, Debug)]
struct ForbiddenStone {
    seq: u64,
    point: Point,
    foul: Foul,
}

/// Black's last stone, what a claim of `forbidden` is judged on, and white's stone after it
/// if any: lifting both gives the board the stone was placed on.
#[derive(Clone, Debug)]
struct LastBlack {
    seq: u64,
    point: Point,
    answer: Option<Point>,
}

impl LastBlack {
    fn before(&self, board: &Board) -> Board {
        let board = self
            .answer
            .map_or_else(|| board.clone(), |a| board.lifted(a));
        board.lifted(self.point)
    }
}

/// The renju part of a referee.
#[derive(Clone, Debug)]
pub struct RenjuTable {
    board: Board,
    rule: ForbiddenRule,
    /// The seq of the event that placed each stone (`None`: it stood in the start position).
    placed: Vec<Option<u64>>,
    /// Whether seed 002's opening articles (1.3, 1.4) apply: the game began on the empty
    /// board under the header's opening `centre`.
    centre_opening: bool,
    /// A RIF opening rule (docs/rules/renju.md 7) in a game begun on the empty board.
    opening: Option<Box<Opening>>,
    /// The header's opening rule, for a message about a step it has no place for.
    opening_rule: OpeningRule,
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
        let from_empty = board.count() == 0;
        let opening_rule = header.rules.opening.unwrap_or(OpeningRule::Centre);
        Ok(RenjuTable {
            centre_opening: from_empty && opening_rule == OpeningRule::Centre,
            opening: Opening::new(opening_rule)
                .filter(|_| from_empty)
                .map(Box::new),
            opening_rule,
            board,
            rule: header.rules.forbidden.unwrap_or(ForbiddenRule::Claim),
            placed: vec![None; Point::COUNT],
            last_black: None,
            claimable: None,
            passed: None,
            full_after_forbidden: false,
        })
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
                name(Side::from(by)),
                self.placed_at(point)
            );
            return vec![invalid(seq, Some(side), text)];
        }
        if let Some(opening) = self.opening.as_mut().filter(|o| o.in_progress())
            && let Err(ruling) = opening.step(seq, side, Act::Stone(point), &self.board)
        {
            return vec![*ruling];
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
        // The fast test first; the reasons only for a stone that needs them.
        let black = stone == Stone::Black;
        let fouled = black && foul_kind(&self.board, point).is_some();
        let foul = fouled.then(|| foul(&self.board, point)).flatten();
        self.board.play(point).expect("checked: the point is empty");
        self.placed[point.index()] = Some(seq);
        match &mut self.last_black {
            Some(last) if !black && last.answer.is_none() => last.answer = Some(point),
            _ if black => {
                self.last_black = Some(LastBlack {
                    seq,
                    point,
                    answer: None,
                })
            }
            _ => {}
        }
        if let Some(five) = self.board.five(point) {
            return vec![self.five(seq, stone, point, &five)];
        }
        let mut out = Vec::new();
        if let Some(foul) = foul {
            let found = ForbiddenStone { seq, point, foul };
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
        } else if self.centre_opening && self.board.count() == 0 && point != Point::CENTRE {
            (
                Article::Renju("1.3"),
                format!("black's first stone goes on the centre {}", Point::CENTRE),
            )
        } else if self.centre_opening
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
    fn five(&self, seq: u64, stone: Stone, point: Point, five: &[Point]) -> Ruling {
        let side = Side::from(stone);
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
            Stone::Black => words::shapes_beside_five(&self.board, point),
            Stone::White => None,
        };
        let (rule, also) = match also {
            Some(shape) => (
                Article::Renju("2.3"),
                format!(
                    "; the stone also makes {shape}, but a five made together with a forbidden \
                     shape wins"
                ),
            ),
            None => (rule, String::new()),
        };
        let text = format!(
            "{}'s stone at {point} at event {seq} makes {what} ({}){also}: {} wins ({rule})",
            name(side),
            words::when_placed(five, &self.placed),
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
            describe_shape(f, &self.board, &self.placed)
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
            describe_shape(f, &self.board, &self.placed)
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
    fn full_board_window(&mut self, seq: u64, played: &Played<Point>) -> Vec<Ruling> {
        if played.side != Side::Second {
            return match played.claim() {
                Some(claim) => self.on_claim(seq, played.side, claim),
                None => Vec::new(),
            };
        }
        self.full_after_forbidden = false;
        if played.claim() == Some(ClaimKind::Forbidden) {
            let out = self.on_claim(seq, played.side, ClaimKind::Forbidden);
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

    /// A step of a RIF opening rule (7): recorded, placed (the chosen offer), or void.
    fn on_opening_step(&mut self, seq: u64, side: Side, act: Act<'_>) -> Vec<Ruling> {
        let Some(opening) = self.opening.as_mut() else {
            let why = if self.opening_rule == OpeningRule::Centre {
                "the header's opening rule is centre (seed 002's, renju 1.2-1.4), which has no \
                 swaps, declarations or offers"
                    .to_string()
            } else {
                format!(
                    "the game began from a set position, where the opening rule {} has no place",
                    self.opening_rule
                )
            };
            let text = format!(
                "{} made {} at event {seq}, but {why}: the arbiter must look (the header may \
                 name the wrong opening rule)",
                name(side),
                act.name()
            );
            return vec![invalid(seq, Some(side), text)];
        };
        match opening.step(seq, side, act, &self.board) {
            Err(ruling) => vec![*ruling],
            Ok(Outcome::Place | Outcome::Recorded) => Vec::new(),
            Ok(Outcome::Chosen { point, .. }) => {
                self.board
                    .play(point)
                    .expect("checked: an offer is on an empty point");
                self.placed[point.index()] = Some(seq);
                self.last_black = Some(LastBlack {
                    seq,
                    point,
                    answer: None,
                });
                Vec::new()
            }
        }
    }

    /// Where a RIF opening stands, for the console.
    pub fn opening_view(&self) -> Option<super::OpeningView> {
        let opening = self.opening.as_ref()?;
        Some(super::OpeningView {
            tentative: opening.in_progress(),
            offers: (opening.pending_offers())
                .map(|(points, _)| points.iter().map(Point::to_string).collect())
                .unwrap_or_default(),
        })
    }

    /// Whether the players hold the other colours than they began with.
    pub fn players_swapped(&self) -> bool {
        self.opening.as_ref().is_some_and(|o| o.swapped())
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

impl GameTable for RenjuTable {
    type Square = Point;

    fn policy(&self) -> Policy {
        policy::POLICY
    }

    /// A stone as a scoresheet writes it (`h8`), if it may be placed there now.
    fn describe(&self, played: &Played<Point>) -> Option<String> {
        let Kind::Place { to: point } = played.kind else {
            return None;
        };
        let in_turn = stone_of(played.side) == Some(self.board.to_move());
        (in_turn && self.board.stone(point).is_none()).then(|| point.to_string())
    }

    fn apply(&mut self, seq: u64, played: &Played<Point>) -> Vec<Ruling> {
        if self.full_after_forbidden {
            return self.full_board_window(seq, played);
        }
        let act = match &played.kind {
            Kind::Place { to } => return self.on_stone(seq, played.side, *to),
            Kind::Offer { points } => Some(Act::Offer(points)),
            Kind::Choose { to } => Some(Act::Choose(*to)),
            Kind::Other(EventKind::Swap) => Some(Act::Swap),
            Kind::Other(EventKind::Declare { offers }) => Some(Act::Declare(*offers)),
            _ => None,
        };
        if let Some(act) = act {
            return self.on_opening_step(seq, played.side, act);
        }
        match played.claim() {
            Some(claim) => self.on_claim(seq, played.side, claim),
            None => Vec::new(),
        }
    }

    /// What stands open: the opening's steps, a forbidden stone white may still claim.
    fn open_conditions(&self) -> Vec<String> {
        if let Some(opening) = self.opening.as_ref().filter(|o| o.in_progress()) {
            return vec![opening.status(&self.board)];
        }
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

    fn after_end(&mut self, _seq: u64, _played: &Played<Point>) -> Option<Vec<Ruling>> {
        None
    }

    /// A stone placed is a move: no touch-move.
    fn touch_view(&self) -> Option<View> {
        None
    }

    /// The texts know no draw on time: the flag's fall loses (6.1).
    fn time_draw(&self, _flagged: Side, _header: &Header) -> Option<TimeDraw> {
        None
    }

    fn timed_claim(&self, _: u64, _: Side, _: ClaimKind, _: Option<i64>) -> Option<Ruling> {
        None
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

/// The colour `side` places; none for the arbiter or a board.
fn stone_of(side: Side) -> Option<Stone> {
    match side {
        Side::First => Some(Stone::Black),
        Side::Second => Some(Stone::White),
        Side::Arbiter | Side::Board => None,
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
        text,
        evidence,
        reason: Reason::Plain,
        event: None,
    }
}

impl super::table::Positioned for RenjuTable {
    type Position = Board;

    fn position(&self) -> &Board {
        &self.board
    }

    /// The board's turn, but a declaration's or a choice's while one is due.
    fn side_to_move(&self) -> Side {
        let stone = (self.opening.as_ref())
            .and_then(|o| o.actor(&self.board))
            .unwrap_or_else(|| self.board.to_move());
        Side::from(stone)
    }
}

#[cfg(test)]
mod tests;
