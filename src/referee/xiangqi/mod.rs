//! The xiangqi table: moves checked against the movement rules (CXA chapters 1-3), the
//! game ends they cause (xiangqi 3.1 checkmate, 3.2 stalemate, 4.1 illegal move), the draws
//! of 4.2 (natural move limit, simple drawn material) and the 棋例 judgment of repeated
//! cycles (25-28).

mod claims;
mod classify;
mod judgment;
mod material;
mod move_limit;
mod policy;
mod repetition;
mod standing;
mod verdict;

use crate::event::{Header, Procedure, RuleSet, Side};
use crate::games::Variant;
use crate::games::xiangqi::{Color, Illegal, Move, Position, Square, Status};
use crate::referee::Article;
use crate::referee::table::{Kind, Played, Positioned};

use self::judgment::{Judgment, judge_cycle, move_words};
use self::move_limit::{MoveLimit, count_words};
use self::repetition::{History, Ply};
use self::standing::{DrawnCycle, Order, Standing};
use self::verdict::Verdict;
use super::ruling::Effect;
use super::{Ruling, RulingKind, SetupError};

/// The xiangqi part of a referee: the position, the moves since the last capture, and the
/// rule-set options that decide when a draw or a cycle is ruled.
#[derive(Clone, Debug)]
pub struct XiangqiTable {
    position: Position,
    /// Boxed to keep the referee's table enum small: positions live on the heap anyway.
    history: Box<History>,
    /// The last capture, for the move-limit text.
    last_capture: Option<LastCapture>,
    /// Single moves without capture the start FEN counted already.
    start_clock: u32,
    limit: MoveLimit,
    /// The occurrence of a repeated position at which its cycle is judged.
    repetition_count: u32,
    /// Whether cycles are judged unasked (CXA) or only on a claim (reform, seed 001).
    automatic_cycles: bool,
    /// Whether a CXA verdict on a cycle or the limit ends the game at once (`automatic`) or
    /// is carried out by an order to vary, a claim or the arbiter (`arbiter`, the default).
    procedure: Procedure,
    /// Under the arbiter procedure: the order to vary and the claimable draws that stand.
    standing: Box<Standing>,
}

/// The last capture: its seq, and the move with the position it was played in, from which
/// its words are written when a ruling needs them.
#[derive(Clone, Debug)]
struct LastCapture {
    seq: u64,
    mv: Move,
    /// Boxed, and overwritten in place by the next capture.
    before: Box<Position>,
}

/// CXA 4.2: a cycle repeated three times; the reform of seed 001 waits for six (待判局面).
const CXA_REPETITIONS: u32 = 3;
const REFORM_REPETITIONS: u32 = 6;

impl XiangqiTable {
    pub fn new(header: &Header) -> Result<XiangqiTable, SetupError> {
        let position = super::start_position::<Position>(header)?;
        let reform = header.rules.rule_set == Some(RuleSet::Reform);
        let default_count = if reform {
            REFORM_REPETITIONS
        } else {
            CXA_REPETITIONS
        };
        Ok(XiangqiTable {
            history: Box::new(History::new(&position)),
            last_capture: None,
            start_clock: position.halfmove_clock(),
            position,
            limit: MoveLimit::from_header(header),
            // A position "repeated" once is just the position: two is the least that means.
            repetition_count: header
                .rules
                .repetition_count
                .unwrap_or(default_count)
                .max(2),
            automatic_cycles: !reform,
            procedure: header.rules.procedure.unwrap_or(Procedure::Arbiter),
            standing: Box::default(),
        })
    }

    /// The orders to vary and claimable draws that stand, in words (see `standing`).
    pub fn open_conditions(&self) -> Vec<String> {
        let key = self.position.repetition_key();
        let on_cycle = self
            .standing
            .drawn
            .as_ref()
            .is_some_and(|d| d.positions.contains(&key));
        self.standing.describe(on_cycle)
    }

    /// A move in Chinese notation with its ICCS squares and WXF (`炮二平五 h2e2 C2=5`), in
    /// the current position; `None` for other events and for moves the rules do not allow.
    pub fn describe_event(&self, played: &Played<Square>) -> Option<String> {
        let Kind::Move { from, to, .. } = played.kind else {
            return None;
        };
        let mv = self.position.check_move(from, to).ok()?;
        let chinese = self.position.to_chinese(mv)?;
        let wxf = self.position.to_wxf(mv)?;
        Some(format!("{chinese} {mv} {wxf}"))
    }

