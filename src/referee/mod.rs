//! The referee: a pure, deterministic fold of a game's events into its state and rulings.
//!
//! `replay(header, events)` and a live [`Referee`] fed one event at a time give the same
//! rulings by construction: replay *is* that fold. The service caches a `Referee` per live
//! game; it never stores a ruling as truth.

mod article;
pub mod board;
mod chess_gjq;
mod clock;
mod draughts;
mod fouls;
mod move_text;
mod offers;
mod renju;
mod ruling;
mod step;
mod table;
mod time_draws;
pub(crate) mod touch;
mod xiangqi;

pub use article::Article;
pub use clock::ClockTimes;
pub use move_text::move_text;
pub use ruling::{Effect, Reason, Ruling, RulingKind};
pub use step::{Step, clock_time, press};
pub use table::OpeningView;

use thiserror::Error;

use crate::event::{ClaimKind, Decision, Event, EventKind, GameResult, Header, Side};
use crate::games::Variant;
use crate::quote::quote;

use self::clock::Clock;
use self::fouls::FoulBook;
use self::offers::DrawOffers;
use self::table::Table;
use self::touch::TouchMove;

/// A header the referee cannot start a game from.
#[derive(Debug, Error, PartialEq)]
pub enum SetupError {
    /// The `start` FEN is not a valid position of the variant.
    #[error("start position {} is not a valid {variant} FEN: {reason}", quote(fen))]
    BadStart {
        variant: Variant,
        fen: String,
        reason: String,
    },
}

/// The position the header starts from: its `start` FEN, or the game's start position.
/// Written once for every game over the games layer's [`Game`](crate::games::Game) trait.
fn start_position<G: crate::games::Game>(header: &Header) -> Result<G, SetupError> {
    G::start(header.start.as_deref()).map_err(|bad| SetupError::BadStart {
        variant: bad.variant,
        fen: header.start.clone().unwrap_or_default(),
        reason: bad.reason,
    })
}

/// How the game ended: the result and the seq of the ruling that gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub result: GameResult,
    pub at: u64,
}

/// A game being refereed: feed it events in log order with [`Referee::apply`].
#[derive(Clone, Debug)]
pub struct Referee {
    header: Header,
    table: Table,
    offers: DrawOffers,
    fouls: FoulBook,
    clock: Clock,
    /// Touch-move as the shared module judges it, for the games whose policy has it.
    touches: Option<TouchMove>,
    /// The side of each event so far (index seq - 1), to charge an arbiter's foul.
    sides: Vec<Side>,
    rulings: Vec<Ruling>,
    /// The `at` of each ruling the arbiter overturned, in the order overturned.
    overturned: Vec<u64>,
    ending: Option<Ending>,
    last_seq: u64,
    /// What an electronic board reported, from its first report (boxed: most logs have none).
    board: Option<Box<board::BoardWatch>>,
    /// The moves the event being applied made beyond its own words, with their words (see
    /// [`Step::made`]); taken by [`Referee::step`].
    made: Vec<(Event, String)>,
}

/// Replays a whole log: the referee after the last event, and every ruling in order.
pub fn replay(header: &Header, events: &[Event]) -> Result<Referee, SetupError> {
    let mut referee = Referee::new(header)?;
    for (seq, event) in (1..).zip(events) {
        referee.apply(seq, event);
    }
    Ok(referee)
}

impl Referee {
    /// A referee at the start of the game the header describes.
    pub fn new(header: &Header) -> Result<Referee, SetupError> {
        let table = Table::new(header)?;
        let policy = table.policy();
        let variant = header.variant;
        Ok(Referee {
            header: header.clone(),
            table,
            offers: DrawOffers::new(policy.offers, variant),
            fouls: FoulBook::new(header, &policy),
            clock: Clock::new(header, policy.clock),
            touches: policy.touch.map(|rule| TouchMove::new(rule, variant)),
            sides: Vec::new(),
            rulings: Vec::new(),
            overturned: Vec::new(),
            ending: None,
            last_seq: 0,
            board: None,
            made: Vec::new(),
        })
    }

