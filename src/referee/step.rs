//! One event folded and put in words: what the referee made of it (its rulings) and how it
//! reads on the scoresheet. `referee replay`, the console (the hall, the board view, after a
//! reload as live) and the audit bundle all write an event with [`Referee::step`], so one
//! event reads the same wherever it is shown.

use crate::event::{Decision, Event, EventKind, Side};
use crate::games::Variant;

use super::{ClockTimes, Referee, Ruling, move_text};

/// One event after the fold.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The event as the scoresheet writes it: a move in the game's notation (`炮二平五 h2e2
    /// C2=5`, `e2-e4`, `32x23`, `h8`), a move the rules did not allow by its squares and `?`,
    /// a clock press with the times after it (`red pressed: red 1:29:55, black 1:30:00`), an
    /// offer, claim, resignation or the arbiter's word in a sentence.
    pub words: String,
    /// Whether the game's table wrote the event in its notation; a move or reveal the rules
    /// did not allow is written from its fields instead.
    pub notation: bool,
    /// The rulings the event gave rise to.
    pub rulings: Vec<Ruling>,
    /// The moves the event made that its own words do not show (those the referee derived
    /// from a board's reports at it, or an arbiter's `set`), each as the scoresheet writes it
    /// from the position before it (a chess_gjq reveal added to its move's words).
    pub made: Vec<(Event, String)>,
}

impl Referee {
    /// Folds the event at `seq` as [`Referee::apply`] does, and writes it down.
    pub fn step(&mut self, seq: u64, event: &Event) -> Step {
        let described = self.describe(event);
        let notation = described.is_some();
        let rulings = self.apply(seq, event);
        let words = words(self, event, described);
        Step {
            words,
            notation,
            rulings,
            made: std::mem::take(&mut self.made),
        }
    }
}

/// A move the table cannot write in its notation (the rules did not allow it): its squares
/// and `?`.
pub(super) fn plain_words(event: &Event, variant: Variant) -> String {
    match &event.kind {
        EventKind::Move {
            from, to, captures, ..
        } => {
            let capture = captures.as_ref().is_some_and(|c| !c.is_empty());
            format!("{} ?", move_text(*from, *to, capture))
        }
        EventKind::Place { to } => format!("{to} ?"),
        EventKind::Reveal { square, piece, .. } => {
            format!("{} reveals {piece} on {square}", event.side.name(variant))
        }
        other => other.type_name().to_string(),
    }
}

/// `event` in words, `referee` having applied it; `described` is the table's notation for
/// it, taken before (a move's words depend on the position it was played from).
fn words(referee: &Referee, event: &Event, described: Option<String>) -> String {
    let variant = referee.header().variant;
    let name = event.side.name(variant);
    match &event.kind {
        EventKind::Move {
            from, to, captures, ..
        } => described.unwrap_or_else(|| {
            let capture = captures.as_ref().is_some_and(|c| !c.is_empty());
            format!("{} ?", move_text(*from, *to, capture))
        }),
        EventKind::Place { to } => described.unwrap_or_else(|| format!("{to} ?")),
        EventKind::Reveal { square, piece, .. } => {
            described.unwrap_or_else(|| format!("{name} reveals {piece} on {square}"))
        }
        EventKind::Clock {
            first_ms,
            second_ms,
        } => press(
            variant,
            event.side,
            referee.clock_times(),
            [*first_ms, *second_ms],
        ),
        EventKind::Touch { square, adjust } => {
            let verb = if *adjust { "adjusts" } else { "touches" };
            format!("{name} {verb} {square}")
        }
        EventKind::DrawOffer => format!("{name} offers a draw"),
        EventKind::DrawReply { accept } => {
            let verb = if *accept { "accepts" } else { "declines" };
            format!("{name} {verb} the draw offer")
        }
        EventKind::Claim { claim } => format!("{name} claims {}", claim.as_str().replace('_', " ")),
        EventKind::Resign => format!("{name} resigns"),
        EventKind::Arbiter {
            decision,
            ruling,
            result,
            text,
            ..
        } => arbiter(
            *decision,
            *ruling,
            result.map(|r| r.as_str()),
            text.as_deref(),
        ),
        EventKind::Board { device, .. } => match device {
            Some(device) => format!("board {device} reports its placement"),
            None => "the board reports its placement".into(),
        },
        EventKind::Swap => format!(
            "swap: the player holding {name} takes {}",
            event.side.opponent().name(variant)
        ),
        EventKind::Declare { offers } => {
            let s = if *offers == 1 { "" } else { "s" };
            format!("{name} declares {offers} fifth move{s}")
        }
        EventKind::Offer { points } => {
            let points: Vec<String> = points.iter().map(ToString::to_string).collect();
            format!("{name} offers {}", points.join(" "))
        }
        EventKind::Choose { to } => format!("{name} chooses {to}"),
    }
}

