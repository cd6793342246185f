//! The opening rules of RIF events (docs/rules/renju.md 7): who places which stone where, the
//! swaps, the declared number of fifth moves, the offers and the choice among them, each step
//! checked against the rule's text. A faulty step is void (7.10): the ruling quotes the text it
//! breaks, nothing changes, and the step is made again.
//!
//! Each rule is a script of steps ([`Step`]); a swap point is optional, and the player who
//! makes the step after it lets it pass. The geometry (squares, the 26 openings, symmetric
//! offers) is `games::renju::opening`'s.

use crate::event::{OpeningRule, Side};
use crate::games::renju::opening::{Canonical, canonical, square_name, symmetric, within};
use crate::games::renju::{Board, Point, Stone};
use crate::referee::{Article, Effect, Reason, Ruling, RulingKind};

use super::{name, stone_of};

/// One step of an opening rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The next stone, in the square of this size around `h8` (`None`: anywhere).
    Stone(Option<u8>),
    /// The player to move may swap; making the step after it lets the point pass.
    SwapPoint,
    /// The player who placed the last stone declares how many fifth moves will be offered,
    /// from 1 to the bound (`None`: the text sets none).
    Declare(Option<u32>),
    /// Black offers this many fifth stones at once (`None`: the number declared).
    Offers(Option<u32>),
    /// White chooses one of the offers as the fifth stone.
    Choose,
    /// Taraguchi after the fourth stone: a swap or one fifth stone in the 9x9 square (choice
    /// 1), or this many offers (choice 2).
    Fifth(u32),
}

/// An opening step as the table receives it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Act<'a> {
    Stone(Point),
    Swap,
    Declare(u32),
    Offer(&'a [Point]),
    Choose(Point),
}

impl Act<'_> {
    /// The step in a few words: `a swap`, `fifth-move offers`.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Act::Stone(_) => "a stone",
            Act::Swap => "a swap",
            Act::Declare(_) => "a declaration of fifth moves",
            Act::Offer(_) => "fifth-move offers",
            Act::Choose(_) => "a choice among offers",
        }
    }
}

/// What the table does with a step the opening accepts.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    /// A stone, placed as in play.
    Place,
    /// A swap, declaration or offer: recorded here, the board unchanged.
    Recorded,
    /// White's choice: the offer at this point stands as black's fifth stone, placed by the
    /// offer at this seq.
    Chosen { point: Point, offered_at: u64 },
}

/// Where an opening rule stands in a game.
#[derive(Clone, Debug)]
pub(super) struct Opening {
    rule: OpeningRule,
    script: Vec<Step>,
    /// The index in `script` of the step due.
    next: usize,
    /// The seqs of the swaps made: an odd number and the players hold the other colours.
    swaps: Vec<u64>,
    declared: Option<(u32, u64)>,
    offered: Option<(Vec<Point>, u64)>,
    /// The opening the first three stones make, once they stand.
    named: Option<Canonical>,
}

/// What a step changes, worked out before anything changes (a faulty step changes nothing).
struct Commit {
    next: usize,
    tail: Option<Vec<Step>>,
    outcome: Outcome,
}

impl Opening {
    /// The opening of a game that starts on the empty board; `None` under `centre`, which the
    /// table's own articles (1.3, 1.4) check.
    pub(super) fn new(rule: OpeningRule) -> Option<Opening> {
        let script = match rule {
            OpeningRule::Centre => return None,
            OpeningRule::Rif => vec![
                Step::Stone(Some(1)),
                Step::Stone(Some(3)),
                Step::Stone(Some(5)),
                Step::SwapPoint,
                Step::Stone(None),
                Step::Offers(Some(2)),
                Step::Choose,
            ],
            OpeningRule::Yamaguchi => vec![
                Step::Stone(Some(1)),
                Step::Stone(Some(3)),
                Step::Stone(Some(5)),
                Step::Declare(None),
                Step::SwapPoint,
                Step::Stone(None),
                Step::Offers(None),
                Step::Choose,
            ],
            OpeningRule::Taraguchi(n) => vec![
                Step::Stone(Some(1)),
                Step::SwapPoint,
                Step::Stone(Some(3)),
                Step::SwapPoint,
                Step::Stone(Some(5)),
                Step::SwapPoint,
                Step::Stone(Some(7)),
                Step::Fifth(n),
            ],
            OpeningRule::Soosorv(n) => vec![
                Step::Stone(Some(1)),
                Step::Stone(Some(3)),
                Step::Stone(Some(5)),
                Step::SwapPoint,
                Step::Stone(None),
                Step::Declare(Some(n)),
                Step::SwapPoint,
                Step::Offers(None),
                Step::Choose,
            ],
        };
        Some(Opening {
            rule,
            script,
            next: 0,
            swaps: Vec::new(),
            declared: None,
            offered: None,
            named: None,
        })
    }