    pub fn apply(&mut self, seq: u64, played: &Played<Square>) -> Vec<Ruling> {
        if let Kind::Move { from, to, .. } = played.kind {
            return self.on_move(seq, played.side, from, to);
        }
        match played.claim() {
            Some(claim) => self.on_claim(seq, played.side, claim),
            None => Vec::new(),
        }
    }

    fn on_move(&mut self, seq: u64, side: Side, from: Square, to: Square) -> Vec<Ruling> {
        // Formatted only for a ruling: most moves are legal and need no text. ICCS, as the
        // cycle texts and the scoresheet write moves.
        let played = || format!("{from}{to}");
        if self.position.piece_at(from).is_none() {
            return vec![self.empty_square(seq, side, from, &played())];
        }
        let to_move = self.side_to_move();
        if side != to_move {
            return vec![self.out_of_turn(seq, side, &played())];
        }
        match self.position.check_move(from, to) {
            Ok(mv) => self.play(seq, side, mv),
            Err(Illegal::EmptySquare { .. }) => vec![self.empty_square(seq, side, from, &played())],
            Err(why) => vec![self.illegal(seq, side, &played(), &why)],
        }
    }

    fn play(&mut self, seq: u64, side: Side, mv: Move) -> Vec<Ruling> {
        if self.position.piece_at(mv.to).is_some() {
            self.note_capture(seq, mv);
        }
        let mover = self.position.side_to_move();
        let captured = self.position.play(mv).is_some();
        if captured {
            self.standing.capture();
        }
        self.history
            .record(Ply { seq, mover, mv }, &self.position, captured);
        match self.position.status() {
            Status::Ongoing => self.draws_after_move(seq),
            Status::Checkmate => vec![self.checkmate(seq, side, mv)],
            Status::Stalemate => vec![self.stalemate(seq, side, mv)],
        }
    }

    /// The game ends that a quiet position can bring: material, a judged cycle, the limit.
    fn draws_after_move(&mut self, seq: u64) -> Vec<Ruling> {
        if material::neither_can_win(&self.position) {
            return vec![self.insufficient_material(seq, None)];
        }
        let mut out = Vec::new();
        if self.automatic_cycles && self.procedure == Procedure::Automatic {
            if let Some(judgment) = self.judgment(self.repetition_count) {
                return vec![self.cycle_ruling(seq, &judgment, None)];
            }
        } else if self.automatic_cycles {
            out.extend(self.cycle_before_the_arbiter(seq));
            if out.iter().any(|r| r.result.is_some()) {
                return out;
            }
        } else if let Some(cycle) = self.history.cycle()
            && cycle.occurrence == self.repetition_count
        {
            return vec![self.awaiting_judgment(seq, cycle.occurrence)];
        }
        if self.limit.reached(&self.position) {
            if self.limit.automatic {
                out.push(self.move_limit(seq, None));
            } else if self.standing.limit.is_none() {
                self.standing.limit = Some(seq);
                out.push(self.limit_claimable(seq));
            }
        }
        out
    }

    /// The CXA cycle under the arbiter procedure: at the set count a forbidden cycle gives
    /// an order to vary and a drawn one a claimable draw; after an order, the judged
    /// position's next occurrence shows whether the side varied (see `standing`).
    fn cycle_before_the_arbiter(&mut self, seq: u64) -> Option<Ruling> {
        let cycle = self.history.cycle()?;
        let key = self.position.repetition_key();
        if let Some(order) = self.standing.order.clone()
            && order.position == key
        {
            return self.not_varied(seq, &order);
        }
        if cycle.occurrence < self.repetition_count || self.standing.judged.contains(&key) {
            return None;
        }
        let judgment = judge_cycle(&self.history, &cycle);
        let positions = self.history.keys_since(cycle.start);
        self.standing.judged.extend(positions.iter().cloned());
        Some(match judgment.verdict {
            Verdict::Loss { loser, check } => {
                self.standing.order = Some(Order {
                    seq,
                    side: loser,
                    check,
                    position: key,
                });
                self.order_to_vary(seq, &judgment, None)
            }
            Verdict::Draw { article } => {
                self.standing.drawn = Some(DrawnCycle {
                    seq,
                    article,
                    positions,
                });
                self.drawn_claimable(seq, &judgment)
            }
        })
    }

