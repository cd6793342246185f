//! The referee's own clock: each side's time kept from `clock` presses and their `ts_ms`, under
//! the header's time control (sudden death, Fischer increment, "N moves in T" periods with the
//! last repeating, per-move limits whose overrun is a foul). It rules time forfeits and flag
//! claims, and cross-checks the times the board's clock shows against its own.

use crate::event::{ClockControl, Header, Side};
use crate::games::Variant;

use super::article::Article;
use super::ruling::Reason;
use super::{Ruling, RulingKind};

/// Largest difference between the board clock's times and the referee's before it is reported.
pub const TOLERANCE_MS: i64 = 2_000;

/// The rule of a clock report the arbiter must look at: not a breach by a player.
const INVALID: Article = Article::LogFormat("invalid_event");

/// One player's time.
#[derive(Clone, Debug, Default)]
struct Account {
    remaining_ms: i64,
    used_ms: i64,
    moves: u32,
    /// Moves since the last press by this player.
    unpressed_moves: u32,
    /// Index of the period this player is in.
    period: usize,
    /// Moves still due in that period.
    due: u32,
}

/// Both players' time, and whose clock runs since when.
#[derive(Clone, Debug)]
pub struct Clock {
    variant: Variant,
    /// The game's article of time forfeits (its table's policy).
    article: Article,
    control: Option<ClockControl>,
    accounts: [Account; 2],
    running: Side,
    since_ms: u64,
    /// The times the board's clock showed at the last presses (first, second), for a game
    /// whose header sets no time control: what the console shows then.
    shown: [Option<u64>; 2],
}

/// Each player's time left after the last press, and whose clock runs since then: what a
/// console shows beside the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockTimes {
    pub first_ms: i64,
    pub second_ms: i64,
    pub running: Side,
}

fn index(side: Side) -> usize {
    usize::from(side == Side::Second)
}