    /// Whether a step of the rule is still due (a swap point left open after the last stone of
    /// the rule counts: the next stone lets it pass).
    pub(super) fn in_progress(&self) -> bool {
        self.next < self.script.len()
    }

    /// Whether the players hold the other colours than they began with.
    pub(super) fn swapped(&self) -> bool {
        self.swaps.len() % 2 == 1
    }

    /// The offers standing, and the seq of the event that made them, while white chooses.
    pub(super) fn pending_offers(&self) -> Option<&(Vec<Point>, u64)> {
        match self.script.get(self.next) {
            Some(Step::Choose) => self.offered.as_ref(),
            _ => None,
        }
    }

    /// Whose step it is while one is due (a declaration is made by the player who placed the
    /// last stone, a choice by white); `None`: the board's turn.
    pub(super) fn actor(&self, board: &Board) -> Option<Stone> {
        match self.script.get(self.next)? {
            Step::Declare(_) => Some(board.to_move().other()),
            Step::Choose => Some(Stone::White),
            _ => None,
        }
    }

    /// The opening's state in words, for the console and the arbiter.
    pub(super) fn status(&self, board: &Board) -> String {
        let mut words = format!("opening {} ({})", self.rule, self.article_number());
        if let Some(named) = self.named {
            words.push_str(&format!(": {named}"));
        }
        let swaps = match self.swaps.len() {
            0 => "no swap yet".to_string(),
            1 => format!("one swap (event {})", self.swaps[0]),
            n => format!("{n} swaps (events {})", seqs(&self.swaps)),
        };
        words.push_str(&format!("; {swaps}"));
        if let Some((n, at)) = self.declared {
            words.push_str(&format!("; {n} fifth moves declared at event {at}"));
        }
        if let Some((points, at)) = self.pending_offers() {
            words.push_str(&format!(
                "; offers pending: {} (event {at}), white chooses one",
                names(points)
            ));
        }
        if self.in_progress() {
            words.push_str(&format!("; due: {}", self.due(board)));
        }
        words
    }

    /// Judges an opening step by `side` at `seq`: what the table does with it, or the ruling
    /// that voids it.
    pub(super) fn step(
        &mut self,
        seq: u64,
        side: Side,
        act: Act<'_>,
        board: &Board,
    ) -> Result<Outcome, Box<Ruling>> {
        let commit = self.judge(seq, side, act, board)?;
        self.next = commit.next;
        if let Some(tail) = commit.tail {
            self.script.truncate(self.next);
            self.script.extend(tail);
        }
        match act {
            Act::Swap => self.swaps.push(seq),
            Act::Declare(n) => self.declared = Some((n, seq)),
            Act::Offer(points) => self.offered = Some((points.to_vec(), seq)),
            Act::Stone(point) if board.count() == 2 => {
                let stones = board_stones(board);
                if let [(b1, _), (w2, _)] = stones[..] {
                    self.named = canonical(b1, w2, point).ok();
                }
            }
            Act::Stone(_) | Act::Choose(_) => {}
        }
        Ok(commit.outcome)
    }