    /// Applies the event with this seq and returns the rulings it gave rise to.
    ///
    /// Seqs must come in log order; events after the game's end give no further rulings.
    pub fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        debug_assert!(seq > self.last_seq, "seq {seq} after {}", self.last_seq);
        self.last_seq = seq;
        self.sides.push(event.side);
        self.made.clear();
        if let EventKind::Board { placement, device } = &event.kind {
            let out = self.board_report(seq, event, placement, device.as_deref());
            // An arbiter's foul naming this report charges the player it showed moving.
            if let Some(side) = out.iter().find_map(|r| {
                matches!(r.kind, RulingKind::BoardMove | RulingKind::BoardTouch)
                    .then_some(r.side)
                    .flatten()
            }) && let Some(last) = self.sides.last_mut()
            {
                *last = side;
            }
            return out;
        }
        // Each part records its own rulings, in the order they arise.
        let mut out = self.board_before(seq, event);
        out.extend(self.apply_event(seq, event));
        // The arbiter's `set`: the moves the arbiter finds were made, each judged as the
        // `move` event it is.
        if let EventKind::Arbiter {
            decision: Decision::Set,
            moves,
            ..
        } = &event.kind
        {
            for m in moves {
                self.note_made(m);
                out.extend(self.apply_event(seq, m));
            }
        }
        out
    }

    /// Applies one event (a logged one, or a move derived from a board's reports) and
    /// records its rulings.
    fn apply_event(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        if let Some(out) = self.table.after_end(seq, event) {
            self.rulings.extend(out.iter().cloned());
            return out;
        }
        if self.ending.is_some()
            && !matches!(
                event.kind,
                EventKind::Arbiter {
                    decision: Decision::Overturn,
                    ..
                }
            )
        {
            return Vec::new();
        }
        let mut new = self.judge(seq, event);
        self.forfeit_draws(&mut new);
        let limits: Vec<Ruling> = new.iter().filter_map(|r| self.fouls.count(r)).collect();
        new.extend(limits);
        for ruling in &new {
            if let (Some(result), None) = (ruling.result, self.ending) {
                self.ending = Some(Ending {
                    result,
                    at: ruling.at,
                });
            }
        }
        self.rulings.extend(new.iter().cloned());
        new
    }

    fn judge(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        let variant = self.header.variant;
        if let Some(ruling) = self.timed_claim(seq, event) {
            return vec![ruling];
        }
        match &event.kind {
            EventKind::Resign => vec![self.resignation(seq, event.side)],
            EventKind::DrawOffer => {
                let to_move = self.side_to_move();
                self.offers
                    .offer(seq, event.side, to_move)
                    .into_iter()
                    .collect()
            }
            EventKind::DrawReply { accept } => self
                .offers
                .reply(seq, event.side, *accept)
                .into_iter()
                .collect(),
            EventKind::Arbiter {
                decision,
                ruling,
                result,
                text,
                ..
            } => {
                let charged = self.charged_side(*decision, *ruling);
                if *decision == Decision::Overturn {
                    self.overturn(ruling.unwrap_or(0));
                }
                vec![arbiter(
                    variant,
                    seq,
                    *decision,
                    *ruling,
                    *result,
                    text.as_deref(),
                    charged,
                )]
            }
            EventKind::Claim {
                claim: ClaimKind::Flag,
            } => {
                vec![self.clock.claim_flag(seq, event.side, event.ts_ms)]
            }
            _ => {
                let mut out = Vec::new();
                match &event.kind {
                    EventKind::Move { from, to, .. } => {
                        self.offers.moved(event.side);
                        self.clock.moved(event.side);
                        out.extend(self.touch_move(seq, event.side, *from, *to));
                    }
                    EventKind::Place { .. } => {
                        self.offers.moved(event.side);
                        self.clock.moved(event.side);
                    }
                    EventKind::Touch {
                        square,
                        adjust: false,
                    } => {
                        out.extend(self.touch(seq, event.side, *square));
                    }
                    EventKind::Clock {
                        first_ms,
                        second_ms,
                    } => {
                        self.offers.pressed();
                        out =
                            self.clock
                                .press(seq, event.side, event.ts_ms, [*first_ms, *second_ms]);
                        if out.iter().any(|r| r.result.is_some()) {
                            return out;
                        }
                    }
                    _ => {}
                }
                out.extend(self.table.apply(seq, event));
                out
            }
        }
    }

    /// Writes down a move the event makes beyond its own words, from the position before it
    /// (a reveal adds to its move's words).
    fn note_made(&mut self, m: &Event) {
        let words = self
            .describe(m)
            .unwrap_or_else(|| step::plain_words(m, self.header.variant));
        match (&m.kind, self.made.last_mut()) {
            (EventKind::Reveal { .. }, Some((_, last))) => last.push_str(&words),
            _ => self.made.push((m.clone(), words)),
        }
    }

    /// A claim the table judges with the claimant's time left (draughts 8.1.3.1B).
    fn timed_claim(&self, seq: u64, event: &Event) -> Option<Ruling> {
        let EventKind::Claim { claim } = event.kind else {
            return None;
        };
        let left = self.clock.remaining_at(event.side, event.ts_ms);
        self.table.timed_claim(seq, event.side, claim, left)
    }

    /// A touch, judged by the shared touch-move rule where the game's policy has it.
    fn touch(&mut self, seq: u64, side: Side, square: crate::event::Square) -> Option<Ruling> {
        let to_move = self.side_to_move();
        let touches = self.touches.as_mut()?;
        let view = self.table.touch_view()?;
        touches.touch(seq, side, square, to_move, &view)
    }

    /// A move checked against the touches before it (by the player on move).
    fn touch_move(
        &mut self,
        seq: u64,
        side: Side,
        from: crate::event::Square,
        to: crate::event::Square,
    ) -> Option<Ruling> {
        // Most moves follow no binding touch: skip generating the view on the hot path.
        let binding = self.touches.as_ref().is_some_and(TouchMove::binding);
        if side != self.side_to_move() || !binding {
            return None;
        }
        let view = self.table.touch_view()?;
        self.touches.as_mut()?.moved(seq, side, from, to, &view)
    }

    /// An arbiter's `foul` is charged to the player of the event its `ruling` field names.
    fn charged_side(&self, decision: Decision, event: Option<u64>) -> Option<Side> {
        if decision != Decision::Foul {
            return None;
        }
        let index = usize::try_from(event?.checked_sub(1)?).ok()?;
        self.sides
            .get(index)
            .copied()
            .filter(|s| matches!(s, Side::First | Side::Second))
    }

    /// An overturned ruling no longer counts: its foul leaves the count and its result no
    /// longer ends the game (the game goes on from the position the referee holds).
    fn overturn(&mut self, at: u64) {
        self.overturned.push(at);
        self.fouls.overturn(at);
        if self.ending.is_some_and(|e| e.at == at) {
            self.ending = None;
        }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every ruling so far, in the order they arose.
    pub fn rulings(&self) -> &[Ruling] {
        &self.rulings
    }

    /// The seqs of the events whose rulings are in force, in order: every `at` a ruling has,
    /// but those the arbiter overturned (what an `uphold` or `overturn` may name).
    pub fn rulings_in_force(&self) -> Vec<u64> {
        let mut ats: Vec<u64> = (self.rulings.iter())
            .map(|r| r.at)
            .filter(|at| !self.overturned.contains(at))
            .collect();
        ats.sort_unstable();
        ats.dedup();
        ats
    }

    /// The result, once a ruling has ended the game.
    pub fn ending(&self) -> Option<Ending> {
        self.ending
    }

    /// Seq of the last event applied (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Both players' time after the last press and whose clock runs; `None` without a time
    /// control in the header.
    pub fn clock_times(&self) -> Option<ClockTimes> {
        self.clock.times()
    }

    /// In a game whose header sets no time control, the times the board's clock showed at
    /// the last presses and whose clock runs since (for the console); `None` otherwise.
    pub fn shown_clock_times(&self) -> Option<ClockTimes> {
        self.clock.shown_times()
    }

    /// The current position as FEN.
    pub fn fen(&self) -> String {
        self.table.fen()
    }

    /// How a scoresheet writes `event` in the current state, before it is applied: a move
    /// in the game's notation (chess_gjq 9.3 `暗马g1-f3`, xiangqi `炮二平五 h2-e2 C2=5`), or
    /// what a chess_gjq reveal adds to its move (`后`). `None` for other events, for moves the
    /// rules do not allow; draughts moves in PDN (`28x19`).
    pub fn describe(&self, event: &Event) -> Option<String> {
        self.table.describe(event)
    }

    /// Draughts: the start position and the moves that stand, in order (irregular moves the
    /// opponent accepted included, corrected ones left out); `None` for the other games.
    /// Whether the players hold the other colours than the header's tags gave them (renju
    /// after an odd number of swaps).
    pub fn players_swapped(&self) -> bool {
        self.table.players_swapped()
    }

    /// Renju under an opening rule: whether the colours are still tentative and the offers
    /// standing; `None` in other games and under `centre`.
    pub fn renju_opening(&self) -> Option<OpeningView> {
        self.table.renju_opening()
    }

    /// The player holding `side` now, as the header's tags name them: after a renju swap the
    /// tag of the other colour.
    pub fn player(&self, side: Side) -> Option<&str> {
        let side = match (self.players_swapped(), side) {
            (true, Side::First | Side::Second) => side.opponent(),
            _ => side,
        };
        self.header.player(side)
    }

    pub fn draughts_record(&self) -> Option<&crate::games::draughts::Record> {
        self.table.draughts_record()
    }

    /// What stands open and ends the game only on a later event: a xiangqi order to vary
    /// or a claimable draw (log format, "Draws and cycles the book leaves to a claim"), in
    /// words. Empty once the game has ended, and for the other games.
    pub fn open_conditions(&self) -> Vec<String> {
        match self.ending {
            None => {
                let mut open = self.table.open_conditions();
                open.extend(self.board_open());
                open
            }
            Some(_) => Vec::new(),
        }
    }

    /// The player whose move it is.
    pub fn side_to_move(&self) -> Side {
        self.table.side_to_move()
    }

    /// A player who resigns loses (the game's article: chess_gjq 5.4, xiangqi 4.1, draughts
    /// 12.2).
    fn resignation(&self, seq: u64, side: Side) -> Ruling {
        let rule = self.table.policy().resignation;
        let name = side.name(self.header.variant);
        let text = format!("{name} resigned at event {seq}; a player who resigns loses the game");
        Ruling::loss(seq, RulingKind::Resignation, side, rule, text)
    }
}