    /// The judged position is back after an order to vary: the side loses if its moves in
    /// the last turn of the cycle are still forbidden (应当变着而不变, xiangqi 4.1).
    fn not_varied(&self, seq: u64, order: &Order) -> Option<Ruling> {
        let turn = self.history.last_loop()?;
        let judgment = judge_cycle(&self.history, &turn);
        let Verdict::Loss { loser, .. } = judgment.verdict else {
            return None;
        };
        (loser == order.side).then(|| self.not_varied_ruling(seq, order, &judgment))
    }

    fn not_varied_ruling(&self, seq: u64, order: &Order, j: &Judgment) -> Ruling {
        let (kind, rule, what) = forbidden_article(order.check);
        let side = order.side.name();
        let text = format!(
            "{side} was ordered at event {} to vary ({what}, {rule}). The position judged then \
             has come back after the move at event {seq} ({} times in all), and {side}'s moves \
             since its previous occurrence are still forbidden: {}. {}: 走棋违犯禁例，应当变着而不变 \
             ({side} broke the prohibition when it had to vary and did not), {side} loses \
             (xiangqi 4.1, {rule})",
            order.seq,
            j.occurrence,
            j.moves.join("; "),
            conduct_words(j)
        );
        let mut evidence = vec![order.seq];
        evidence.extend(j.evidence.iter().copied());
        Ruling::loss(seq, kind, side_of(order.side), rule, text).with_evidence(evidence)
    }

    /// The order to vary (26.1, 26.4 under the arbiter procedure): no result yet.
    fn order_to_vary(&self, seq: u64, j: &Judgment, claimant: Option<Side>) -> Ruling {
        let Verdict::Loss { loser, check } = j.verdict else {
            return self.cycle_ruling(seq, j, claimant);
        };
        let (kind, rule, what) = forbidden_article(check);
        let side = loser.name();
        let text = format!(
            "{}: {what}, so {side} must vary (应当变着, {rule}); the game goes on. If this \
             position comes back with {side}'s moves since its previous occurrence still \
             forbidden, {side} loses for not varying (走棋违犯禁例，应当变着而不变, xiangqi 4.1)",
            self.cycle_head(seq, j, claimant)
        );
        let mut ruling = Ruling::notice(seq, kind, Some(side_of(loser)), rule, text);
        ruling.effect = Effect::MustVary;
        ruling.with_evidence(cycle_evidence(seq, j, claimant))
    }

    /// A drawn cycle under the arbiter procedure (26.2, 26.3): claimable, no result yet.
    fn drawn_claimable(&self, seq: u64, j: &Judgment) -> Ruling {
        let Verdict::Draw { article } = j.verdict else {
            return self.cycle_ruling(seq, j, None);
        };
        let text = format!(
            "{}: the cycle is a draw ({article}). Either side may claim the draw while the \
             position on the board is one of the cycle's, or the arbiter may declare it \
             (xiangqi 4.2); the game goes on",
            self.cycle_head(seq, j, None)
        );
        let mut ruling = Ruling::notice(seq, RulingKind::Repetition, None, article, text);
        ruling.effect = Effect::DrawClaimable;
        ruling.with_evidence(j.evidence.clone())
    }

    /// The natural limit reached where it is drawn only on a claim (xiangqi 4.2).
    fn limit_claimable(&self, seq: u64) -> Ruling {
        let (since, mut evidence) = self.since_last_capture();
        evidence.push(seq);
        let text = format!(
            "since {since}, {} have been played without a capture up to event {seq}: the \
             natural move limit of {} moves by each side is reached. Either side may claim the \
             draw (an untrue claim is a foul), or the arbiter may declare it (xiangqi 4.2); the \
             game goes on until then",
            count_words(self.position.halfmove_clock()),
            self.limit.moves
        );
        let mut ruling = Ruling::notice(
            seq,
            RulingKind::MoveLimit,
            None,
            Article::Xiangqi("4.2"),
            text,
        );
        ruling.effect = Effect::DrawClaimable;
        ruling.with_evidence(evidence)
    }

    /// The reform's 待判局面 (seed 001): the cycle has repeated the set number of times; the
    /// clock is stopped and the players told that they may agree a draw or raise the claim
    /// card. A notice (effect none): nothing is decided yet.
    fn awaiting_judgment(&self, seq: u64, occurrence: u32) -> Ruling {
        let text = format!(
            "the position after the move at event {seq} has occurred {occurrence} times with the same side to move: a position awaiting judgment (待判局面) under the reform rule set. The players may agree a draw (议和), or either may raise the claim card (请裁) for the arbiters' judgment"
        );
        Ruling::notice(
            seq,
            RulingKind::Repetition,
            None,
            Article::Xiangqi("reform (seed 001) 待判局面"),
            text,
        )
    }