    fn judge(
        &self,
        seq: u64,
        side: Side,
        act: Act<'_>,
        board: &Board,
    ) -> Result<Commit, Box<Ruling>> {
        let Some(&due) = self.script.get(self.next) else {
            return match act {
                Act::Stone(_) => Ok(Commit {
                    next: self.next,
                    tail: None,
                    outcome: Outcome::Place,
                }),
                _ => Err(self.void(
                    seq,
                    side,
                    format!(
                        "{} made {} at event {seq}, but the opening is over",
                        name(side),
                        act.name()
                    ),
                    None,
                    vec![seq],
                )),
            };
        };
        if due != Step::SwapPoint {
            return self.judge_at(seq, side, act, board, self.next);
        }
        // An open swap point: a swap takes it, the next step lets it pass.
        if let Act::Swap = act {
            let holder = board.to_move();
            if stone_of(side) != Some(holder) {
                return Err(self.void(
                    seq,
                    side,
                    format!(
                        "the player holding {} asked to swap at event {seq}, but the swap here \
                         is the right of the player holding {}, who places the next stone",
                        name(side),
                        name(Side::from(holder))
                    ),
                    Some(Step::SwapPoint),
                    vec![seq],
                ));
            }
            return Ok(Commit {
                next: self.next + 1,
                tail: None,
                outcome: Outcome::Recorded,
            });
        }
        if self.next + 1 == self.script.len() {
            // The last swap point of the rule: the next stone is the game's.
            return match act {
                Act::Stone(_) => Ok(Commit {
                    next: self.next + 1,
                    tail: None,
                    outcome: Outcome::Place,
                }),
                _ => Err(self.wrong_step(seq, side, act, board)),
            };
        }
        self.judge_at(seq, side, act, board, self.next + 1)
            .map_err(|mut ruling| {
                ruling.text = ruling.text.replacen(
                    "the step due is",
                    &format!(
                        "the steps open are a swap by the player holding {}, or",
                        name(Side::from(board.to_move()))
                    ),
                    1,
                );
                ruling
            })
    }