/// The arbiter's word: `arbiter overturns the ruling at event 6: the claim was late`.
fn arbiter(
    decision: Decision,
    ruling: Option<u64>,
    result: Option<&str>,
    text: Option<&str>,
) -> String {
    let verb = match decision {
        Decision::Uphold => "upholds",
        Decision::Overturn => "overturns",
        Decision::Declare => "declares",
        Decision::Warn => "warns",
        Decision::Foul => "records a foul",
        Decision::Set => "sets the moves made",
    };
    let mut words = format!("arbiter {verb}");
    if let Some(seq) = ruling {
        let of = if decision == Decision::Foul {
            "at"
        } else {
            "the ruling at"
        };
        words.push_str(&format!(" {of} event {seq}"));
    }
    if let Some(result) = result {
        words.push_str(&format!(" {result}"));
    }
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        words.push_str(&format!(": {text}"));
    }
    words
}

/// A press as the scoresheet writes it: `red pressed: red 1:29:57, black 1:30:00`, the
/// referee's times, with the board's beside them where they read differently.
pub fn press(
    variant: Variant,
    side: Side,
    times: Option<ClockTimes>,
    shown: [Option<u64>; 2],
) -> String {
    let name = side.name(variant);
    let sides = [Side::First, Side::Second];
    let board: Vec<String> = sides
        .iter()
        .zip(shown)
        .filter_map(|(s, ms)| {
            Some(format!(
                "{} {}",
                s.name(variant),
                clock_time(i64::try_from(ms?).unwrap_or(i64::MAX))
            ))
        })
        .collect();
    let Some(times) = times else {
        if board.is_empty() {
            return format!("{name} pressed the clock");
        }
        return format!(
            "{name} pressed: {} (as the board showed; the header sets no time control)",
            board.join(", ")
        );
    };
    let own: Vec<String> = sides
        .iter()
        .zip([times.first_ms, times.second_ms])
        .map(|(s, ms)| format!("{} {}", s.name(variant), clock_time(ms)))
        .collect();
    if board.iter().all(|b| own.contains(b)) {
        format!("{name} pressed: {}", own.join(", "))
    } else {
        format!(
            "{name} pressed: {} (the board showed {})",
            own.join(", "),
            board.join(", ")
        )
    }
}

/// A time as a clock shows it, `1:29:57`: hours, minutes and whole seconds (the milliseconds
/// dropped); time past zero with a `-`.
pub fn clock_time(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let seconds = ms.unsigned_abs() / 1000;
    format!(
        "{sign}{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Side;

    #[test]
    fn clock_times_read_as_a_clock_shows_them() {
        assert_eq!(clock_time(5_397_000), "1:29:57");
        assert_eq!(clock_time(50_999), "0:00:50");
        assert_eq!(clock_time(0), "0:00:00");
        assert_eq!(clock_time(-1_500), "-0:00:01");
    }

    fn times(first_ms: i64, second_ms: i64) -> Option<ClockTimes> {
        Some(ClockTimes {
            first_ms,
            second_ms,
            running: Side::Second,
        })
    }

    #[test]
    fn a_press_shows_the_board_only_where_it_reads_differently() {
        let x = Variant::Xiangqi;
        assert_eq!(
            press(x, Side::First, times(50_000, 60_000), [Some(50_400), None]),
            "red pressed: red 0:00:50, black 0:01:00"
        );
        assert_eq!(
            press(
                x,
                Side::First,
                times(50_000, 60_000),
                [Some(55_000), Some(60_000)]
            ),
            "red pressed: red 0:00:50, black 0:01:00 (the board showed red 0:00:55, black 0:01:00)"
        );
        assert_eq!(
            press(x, Side::Second, None, [Some(50_000), Some(40_000)]),
            "black pressed: red 0:00:50, black 0:00:40 (as the board showed; the header sets no time control)"
        );
        assert_eq!(
            press(x, Side::Second, None, [None, None]),
            "black pressed the clock"
        );
    }
}