    /// The judgment of the cycle the current position closes, once it has occurred `count`
    /// times.
    fn judgment(&self, count: u32) -> Option<Judgment> {
        let cycle = self.history.cycle()?;
        (cycle.occurrence >= count).then(|| judge_cycle(&self.history, &cycle))
    }

    fn insufficient_material(&self, seq: u64, claimant: Option<Side>) -> Ruling {
        let text = format!(
            "{}after event {seq} neither side has a chariot, horse, cannon or soldier left \
             (board {}): no piece can cross the river, neither side can possibly win, draw \
             (xiangqi 4.2)",
            claim_words(claimant, "insufficient material"),
            material::pieces_left(&self.position)
        );
        Ruling::draw(
            seq,
            RulingKind::InsufficientMaterial,
            Article::Xiangqi("4.2"),
            text,
        )
    }

    fn move_limit(&self, seq: u64, claimant: Option<Side>) -> Ruling {
        let plies = self.position.halfmove_clock();
        let (since, mut evidence) = self.since_last_capture();
        evidence.push(seq);
        let text = format!(
            "{}since {since}, {} have been played without a capture up to event {seq}: the \
             natural move limit of {} moves by each side is reached, draw (xiangqi 4.2)",
            claim_words(claimant, "the natural move limit"),
            count_words(plies),
            self.limit.moves
        );
        Ruling::draw(seq, RulingKind::MoveLimit, Article::Xiangqi("4.2"), text)
            .with_evidence(evidence)
    }

    /// Keeps the capture `mv` about to be played at `seq` and the position before it. Its
    /// words are written only if a ruling names it: notation for every capture would cost
    /// more than the rest of the move's bookkeeping.
    fn note_capture(&mut self, seq: u64, mv: Move) {
        match &mut self.last_capture {
            Some(last) => {
                last.seq = seq;
                last.mv = mv;
                Position::clone_from(&mut last.before, &self.position);
            }
            None => {
                self.last_capture = Some(LastCapture {
                    seq,
                    mv,
                    before: Box::new(self.position.clone()),
                });
            }
        }
    }

    /// Where the count without capture starts, in words, and the seq of that capture.
    fn since_last_capture(&self) -> (String, Vec<u64>) {
        match &self.last_capture {
            Some(last) => (
                format!(
                    "the last capture, {} at event {}",
                    move_words(&last.before, last.mv),
                    last.seq
                ),
                vec![last.seq],
            ),
            None => (
                format!(
                    "the start position (whose FEN already counted {} single moves without a \
                     capture; no capture in this log)",
                    self.start_clock
                ),
                vec![],
            ),
        }
    }

    /// The cycle a ruling judges: where the position came back, the moves named, the conduct.
    fn cycle_head(&self, seq: u64, j: &Judgment, claimant: Option<Side>) -> String {
        let reached = j.evidence.last().copied().unwrap_or(seq);
        format!(
            "{}the position after the move at event {reached} has occurred {} times with the \
             same side to move; the moves since its first occurrence are: {}. {}",
            claim_words(claimant, "a cycle judgment"),
            j.occurrence,
            j.moves.join("; "),
            conduct_words(j)
        )
    }

    /// The ruling a judged cycle gives (xiangqi 26.1-26.4).
    fn cycle_ruling(&self, seq: u64, j: &Judgment, claimant: Option<Side>) -> Ruling {
        let head = self.cycle_head(seq, j, claimant);
        let ruling = match j.verdict {
            Verdict::Loss { loser, check } => {
                let (kind, rule, what) = forbidden_article(check);
                let text = format!(
                    "{head}: {what}, {} did not vary and loses ({rule})",
                    loser.name()
                );
                Ruling::loss(seq, kind, side_of(loser), rule, text)
            }
            Verdict::Draw { article } => {
                let text = format!("{head}: the cycle is a draw ({article})");
                Ruling::draw(seq, RulingKind::Repetition, article, text)
            }
        };
        ruling.with_evidence(cycle_evidence(seq, j, claimant))
    }

    /// A move number as the scoresheet counts it (one move = red's and black's).
    fn move_number(&self, side: Side) -> String {
        let n = self.position.fullmove_number();
        match side {
            Side::Second => format!("move {n}..."),
            _ => format!("move {n}"),
        }
    }