    /// Judges `act` as the step at `index` of the script.
    fn judge_at(
        &self,
        seq: u64,
        side: Side,
        act: Act<'_>,
        board: &Board,
        index: usize,
    ) -> Result<Commit, Box<Ruling>> {
        let step = self.script[index];
        let done = |outcome| {
            Ok(Commit {
                next: index + 1,
                tail: None,
                outcome,
            })
        };
        match (step, act) {
            (Step::Stone(size), Act::Stone(point)) => {
                self.check_stone(seq, side, point, size, board, step)?;
                done(Outcome::Place)
            }
            (Step::Declare(bound), Act::Declare(n)) => {
                let by = board.to_move().other();
                if stone_of(side) != Some(by) {
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "{} declared {n} fifth moves at event {seq}, but the declaration is \
                             the player's who placed the last stone, now holding {}",
                            name(side),
                            name(Side::from(by))
                        ),
                        Some(step),
                        vec![seq],
                    ));
                }
                let max = bound.unwrap_or(OpeningRule::MAX_OFFERS);
                if n > max {
                    let why = match bound {
                        Some(max) => format!("{} allows 1 to {max}", self.rule),
                        None => format!(
                            "at most {max} fifth moves can be offered, the points left empty \
                             after the fourth stone"
                        ),
                    };
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "{} declared {n} fifth moves at event {seq}, but {why}",
                            name(side)
                        ),
                        Some(step),
                        vec![seq],
                    ));
                }
                done(Outcome::Recorded)
            }
            (Step::Offers(count), Act::Offer(points)) => {
                self.check_offers(seq, side, points, count, board, step)?;
                done(Outcome::Recorded)
            }
            (Step::Choose, Act::Choose(point)) => {
                let (offers, offered_at) = self.offered.clone().unwrap_or_default();
                if side != Side::Second {
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "{} chose {point} at event {seq}, but the choice among black's \
                             offers is white's",
                            name(side)
                        ),
                        Some(step),
                        vec![offered_at, seq],
                    ));
                }
                if !offers.contains(&point) {
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "white chose {point} at event {seq}, which is not one of black's \
                             offers {} (event {offered_at})",
                            names(&offers)
                        ),
                        Some(step),
                        vec![offered_at, seq],
                    ));
                }
                done(Outcome::Chosen { point, offered_at })
            }
            (Step::Fifth(_), Act::Swap) => {
                // Choice 1, its swap: the holder of black's right after the fourth stone.
                if stone_of(side) != Some(board.to_move()) {
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "the player holding {} asked to swap at event {seq}, but the swap \
                             after the fourth stone is the right of the player holding black",
                            name(side)
                        ),
                        Some(Step::SwapPoint),
                        vec![seq],
                    ));
                }
                Ok(Commit {
                    next: index + 1,
                    tail: Some(vec![Step::Stone(Some(9)), Step::SwapPoint]),
                    outcome: Outcome::Recorded,
                })
            }
            (Step::Fifth(_), Act::Stone(point)) => {
                // Choice 1 without the swap: one fifth stone in the 9x9 square.
                self.check_stone(seq, side, point, Some(9), board, Step::Stone(Some(9)))?;
                Ok(Commit {
                    next: index + 1,
                    tail: Some(vec![Step::SwapPoint]),
                    outcome: Outcome::Place,
                })
            }
            (Step::Fifth(n), Act::Offer(points)) => {
                // Choice 2: n offers anywhere.
                self.check_offers(seq, side, points, Some(n), board, Step::Offers(Some(n)))?;
                Ok(Commit {
                    next: index + 1,
                    tail: Some(vec![Step::Choose]),
                    outcome: Outcome::Recorded,
                })
            }
            _ => Err(self.wrong_step_at(seq, side, act, board, step)),
        }
    }

    fn check_stone(
        &self,
        seq: u64,
        side: Side,
        point: Point,
        size: Option<u8>,
        board: &Board,
        step: Step,
    ) -> Result<(), Box<Ruling>> {
        let stone = board.to_move();
        let nth = ordinal(board.count() + 1);
        if stone_of(side) != Some(stone) {
            return Err(self.void(
                seq,
                side,
                format!(
                    "{} placed a stone at {point} at event {seq}, but the {nth} stone is {}",
                    name(side),
                    name(Side::from(stone))
                ),
                Some(step),
                vec![seq],
            ));
        }
        if let Some(size) = size.filter(|&size| !within(point, size)) {
            let place = match size {
                1 => format!("on the centre {}", Point::CENTRE),
                _ => format!("within the {size}x{size} square {}", square_name(size)),
            };
            return Err(self.void(
                seq,
                side,
                format!(
                    "{} placed the {nth} stone at {point} at event {seq}, but it goes {place} \
                     ({point} is outside it; renju 7.2)",
                    name(side)
                ),
                Some(step),
                vec![seq],
            ));
        }
        Ok(())
    }

    fn check_offers(
        &self,
        seq: u64,
        side: Side,
        points: &[Point],
        count: Option<u32>,
        board: &Board,
        step: Step,
    ) -> Result<(), Box<Ruling>> {
        let mut evidence = vec![seq];
        if side != Side::First {
            return Err(self.void(
                seq,
                side,
                format!(
                    "{} offered {} at event {seq}, but the fifth-move offers are black's",
                    name(side),
                    names(points)
                ),
                Some(step),
                evidence,
            ));
        }
        let (wanted, why) = match (count, self.declared) {
            (Some(n), _) => (n, format!("{} asks for {n}", self.rule)),
            (None, Some((n, at))) => {
                evidence.insert(0, at);
                (n, format!("{n} were declared at event {at}"))
            }
            (None, None) => (0, "none were declared".to_string()),
        };
        if usize::try_from(wanted).ok() != Some(points.len()) {
            let many = if points.len() > wanted as usize {
                "too many"
            } else {
                "too few"
            };
            return Err(self.void(
                seq,
                side,
                format!(
                    "black offered {} fifth move{} at event {seq} ({}), {many}: {why}",
                    points.len(),
                    if points.len() == 1 { "" } else { "s" },
                    names(points)
                ),
                Some(step),
                evidence,
            ));
        }
        if let Some(&taken) = points.iter().find(|p| board.stone(**p).is_some()) {
            return Err(self.void(
                seq,
                side,
                format!(
                    "black offered {taken} at event {seq}, but {taken} already holds a stone: \
                     an offer goes on an empty point"
                ),
                Some(step),
                evidence,
            ));
        }
        let stones = board_stones(board);
        let of = |colour: Stone| -> Vec<Point> {
            (stones.iter())
                .filter(|(_, s)| *s == colour)
                .map(|(p, _)| *p)
                .collect()
        };
        let (blacks, whites) = (of(Stone::Black), of(Stone::White));
        for (i, &a) in points.iter().enumerate() {
            for &b in &points[i + 1..] {
                if let Some(map) = symmetric(&blacks, &whites, a, b) {
                    return Err(self.void(
                        seq,
                        side,
                        format!(
                            "black's offers {a} and {b} at event {seq} are symmetric: {} \
                             takes the black stones ({}) onto the black stones, the \
                             white ({}) onto the white, and {a} onto {b}, so the two are one \
                             move offered twice (renju 7.5: \"the 5th moves can not be \
                             symmetrical in any aspect of the position\")",
                            map,
                            names(&blacks),
                            names(&whites)
                        ),
                        Some(step),
                        evidence,
                    ));
                }
            }
        }
        Ok(())
    }

    /// A step of another kind than the one due.
    fn wrong_step(&self, seq: u64, side: Side, act: Act<'_>, board: &Board) -> Box<Ruling> {
        let step = self.script[self.next];
        self.wrong_step_at(seq, side, act, board, step)
    }

    fn wrong_step_at(
        &self,
        seq: u64,
        side: Side,
        act: Act<'_>,
        board: &Board,
        step: Step,
    ) -> Box<Ruling> {
        let what = match act {
            Act::Stone(point) => format!("placed a stone at {point}"),
            Act::Swap => "asked to swap".to_string(),
            Act::Declare(n) => format!("declared {n} fifth moves"),
            Act::Offer(points) => format!("offered {}", names(points)),
            Act::Choose(point) => format!("chose {point}"),
        };
        let who = match act {
            Act::Swap => format!("the player holding {}", name(side)),
            _ => name(side).to_string(),
        };
        self.void(
            seq,
            side,
            format!(
                "{who} {what} at event {seq}, but the step due is {}",
                self.describe(step, board)
            ),
            Some(step),
            vec![seq],
        )
    }

    /// The step due, in words.
    fn due(&self, board: &Board) -> String {
        match self.script.get(self.next) {
            Some(Step::SwapPoint) => {
                let mut due = format!(
                    "a swap by the player holding {}",
                    name(Side::from(board.to_move()))
                );
                match self.script.get(self.next + 1) {
                    Some(&next) => {
                        due.push_str(", or ");
                        due.push_str(&self.describe(next, board));
                    }
                    None => due.push_str(&format!(
                        ", or {}'s next stone anywhere",
                        name(Side::from(board.to_move()))
                    )),
                }
                due
            }
            Some(&step) => self.describe(step, board),
            None => "nothing: the opening is over".into(),
        }
    }

    fn describe(&self, step: Step, board: &Board) -> String {
        let to_move = name(Side::from(board.to_move()));
        let nth = ordinal(board.count() + 1);
        match step {
            Step::Stone(Some(1)) => format!("{to_move}'s {nth} stone on {}", Point::CENTRE),
            Step::Stone(Some(size)) => format!(
                "{to_move}'s {nth} stone within the {size}x{size} square {}",
                square_name(size)
            ),
            Step::Stone(None) => format!("{to_move}'s {nth} stone anywhere"),
            Step::SwapPoint => format!("a swap by the player holding {to_move}"),
            Step::Declare(bound) => {
                let range = bound.map_or_else(|| "at least 1".into(), |n| format!("1 to {n}"));
                format!(
                    "{}'s declaration of the number of fifth moves ({range})",
                    name(Side::from(board.to_move().other()))
                )
            }
            Step::Offers(count) => {
                let n = count.or(self.declared.map(|(n, _)| n)).unwrap_or(0);
                format!("black's {n} fifth-move offers, all at once")
            }
            Step::Choose => {
                let offers = (self.offered.as_ref())
                    .map_or_else(String::new, |(p, at)| format!(" {} (event {at})", names(p)));
                format!("white's choice among black's offers{offers}")
            }
            Step::Fifth(n) => format!(
                "a swap by the player holding black, black's fifth stone within the 9x9 square \
                 {}, or black's {n} fifth-move offers",
                square_name(9)
            ),
        }
    }

    /// The ruling that voids a faulty step (7.10), quoting the rule's text for `step`.
    fn void(
        &self,
        seq: u64,
        side: Side,
        what: String,
        step: Option<Step>,
        evidence: Vec<u64>,
    ) -> Box<Ruling> {
        let text = match step {
            Some(step) => format!(
                "{what}. {} ({}): \"{}\". The step is void: the position stays as it was, the \
                 clock of the player to act runs on, and the step is made again (renju 7.10)",
                self.title(),
                self.article_number(),
                self.quote(step)
            ),
            None => format!(
                "{what} (renju 7.5: \"With the 5th move the special opening rules for the moves \
                 are ended\"). The step is void and the game goes on as it stands (renju 7.10)"
            ),
        };
        Box::new(Ruling {
            at: seq,
            kind: RulingKind::IllegalMove,
            side: Some(side),
            effect: Effect::CorrectionRequired,
            result: None,
            article: self.article(),
            text,
            evidence,
            reason: Reason::Plain,
            event: None,
        })
    }

    /// The rule's name as its texts write it.
    fn title(&self) -> String {
        match self.rule {
            OpeningRule::Centre => "Seed 002's opening".into(),
            OpeningRule::Rif => "The RIF opening rule".into(),
            OpeningRule::Yamaguchi => "The Yamaguchi rule".into(),
            OpeningRule::Taraguchi(n) => format!("The Taraguchi-{n} rule"),
            OpeningRule::Soosorv(n) => format!("The Soosõrv-{n} rule"),
        }
    }

    fn article(&self) -> Article {
        Article::Renju(match self.rule {
            OpeningRule::Centre => "1.3",
            OpeningRule::Rif => "7.6, 7.10",
            OpeningRule::Yamaguchi => "7.7, 7.10",
            OpeningRule::Taraguchi(_) => "7.8, 7.10",
            OpeningRule::Soosorv(_) => "7.9, 7.10",
        })
    }

    fn article_number(&self) -> String {
        let article = self.article().to_string();
        article
            .split(',')
            .next()
            .unwrap_or(article.as_str())
            .to_string()
    }

    /// The words of the rule's text for `step` (docs/rules/renju.md 7.5-7.9).
    fn quote(&self, step: Step) -> &'static str {
        const SQUARES: &str = "the first stone is black and it is placed to the center of the \
             board ... the second stone which is white ... inside the 3x3 central square ... the \
             third stone ... black ... inside the 5x5 central square";
        const RIF_OFFERS: &str = "Black ... has to make two different proposals for 5th stone. \
             The proposals have to be unequal in all respects";
        const CHOOSE: &str = "The white player chooses one 5th from these offerings and plays \
             the 6th move";
        match (self.rule, step) {
            (OpeningRule::Rif, Step::Stone(Some(_))) => {
                "The tentative Black plays all the first three moves (two moves for black and \
                 one move for white i.e. he decides which of the 26 patterns that will be used)"
            }
            (OpeningRule::Rif, Step::SwapPoint) => {
                "The tentative White decides which of the players that will play as Black and \
                 as White in the game (White has the right to swap sides)"
            }
            (OpeningRule::Rif, Step::Stone(None)) => {
                "The now decided player being White makes the 4th move in an optional \
                 unoccupied intersection"
            }
            (OpeningRule::Rif, Step::Offers(_)) => RIF_OFFERS,
            (OpeningRule::Rif, _) => {
                "White has the right to choose one of the two proposals from Black to become the \
                 5th move of the game"
            }
            (OpeningRule::Yamaguchi, Step::Stone(Some(_)) | Step::Declare(_)) => {
                "The first player puts one of the 26 openings and declares how many 5th moves \
                 will be offered in that game"
            }
            (OpeningRule::Yamaguchi, Step::SwapPoint) => "The next player has a right to swap",
            (OpeningRule::Yamaguchi, Step::Stone(None)) => {
                "The white player puts the 4th move anywhere on board"
            }
            (OpeningRule::Yamaguchi, Step::Offers(_)) => {
                "The black player puts as many 5th moves on the board as it was declared before \
                 (symmetrical moves not allowed)"
            }
            (OpeningRule::Yamaguchi, _) => CHOOSE,
            (OpeningRule::Taraguchi(_), Step::Stone(Some(1))) => {
                "The black player puts the first move in the center of the board"
            }
            (OpeningRule::Taraguchi(_), Step::Stone(Some(3))) => {
                "The white player will put the 2nd move within 3x3 central square"
            }
            (OpeningRule::Taraguchi(_), Step::Stone(Some(5))) => {
                "The black player will put the 3rd move within 5x5 central square"
            }
            (OpeningRule::Taraguchi(_), Step::Stone(Some(7))) => {
                "The white player will put the 4th move within 7x7 central square"
            }
            (OpeningRule::Taraguchi(_), Step::Stone(_)) => {
                "The black player will put the 5th move within 9x9 central square"
            }
            (OpeningRule::Taraguchi(_), Step::SwapPoint) if self.next >= 7 => {
                "The choice 1 (after the 4th move): The other player may swap. The black player \
                 will put the 5th move within 9x9 central square. The other player may swap"
            }
            (OpeningRule::Taraguchi(_), Step::SwapPoint) => "The other player may swap",
            (OpeningRule::Taraguchi(_), Step::Offers(_)) => {
                "After the white player puts the 4th move, the black player can put N \
                 alternative 5th moves anywhere on the board"
            }
            (OpeningRule::Taraguchi(_), Step::Fifth(_)) => {
                "The choice 1 (after the 4th move): The other player may swap. The black player \
                 will put the 5th move within 9x9 central square ... After the white player puts \
                 the 4th move, the black player can put N alternative 5th moves anywhere on the \
                 board"
            }
            (OpeningRule::Taraguchi(_), _) => {
                "The white player chooses one of the offered 5th moves and plays the 6th move \
                 anywhere on board"
            }
            (OpeningRule::Soosorv(_), Step::Stone(Some(_))) => {
                "The first player puts one of the 26 openings"
            }
            (OpeningRule::Soosorv(_), Step::SwapPoint) if self.next <= 3 => {
                "The other player has the right to swap"
            }
            (OpeningRule::Soosorv(_), Step::SwapPoint) => "The other player has a right to swap",
            (OpeningRule::Soosorv(_), Step::Stone(None) | Step::Declare(_)) => {
                "The white player puts the 4th move anywhere on board and declares whether there \
                 will be 1, 2, 3 or 4 fifth moves offered in the game ... the number has to be \
                 not less than 1 and not greater than N"
            }
            (OpeningRule::Soosorv(_), Step::Offers(_)) => {
                "The black player puts as many 5th moves on the board as it was declared before. \
                 The fifth moves can not be symmetrical"
            }
            (OpeningRule::Soosorv(_), _) => CHOOSE,
            (OpeningRule::Centre, _) => SQUARES,
        }
    }
}

