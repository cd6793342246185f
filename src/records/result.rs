//! The events that give a record's result. A game record holds moves and a result, not the
//! events that ended the game: after the moves, unless the referee already ends the game by
//! itself (mate, a draw rule), the import adds what a board would have reported for that
//! result — the loser's `resign` for a win (the record does not say whether it was a
//! resignation or a loss on time), and for a draw an offer by the player who moved last and
//! its acceptance where the rules allow an offer, otherwise the arbiter's declaration.

use crate::event::{Decision, Event, EventKind, GameResult, Header, Side};
use crate::referee::{RulingKind, replay};

/// Appends the events that end the game with `want` (the recorded result), if the referee
/// does not end it by itself; a note when its verdict differs from the record. `declared`
/// is the arbiter's text for a draw the rules allow no offer for.
pub fn add_result(
    header: &Header,
    events: &mut Vec<Event>,
    want: Option<GameResult>,
    declared: &str,
) -> Option<String> {
    if let Some(end) = ending(header, events) {
        return (Some(end) != want).then(|| {
            let recorded = want.map_or("no result".to_string(), |r| format!("the result {r}"));
            format!("the referee ends the game {end}; the record gives {recorded}")
        });
    }
    let last_mover = events.last().map(|e| e.side);
    match want {
        None => {}
        Some(GameResult::FirstWins) => events.push(plain(Side::Second, EventKind::Resign)),
        Some(GameResult::SecondWins) => events.push(plain(Side::First, EventKind::Resign)),
        Some(GameResult::Draw) => draw(header, events, last_mover, declared),
    }
    None
}

/// A draw by agreement where the rules allow the offer, else the arbiter's declaration.
fn draw(header: &Header, events: &mut Vec<Event>, last_mover: Option<Side>, declared: &str) {
    if let Some(offerer) = last_mover {
        events.push(plain(offerer, EventKind::DrawOffer));
        events.push(plain(
            offerer.opponent(),
            EventKind::DrawReply { accept: true },
        ));
        let agreed = replay(header, events).ok().is_some_and(|r| {
            r.rulings()
                .last()
                .is_some_and(|x| x.kind == RulingKind::Agreement)
        });
        if agreed {
            return;
        }
        events.truncate(events.len() - 2);
    }
    events.push(plain(
        Side::Arbiter,
        EventKind::Arbiter {
            decision: Decision::Declare,
            ruling: None,
            result: Some(GameResult::Draw),
            text: Some(declared.into()),
            moves: Vec::new(),
        },
    ));
}

fn ending(header: &Header, events: &[Event]) -> Option<GameResult> {
    replay(header, events)
        .ok()
        .and_then(|r| r.ending())
        .map(|e| e.result)
}

/// An event with no time.
pub fn plain(side: Side, kind: EventKind) -> Event {
    Event {
        side,
        ts_ms: None,
        kind,
    }
}