    fn empty_square(&self, seq: u64, side: Side, from: Square, played: &str) -> Ruling {
        let text = format!(
            "{} reported the move {played} at event {seq}, but there is no piece on {from} in \
             the position {}: the log and the board disagree and the arbiter must look",
            name(side),
            self.fen()
        );
        Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            Article::Xiangqi("1.2"),
            text,
        )
    }

    fn out_of_turn(&self, seq: u64, side: Side, played: &str) -> Ruling {
        let text = format!(
            "{} played {played} at event {seq}, but it was {}'s turn ({}): a move out of turn \
             is against the rules and loses (xiangqi 4.1)",
            name(side),
            name(side.opponent()),
            self.move_number(side.opponent())
        );
        Ruling::loss(
            seq,
            RulingKind::IllegalMove,
            side,
            Article::Xiangqi("4.1"),
            text,
        )
    }

    fn illegal(&self, seq: u64, side: Side, played: &str, why: &Illegal) -> Ruling {
        let text = format!(
            "{} ({}) played {played} at event {seq}: {why}. A move against the movement rules \
             loses (xiangqi 4.1)",
            name(side),
            self.move_number(side)
        );
        Ruling::loss(
            seq,
            RulingKind::IllegalMove,
            side,
            Article::Xiangqi("4.1"),
            text,
        )
    }

    fn checkmate(&self, seq: u64, winner: Side, mv: Move) -> Ruling {
        let loser = winner.opponent();
        let checkers: Vec<String> = self
            .position
            .checkers()
            .into_iter()
            .map(|sq| self.describe(sq))
            .collect();
        let text = format!(
            "after {}'s move {} at event {seq}, {}'s general is in check from {} and {} has \
             no legal move: checkmate, {} loses (xiangqi 3.1)",
            name(winner),
            mv,
            name(loser),
            checkers.join(" and "),
            name(loser),
            name(loser)
        );
        Ruling::loss(
            seq,
            RulingKind::Checkmate,
            loser,
            Article::Xiangqi("3.1"),
            text,
        )
    }

    fn stalemate(&self, seq: u64, winner: Side, mv: Move) -> Ruling {
        let loser = winner.opponent();
        let text = format!(
            "after {}'s move {} at event {seq}, {} is not in check but has no legal move \
             (position {}): stalemate (困毙) loses in xiangqi (xiangqi 3.2)",
            name(winner),
            mv,
            name(loser),
            self.fen()
        );
        Ruling::loss(
            seq,
            RulingKind::Stalemate,
            loser,
            Article::Xiangqi("3.2"),
            text,
        )
    }

    /// "red's chariot on h9".
    fn describe(&self, sq: Square) -> String {
        match self.position.piece_at(sq) {
            Some(p) => format!("{}'s {} on {sq}", p.color.name(), p.kind.name()),
            None => sq.to_string(),
        }
    }
}

/// The kind, article and words of a forbidden cycle: perpetual check (26.1) or another
/// forbidden cycle against allowed moves (26.4).
fn forbidden_article(check: bool) -> (RulingKind, Article, &'static str) {
    if check {
        (
            RulingKind::PerpetualCheck,
            Article::Xiangqi("26.1"),
            "a one-sided perpetual check is never allowed",
        )
    } else {
        (
            RulingKind::PerpetualChase,
            Article::Xiangqi("26.4"),
            "forbidden moves against allowed ones",
        )
    }
}

/// "red's conduct: ...; black's conduct: ..." of a judged cycle.
fn conduct_words(j: &Judgment) -> String {
    let mutual = if j.mutual_soldiers {
        " (both sides attack every move, so the soldiers' attacks count as chases: \
         相互长打, xiangqi 27.2)"
    } else {
        ""
    };
    format!(
        "red's conduct: {}; black's conduct: {}{mutual}",
        j.conduct[0].describe(),
        j.conduct[1].describe()
    )
}

/// The cycle's moves, and the claim's event when a claim asked for the judgment.
fn cycle_evidence(seq: u64, j: &Judgment, claimant: Option<Side>) -> Vec<u64> {
    let mut evidence = j.evidence.clone();
    if claimant.is_some() {
        evidence.push(seq);
    }
    evidence
}

fn side_of(color: Color) -> Side {
    match color {
        Color::Red => Side::First,
        Color::Black => Side::Second,
    }
}

/// "on red's claim of ...: " or nothing for a ruling the referee makes unasked.
fn claim_words(claimant: Option<Side>, what: &str) -> String {
    match claimant {
        Some(side) => format!("on {}'s claim of {what}: ", name(side)),
        None => String::new(),
    }
}

fn name(side: Side) -> &'static str {
    side.name(Variant::Xiangqi)
}