fn ms(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl Clock {
    pub fn new(header: &Header, article: Article) -> Clock {
        let account = header.clock.as_ref().map(start_account).unwrap_or_default();
        Clock {
            variant: header.variant,
            article,
            control: header.clock.clone(),
            accounts: [account.clone(), account],
            running: Side::First,
            since_ms: 0,
            shown: [None, None],
        }
    }

    /// A move by `side` was reported (counted toward its period).
    pub fn moved(&mut self, side: Side) {
        if side != Side::Arbiter {
            let a = &mut self.accounts[index(side)];
            a.moves += 1;
            a.unpressed_moves += 1;
        }
    }

    /// `side` pressed its clock at `ts`, the board showing `shown` (first, second).
    pub fn press(
        &mut self,
        seq: u64,
        side: Side,
        ts: Option<u64>,
        shown: [Option<u64>; 2],
    ) -> Vec<Ruling> {
        let name = side.name(self.variant);
        if self.control.is_none() {
            if side != Side::Arbiter {
                self.shown = [shown[0].or(self.shown[0]), shown[1].or(self.shown[1])];
                self.running = side.opponent();
            }
            return Vec::new();
        }
        if side != self.running {
            let text = format!(
                "{name} pressed the clock at event {seq}, but {}'s clock was running: the press is out of turn and the arbiter must look",
                self.running.name(self.variant)
            );
            return vec![Ruling::notice(
                seq,
                RulingKind::InvalidEvent,
                Some(side),
                INVALID,
                text,
            )];
        }
        let mut out = Vec::new();
        if self.accounts[index(side)].unpressed_moves == 0 {
            let text = format!(
                "{name} pressed the clock at event {seq} without having moved since the last press"
            );
            out.push(Ruling::notice(
                seq,
                RulingKind::InvalidEvent,
                Some(side),
                INVALID,
                text,
            ));
        }
        let elapsed = ts.map(|t| ms(t.saturating_sub(self.since_ms)));
        if let Some(elapsed) = elapsed {
            out.extend(self.per_move_limit(seq, side, elapsed));
            let a = &mut self.accounts[index(side)];
            a.remaining_ms -= elapsed;
            a.used_ms += elapsed;
        }
        if let Some(forfeit) = self.flag_fell(seq, side, shown) {
            out.push(forfeit);
            return out;
        }
        self.credit(side);
        out.extend(self.cross_check(seq, side, shown, elapsed.is_some()));
        self.running = side.opponent();
        self.since_ms = ts.unwrap_or(self.since_ms);
        out
    }

    /// `claimant` claims that the opponent's time has run out, at `ts`.
    pub fn claim_flag(&self, seq: u64, claimant: Side, ts: Option<u64>) -> Ruling {
        let opponent = claimant.opponent();
        let left = self.remaining_at(opponent, ts);
        let (cname, oname) = (claimant.name(self.variant), opponent.name(self.variant));
        match left {
            Some(left) if left <= 0 => {
                let facts = format!(
                    "{cname} claimed at event {seq} that {oname}'s time had run out: by the referee's clock {oname} had {left} ms left, with {} moves made",
                    self.accounts[index(opponent)].moves
                );
                self.forfeit(seq, opponent, facts)
            }
            Some(left) => {
                let text = format!(
                    "{cname} claimed at event {seq} that {oname}'s time had run out, but by the referee's clock {oname} still had {left} ms"
                );
                Ruling::notice(
                    seq,
                    RulingKind::ClaimRejected,
                    Some(claimant),
                    self.article,
                    text,
                )
            }
            None => {
                let text = format!(
                    "{cname} claimed at event {seq} that {oname}'s time had run out, but the game has no time control in its header"
                );
                Ruling::notice(
                    seq,
                    RulingKind::ClaimRejected,
                    Some(claimant),
                    self.article,
                    text,
                )
            }
        }
    }

    /// Both players' time after the last press; `None` without a time control.
    pub fn times(&self) -> Option<ClockTimes> {
        self.control.as_ref()?;
        Some(ClockTimes {
            first_ms: self.accounts[0].remaining_ms,
            second_ms: self.accounts[1].remaining_ms,
            running: self.running,
        })
    }

    /// Without a time control: the times the board's clock showed at the last presses (once
    /// both sides' are known), and whose clock runs since; `None` with one (see `times`).
    pub fn shown_times(&self) -> Option<ClockTimes> {
        if self.control.is_some() {
            return None;
        }
        let [Some(first), Some(second)] = self.shown else {
            return None;
        };
        Some(ClockTimes {
            first_ms: i64::try_from(first).unwrap_or(i64::MAX),
            second_ms: i64::try_from(second).unwrap_or(i64::MAX),
            running: self.running,
        })
    }

    /// Time `side` has left at `ts` by the referee's clock; `None` without a time control.
    pub fn remaining_at(&self, side: Side, ts: Option<u64>) -> Option<i64> {
        self.control.as_ref()?;
        let a = &self.accounts[index(side)];
        let running = if side == self.running {
            ts.map_or(0, |t| ms(t.saturating_sub(self.since_ms)))
        } else {
            0
        };
        Some(a.remaining_ms - running)
    }

    /// Time ran out before this press: a forfeit (the board's own display counts too).
    fn flag_fell(&self, seq: u64, side: Side, shown: [Option<u64>; 2]) -> Option<Ruling> {
        let a = &self.accounts[index(side)];
        let shown_zero = shown[index(side)] == Some(0);
        if a.remaining_ms > 0 && !shown_zero {
            return None;
        }
        let name = side.name(self.variant);
        let facts = format!(
            "{name}'s time ran out before the press at event {seq}: {} ms left by the referee's clock after {} moves (the board showed {})",
            a.remaining_ms,
            a.moves,
            shown[index(side)].map_or("no time".into(), |v| format!("{v} ms"))
        );
        Some(self.forfeit(seq, side, facts))
    }

    /// `side` loses on time; the facts are kept as data for a rule by which the fall does
    /// not lose (see `time_draws`).
    fn forfeit(&self, seq: u64, side: Side, facts: String) -> Ruling {
        let text = format!("{facts}; {} loses on time", side.name(self.variant));
        let mut ruling = Ruling::loss(seq, RulingKind::TimeForfeit, side, self.article, text);
        ruling.reason = Reason::TimeForfeit { facts };
        ruling
    }

    /// The increment, and the next period's time once the moves of this one are made.
    fn credit(&mut self, side: Side) {
        let Some(control) = &self.control else { return };
        let a = &mut self.accounts[index(side)];
        a.remaining_ms += ms(control.increment_ms);
        let moves_now = a.unpressed_moves;
        a.unpressed_moves = 0;
        if control.periods.is_empty() {
            return;
        }
        a.due = a.due.saturating_sub(moves_now);
        if a.due == 0 {
            a.period = (a.period + 1).min(control.periods.len() - 1);
            let next = control.periods[a.period];
            a.remaining_ms += ms(next.ms);
            a.due = next.moves;
        }
    }

    /// A move that took longer than the per-move limit, once it applies, is a foul.
    fn per_move_limit(&self, seq: u64, side: Side, elapsed: i64) -> Option<Ruling> {
        let control = self.control.as_ref()?;
        let limit = ms(control.per_move_ms?);
        let after = ms(control.per_move_after_ms.unwrap_or(0));
        let used = self.accounts[index(side)].used_ms;
        if used < after || elapsed <= limit {
            return None;
        }
        let name = side.name(self.variant);
        let act = format!("{name} took {elapsed} ms over the move pressed at event {seq}");
        let text = format!(
            "{act}; once a side has used {after} ms, a move may take at most {limit} ms, and an overrun is a foul"
        );
        Some(Ruling::notice(seq, RulingKind::Foul, Some(side), self.article, text).foul(act))
    }

    /// The board's displayed times against the referee's, within the tolerance.
    fn cross_check(
        &self,
        seq: u64,
        side: Side,
        shown: [Option<u64>; 2],
        timed: bool,
    ) -> Option<Ruling> {
        if !timed {
            return None;
        }
        let differences: Vec<String> = [Side::First, Side::Second]
            .into_iter()
            .filter_map(|s| {
                let shown = ms(shown[index(s)]?);
                let own = self.accounts[index(s)].remaining_ms;
                ((shown - own).abs() > TOLERANCE_MS).then(|| {
                    format!(
                        "{} shows {shown} ms, the referee counts {own} ms",
                        s.name(self.variant)
                    )
                })
            })
            .collect();
        if differences.is_empty() {
            return None;
        }
        let text = format!(
            "after {}'s press at event {seq} the board clock disagrees with the referee's by more than {TOLERANCE_MS} ms: {}; the arbiter should check the clock",
            side.name(self.variant),
            differences.join("; ")
        );
        Some(Ruling::notice(
            seq,
            RulingKind::InvalidEvent,
            Some(side),
            INVALID,
            text,
        ))
    }
}

fn start_account(control: &ClockControl) -> Account {
    match control.periods.first() {
        Some(p) => Account {
            remaining_ms: ms(p.ms),
            due: p.moves,
            ..Account::default()
        },
        None => Account {
            remaining_ms: ms(control.initial_ms.unwrap_or(0)),
            ..Account::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(initial_ms: u64) -> Clock {
        let mut header = Header::new(Variant::Xiangqi, "g");
        header.clock = Some(ClockControl {
            initial_ms: Some(initial_ms),
            periods: Vec::new(),
            increment_ms: 0,
            per_move_ms: None,
            per_move_after_ms: None,
        });
        Clock::new(&header, Article::Xiangqi("4.1"))
    }

    #[test]
    fn a_forfeit_keeps_its_facts_apart_from_its_conclusion() {
        let ruling = clock(1_000).claim_flag(3, Side::Second, Some(5_000));
        let Reason::TimeForfeit { facts } = &ruling.reason else {
            panic!("no facts: {ruling:?}");
        };
        assert_eq!(ruling.text, format!("{facts}; red loses on time"));
        assert_eq!(ruling.rule(), "xiangqi 4.1");
    }
}