/// The stones on the board with their colours.
fn board_stones(board: &Board) -> Vec<(Point, Stone)> {
    Point::all()
        .filter_map(|p| board.stone(p).map(|s| (p, s)))
        .collect()
}

fn names(points: &[Point]) -> String {
    let names: Vec<String> = points.iter().map(Point::to_string).collect();
    names.join(" ")
}

fn seqs(seqs: &[u64]) -> String {
    let seqs: Vec<String> = seqs.iter().map(u64::to_string).collect();
    seqs.join(", ")
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        6 => "sixth".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step of a test game: who, and what.
    type Play = (Side, Act<'static>);

    fn p(name: &str) -> Point {
        Point::parse(name).expect("a point")
    }

    const B: Side = Side::First;
    const W: Side = Side::Second;

    /// A correct opening under each rule, to the sixth stone.
    fn openings() -> Vec<(OpeningRule, Vec<Play>)> {
        let offers: &'static [Point] = Box::leak(Box::new([p("g7"), p("j11")]));
        let ten: &'static [Point] = Box::leak(
            [
                "i11", "j11", "k11", "l11", "m11", "i12", "j12", "k12", "l12", "m12",
            ]
            .map(p)
            .to_vec()
            .into_boxed_slice(),
        );
        let three = || {
            vec![
                (B, Act::Stone(p("h8"))),
                (W, Act::Stone(p("h9"))),
                (B, Act::Stone(p("h10"))),
            ]
        };
        let mut rif = three();
        rif.extend([
            (W, Act::Swap),
            (W, Act::Stone(p("h6"))),
            (B, Act::Offer(offers)),
            (W, Act::Choose(p("j11"))),
            (W, Act::Stone(p("a1"))),
        ]);
        let mut yamaguchi = three();
        yamaguchi.extend([
            (B, Act::Declare(2)),
            (W, Act::Stone(p("h6"))),
            (B, Act::Offer(offers)),
            (W, Act::Choose(p("g7"))),
            (W, Act::Stone(p("a1"))),
        ]);
        let taraguchi = vec![
            (B, Act::Stone(p("h8"))),
            (W, Act::Swap),
            (W, Act::Stone(p("h9"))),
            (B, Act::Stone(p("h10"))),
            (W, Act::Swap),
            (W, Act::Stone(p("h6"))),
            (B, Act::Offer(ten)),
            (W, Act::Choose(p("m12"))),
            (W, Act::Stone(p("a1"))),
        ];
        let mut soosorv = three();
        soosorv.extend([
            (W, Act::Stone(p("h6"))),
            (W, Act::Declare(2)),
            (B, Act::Swap),
            (B, Act::Offer(offers)),
            (W, Act::Choose(p("j11"))),
            (W, Act::Stone(p("a1"))),
        ]);
        vec![
            (OpeningRule::Rif, rif),
            (OpeningRule::Yamaguchi, yamaguchi),
            (OpeningRule::Taraguchi(10), taraguchi),
            (OpeningRule::Soosorv(8), soosorv),
        ]
    }

    /// Applies an accepted step to the board as the table does.
    fn place(board: &mut Board, outcome: &Outcome, act: Act<'_>) {
        match (outcome, act) {
            (Outcome::Place, Act::Stone(point)) | (&Outcome::Chosen { point, .. }, _) => {
                board.play(point).expect("empty");
            }
            _ => {}
        }
    }

    /// Wrong steps to try anywhere: each kind, by each side.
    fn wrong_acts() -> Vec<Play> {
        let one: &'static [Point] = Box::leak(Box::new([p("o15")]));
        let mut acts = Vec::new();
        for side in [B, W] {
            acts.extend([
                (side, Act::Swap),
                (side, Act::Declare(9)),
                (side, Act::Offer(one)),
                (side, Act::Choose(p("o15"))),
                (side, Act::Stone(p("o1"))),
            ]);
        }
        acts
    }

    #[test]
    fn each_rule_takes_its_correct_opening_and_ends_it() {
        for (rule, plays) in openings() {
            let mut opening = Opening::new(rule).expect("a RIF rule");
            let mut board = Board::new();
            for (seq, (side, act)) in (1..).zip(&plays) {
                let outcome = (opening.step(seq, *side, *act, &board))
                    .unwrap_or_else(|r| panic!("{rule}: event {seq}: {}", r.text));
                place(&mut board, &outcome, *act);
            }
            assert!(!opening.in_progress(), "{rule}: the opening is over");
            assert_eq!(board.count(), 6, "{rule}: six stones stand");
        }
    }

    /// Every wrong step at every point of every rule is void and changes nothing: the state
    /// reads the same, and the correct step is still taken after it.
    #[test]
    fn a_void_step_changes_nothing() {
        for (rule, plays) in openings() {
            let mut opening = Opening::new(rule).expect("a RIF rule");
            let mut board = Board::new();
            for (seq, (side, act)) in (1..).zip(&plays) {
                for (wrong_side, wrong) in wrong_acts() {
                    let before = opening.status(&board);
                    let mut trial = opening.clone();
                    match trial.step(seq, wrong_side, wrong, &board) {
                        Err(ruling) => {
                            assert_eq!(trial.status(&board), before, "{rule} {seq}: {wrong:?}");
                            assert_eq!(ruling.effect, Effect::CorrectionRequired);
                            assert!(ruling.text.contains("void"), "{}", ruling.text);
                        }
                        // What a rule may allow here of these: a stone after the opening, a
                        // swap where one may be made, Yamaguchi's declaration of 9.
                        Ok(_) => assert!(
                            matches!(wrong, Act::Stone(_) | Act::Swap)
                                || (rule == OpeningRule::Yamaguchi
                                    && matches!(wrong, Act::Declare(9))),
                            "{rule} {seq}: {wrong_side:?} {wrong:?} accepted"
                        ),
                    }
                }
                let outcome = (opening.step(seq, *side, *act, &board))
                    .unwrap_or_else(|r| panic!("{rule}: event {seq}: {}", r.text));
                place(&mut board, &outcome, *act);
            }
        }
    }

    #[test]
    fn swaps_move_the_players_and_a_second_swap_at_one_point_is_void() {
        let mut opening = Opening::new(OpeningRule::Taraguchi(10)).expect("rule");
        let mut board = Board::new();
        opening.step(1, B, Act::Stone(p("h8")), &board).expect("h8");
        board.play(p("h8")).expect("empty");
        assert!(!opening.swapped());
        opening
            .step(2, W, Act::Swap, &board)
            .expect("white may swap");
        assert!(opening.swapped());
        let again = opening
            .step(3, W, Act::Swap, &board)
            .expect_err("one swap per point");
        assert!(again.text.contains("the step due is"), "{}", again.text);
        opening.step(4, W, Act::Stone(p("i9")), &board).expect("i9");
        board.play(p("i9")).expect("empty");
        opening
            .step(5, B, Act::Swap, &board)
            .expect("black may swap");
        assert!(
            !opening.swapped(),
            "two swaps: the players hold their first colours"
        );
    }
}