fn arbiter(
    variant: Variant,
    seq: u64,
    decision: Decision,
    ruling: Option<u64>,
    result: Option<GameResult>,
    text: Option<&str>,
    charged: Option<Side>,
) -> Ruling {
    let about = ruling
        .map(|r| format!(" on the ruling at event {r}"))
        .unwrap_or_default();
    let declared = match (decision, result) {
        (Decision::Declare, Some(r)) => format!(", declaring the result {r}"),
        _ => String::new(),
    };
    let words = text.map(|t| format!(": \"{t}\"")).unwrap_or_default();
    let text = format!("the arbiter's word at event {seq}: {decision}{about}{declared}{words}");
    let mut out = Ruling::notice(
        seq,
        RulingKind::ArbiterDecision,
        Some(Side::Arbiter),
        Article::Arbiter(variant),
        text,
    );
    if decision == Decision::Declare {
        out.result = result;
        out.effect = match result {
            Some(GameResult::Draw) => Effect::Draw,
            Some(_) => Effect::Loss,
            None => Effect::None,
        };
    }
    if let Some(r) = ruling {
        out.evidence = vec![r, seq];
    }
    if decision == Decision::Foul {
        out = charge(out, variant, charged, &words);
    }
    out
}

/// An arbiter's foul counts toward the foul limit of the player it is charged to; `words`
/// are the arbiter's own, as the ruling quotes them.
fn charge(mut out: Ruling, variant: Variant, charged: Option<Side>, words: &str) -> Ruling {
    let Some(side) = charged else {
        out.text
            .push_str("; no player's event is named in \"ruling\", so the foul cannot be charged");
        return out;
    };
    let name = side.name(variant);
    let during = out.evidence.first().copied().unwrap_or(out.at);
    let act = format!(
        "the arbiter charges {name} with a foul at event {} (during {name}'s event {during})",
        out.at
    );
    out.text = format!("{act}{words}");
    out.kind = RulingKind::Foul;
    out.side = Some(side);
    out.foul(act)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(side: Side, kind: EventKind) -> Event {
        Event {
            side,
            ts_ms: None,
            kind,
        }
    }

    #[test]
    fn an_arbiters_foul_quotes_the_arbiter_and_names_the_act_it_counts() {
        let mut referee = Referee::new(&Header::new(Variant::Xiangqi, "g")).expect("referee");
        referee.apply(1, &event(Side::First, EventKind::DrawOffer));
        let foul = EventKind::Arbiter {
            decision: Decision::Foul,
            ruling: Some(1),
            result: None,
            text: Some("hands: \"off\"".into()),
            moves: Vec::new(),
        };
        let ruling = referee.apply(2, &event(Side::Arbiter, foul)).remove(0);
        let act = "the arbiter charges red with a foul at event 2 (during red's event 1)";
        assert_eq!(ruling.text, format!("{act}: \"hands: \"off\"\""));
        assert_eq!(ruling.reason, Reason::Foul { act: act.into() });
        assert_eq!(
            (ruling.kind, ruling.side),
            (RulingKind::Foul, Some(Side::First))
        );
        assert_eq!(ruling.rule(), "xiangqi arbiter");
    }

    #[test]
    fn an_overturned_ruling_is_no_longer_in_force() {
        let mut referee = Referee::new(&Header::new(Variant::Xiangqi, "g")).expect("referee");
        referee.apply(1, &event(Side::First, EventKind::Resign));
        assert_eq!(referee.rulings_in_force(), vec![1]);
        let overturn = EventKind::Arbiter {
            decision: Decision::Overturn,
            ruling: Some(1),
            result: None,
            text: None,
            moves: Vec::new(),
        };
        referee.apply(2, &event(Side::Arbiter, overturn));
        assert_eq!(
            referee.rulings_in_force(),
            vec![2],
            "the overturn is a ruling"
        );
        assert_eq!(referee.ending(), None);
    }
}
