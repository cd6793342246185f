//! The referee: a pure, deterministic fold of a game's events into its state and rulings.
//!
//! `replay(header, events)` and a live [`Referee`] fed one event at a time give the same
//! rulings by construction: replay *is* that fold. The service caches a `Referee` per live
//! game; it never stores a ruling as truth.

mod chess_gjq;
mod clock;
mod draughts;
mod fouls;
mod offers;
mod ruling;
mod time_draws;
pub(crate) mod touch;
mod xiangqi;

pub use ruling::{Effect, Ruling, RulingKind};

use thiserror::Error;

use crate::event::{ClaimKind, Decision, Event, EventKind, GameResult, Header, Side};
use crate::games::Variant;
use crate::quote::quote;

use self::chess_gjq::ChessGjqTable;
use self::clock::Clock;
use self::draughts::DraughtsTable;
use self::fouls::FoulBook;
use self::offers::DrawOffers;
use self::touch::{TouchMove, View};
use self::xiangqi::XiangqiTable;

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

/// The game-specific part of the referee, one per variant (an enum, not a `Box<dyn>`).
#[derive(Clone, Debug)]
enum Table {
    ChessGjq(ChessGjqTable),
    Xiangqi(XiangqiTable),
    Draughts(DraughtsTable),
}

/// How the game ended: the result and the seq of the ruling that gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub result: GameResult,
    pub at: u64,
}

/// A binding draughts touch (5.11): who touched which movable piece, at which event.
#[derive(Clone, Copy, Debug)]
struct DraughtsTouch {
    side: Side,
    square: crate::games::draughts::Square,
    at: u64,
}

/// A game being refereed: feed it events in log order with [`Referee::apply`].
#[derive(Clone, Debug)]
pub struct Referee {
    header: Header,
    table: Table,
    offers: DrawOffers,
    fouls: FoulBook,
    clock: Clock,
    touches: TouchMove,
    /// Draughts 5.11: the movable piece the side to move touched (side, square, seq), until
    /// its move; and the last touch a move was judged against, re-armed if that move is
    /// voided by a demand for correction.
    draughts_touch: Option<DraughtsTouch>,
    draughts_touch_used: Option<DraughtsTouch>,
    /// The side of each event so far (index seq - 1), to charge an arbiter's foul.
    sides: Vec<Side>,
    rulings: Vec<Ruling>,
    ending: Option<Ending>,
    last_seq: u64,
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
        let table = match header.variant {
            Variant::ChessGjq => Table::ChessGjq(ChessGjqTable::new(header)?),
            Variant::Xiangqi => Table::Xiangqi(XiangqiTable::new(header)?),
            Variant::Draughts => Table::Draughts(DraughtsTable::new(header)?),
        };
        Ok(Referee {
            header: header.clone(),
            table,
            offers: DrawOffers::default(),
            fouls: FoulBook::new(header),
            clock: Clock::new(header),
            touches: TouchMove::default(),
            draughts_touch: None,
            draughts_touch_used: None,
            sides: Vec::new(),
            rulings: Vec::new(),
            ending: None,
            last_seq: 0,
        })
    }

    /// Applies the event with this seq and returns the rulings it gave rise to.
    ///
    /// Seqs must come in log order; events after the game's end give no further rulings.
    pub fn apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        debug_assert!(seq > self.last_seq, "seq {seq} after {}", self.last_seq);
        self.last_seq = seq;
        self.sides.push(event.side);
        if let Some(shuffle) = self.shuffle_event(seq, event) {
            self.rulings.extend(shuffle.iter().cloned());
            return shuffle;
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
        match &event.kind {
            EventKind::Resign => vec![resignation(variant, seq, event.side)],
            EventKind::DrawOffer => {
                let to_move = self.side_to_move();
                self.offers
                    .offer(variant, seq, event.side, to_move)
                    .into_iter()
                    .collect()
            }
            EventKind::DrawReply { accept } => self
                .offers
                .reply(variant, seq, event.side, *accept)
                .into_iter()
                .collect(),
            EventKind::Arbiter {
                decision,
                ruling,
                result,
                text,
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
            EventKind::Claim {
                claim: ClaimKind::InsufficientMaterial,
            } if variant == Variant::Draughts => {
                vec![self.judgment_claim(seq, event.side, event.ts_ms)]
            }
            _ => {
                let mut out = Vec::new();
                match &event.kind {
                    EventKind::Move { from, to, .. } => {
                        self.offers.moved(event.side);
                        self.clock.moved(event.side);
                        out.extend(self.touch_move(seq, event.side, *from, *to));
                    }
                    EventKind::Touch {
                        square,
                        adjust: false,
                    } => {
                        let to_move = self.side_to_move();
                        self.draughts_touched(seq, event.side, *square);
                        if let Some(view) = self.touch_view() {
                            out.extend(
                                self.touches
                                    .touch(variant, seq, event.side, *square, to_move, &view),
                            );
                        }
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
                out.extend(self.table_apply(seq, event));
                out
            }
        }
    }

    /// A chess_gjq shuffle commitment or opening (chess_gjq 3.1.4), judged even after the
    /// game's end because the set-up is opened after the game.
    fn shuffle_event(&mut self, seq: u64, event: &Event) -> Option<Vec<Ruling>> {
        match &mut self.table {
            Table::ChessGjq(t) => t.shuffle_event(seq, event),
            Table::Xiangqi(_) | Table::Draughts(_) => None,
        }
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
        if side != self.side_to_move() || !self.touches.binding() {
            return None;
        }
        let view = self.touch_view()?;
        self.touches
            .moved(self.header.variant, seq, side, from, to, &view)
    }

    /// What touch-move needs of the position, for the games whose table provides it.
    fn touch_view(&self) -> Option<View> {
        match &self.table {
            Table::Xiangqi(t) => Some(t.touch_view()),
            Table::ChessGjq(t) => Some(t.touch_view()),
            // Draughts touch-move (5.11) is an irregularity the opponent may have corrected,
            // so it belongs to the draughts table's correction procedure.
            Table::Draughts(_) => None,
        }
    }

    fn table_apply(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        match &mut self.table {
            Table::ChessGjq(t) => t.apply(seq, event),
            Table::Xiangqi(t) => t.apply(seq, event),
            Table::Draughts(t) => match &event.kind {
                EventKind::Move { .. } => {
                    let touch = self.draughts_touch.take();
                    self.draughts_touch_used = touch.filter(|t| t.side == event.side);
                    match self.draughts_touch_used {
                        Some(touch) => t.apply_after_touch(seq, event, touch.square, touch.at),
                        None => t.apply(seq, event),
                    }
                }
                EventKind::Claim {
                    claim: ClaimKind::IllegalMove,
                } => {
                    // A demand for correction voids the move: the touch binds its replacement.
                    let rearm = self.draughts_touch_used.filter(|u| {
                        u.side == event.side.opponent() && t.correction_pending(u.side)
                    });
                    let out = t.apply(seq, event);
                    if rearm.is_some() && !t.correction_pending(event.side.opponent()) {
                        self.draughts_touch = rearm;
                    }
                    out
                }
                _ => t.apply(seq, event),
            },
        }
    }

    /// Draughts 5.11: a touch of an own movable piece by the side to move binds its move (the
    /// first such touch; an `adjust` touch never reaches here).
    fn draughts_touched(&mut self, seq: u64, side: Side, square: crate::event::Square) {
        let Table::Draughts(t) = &self.table else {
            return;
        };
        if self.draughts_touch.is_some() {
            return;
        }
        if let Some(square) = t.touch_binds(side, square) {
            self.draughts_touch = Some(DraughtsTouch {
                side,
                square,
                at: seq,
            });
        }
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
            .filter(|s| *s != Side::Arbiter)
    }

    /// An overturned ruling no longer counts: its foul leaves the count and its result no
    /// longer ends the game (the game goes on from the position the referee holds).
    fn overturn(&mut self, at: u64) {
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

    /// The result, once a ruling has ended the game.
    pub fn ending(&self) -> Option<Ending> {
        self.ending
    }

    /// Seq of the last event applied (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The current position as FEN.
    pub fn fen(&self) -> String {
        match &self.table {
            Table::ChessGjq(t) => t.fen(),
            Table::Xiangqi(t) => t.fen(),
            Table::Draughts(t) => t.fen(),
        }
    }

    /// How a scoresheet writes `event` in the current state, before it is applied: a move
    /// in the game's notation (chess_gjq 9.3 `暗马g1-f3`, xiangqi `炮二平五 h2-e2 C2=5`), or
    /// what a chess_gjq reveal adds to its move (`后`). `None` for other events, for moves the
    /// rules do not allow; draughts moves in PDN (`28x19`).
    pub fn describe(&self, event: &Event) -> Option<String> {
        match &self.table {
            Table::ChessGjq(t) => t.describe(event),
            Table::Xiangqi(t) => t.describe_event(event),
            Table::Draughts(t) => t.describe(event),
        }
    }

    /// Draughts: the start position and the moves that stand, in order (irregular moves the
    /// opponent accepted included, corrected ones left out); `None` for the other games.
    pub fn draughts_record(
        &self,
    ) -> Option<(
        &crate::games::draughts::Position,
        &[crate::games::draughts::Move],
    )> {
        match &self.table {
            Table::Draughts(t) => Some(t.record()),
            _ => None,
        }
    }

    /// What stands open and ends the game only on a later event: a xiangqi order to vary
    /// or a claimable draw (log format, "Draws and cycles the book leaves to a claim"), in
    /// words. Empty once the game has ended, and for the other games.
    pub fn open_conditions(&self) -> Vec<String> {
        match (&self.table, self.ending) {
            (Table::Xiangqi(t), None) => t.open_conditions(),
            _ => Vec::new(),
        }
    }

    /// The player whose move it is.
    pub fn side_to_move(&self) -> Side {
        match &self.table {
            Table::ChessGjq(t) => t.side_to_move(),
            Table::Xiangqi(t) => t.side_to_move(),
            Table::Draughts(t) => t.side_to_move(),
        }
    }
}

fn resignation(variant: Variant, seq: u64, side: Side) -> Ruling {
    let rule = match variant {
        Variant::ChessGjq => "chess_gjq 5.4",
        Variant::Xiangqi => "xiangqi 4.1",
        Variant::Draughts => "draughts 12.2",
    };
    let name = side.name(variant);
    let text = format!("{name} resigned at event {seq}; a player who resigns loses the game");
    Ruling::loss(seq, RulingKind::Resignation, side, rule, text)
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
        "arbiter",
        text,
    );
    out.rule = format!("{variant} arbiter");
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
        charge(&mut out, variant, charged);
    }
    out
}

/// An arbiter's foul counts toward the foul limit of the player it is charged to.
fn charge(out: &mut Ruling, variant: Variant, charged: Option<Side>) {
    let Some(side) = charged else {
        out.text
            .push_str("; no player's event is named in \"ruling\", so the foul cannot be charged");
        return;
    };
    let name = side.name(variant);
    let during = out.evidence.first().copied().unwrap_or(out.at);
    let words = out
        .text
        .split_once(": \"")
        .map(|(_, w)| format!(": \"{w}"))
        .unwrap_or_default();
    out.text = format!(
        "the arbiter charges {name} with a foul at event {} (during {name}'s event {during}){words}",
        out.at
    );
    out.kind = RulingKind::Foul;
    out.side = Some(side);
    out.effect = Effect::Foul;
}
