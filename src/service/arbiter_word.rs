//! The arbiter's word checked at the service's door: an `uphold` or `overturn` names a ruling
//! in force, and a `declare` comes while the game goes on (or after an overturn of the ruling
//! that ended it). A word refused here is not written; it is no ruling. A log that already
//! holds such a word replays as it always did: the referee records the word and moves on.

use std::borrow::Cow;

use crate::event::{Decision, Event, EventKind};
use crate::referee::Referee;

use super::Error;

/// Where event `i` of a batch is in the request: the path a refused field is named under.
pub type EventPath = fn(usize) -> String;

/// The most rulings in force a refusal lists (a game on an electronic board has one per move).
const LISTED: usize = 12;

/// Checks each arbiter word of `batch`, appended after `referee`'s last event, against the
/// game as the events before it leave it: an overturn earlier in the batch counts.
pub fn check(referee: &Referee, batch: &[(String, Event)], path: EventPath) -> Result<(), Error> {
    let Some(last) = batch.iter().rposition(|(_, e)| checked(e)) else {
        return Ok(());
    };
    // Copied only when a word follows other events of the batch.
    let mut game = Cow::Borrowed(referee);
    for (i, (_, event)) in batch[..=last].iter().enumerate() {
        if let EventKind::Arbiter {
            decision, ruling, ..
        } = &event.kind
        {
            admit(&game, *decision, *ruling)
                .map_err(|(field, why)| Error::invalid(format!("{}.{field}", path(i)), why))?;
        }
        if i < last {
            let game = game.to_mut();
            game.apply(game.last_seq() + 1, event);
        }
    }
    Ok(())
}

/// Whether `event` is a word this door checks.
fn checked(event: &Event) -> bool {
    matches!(
        event.kind,
        EventKind::Arbiter {
            decision: Decision::Uphold | Decision::Overturn | Decision::Declare,
            ..
        }
    )
}

/// The field refused and why, if the word does not fit the game as it stands.
fn admit(
    game: &Referee,
    decision: Decision,
    ruling: Option<u64>,
) -> Result<(), (&'static str, String)> {
    match (decision, ruling) {
        (Decision::Uphold | Decision::Overturn, Some(at)) => {
            let in_force = game.rulings_in_force();
            if in_force.contains(&at) {
                return Ok(());
            }
            Err((
                "ruling",
                format!("no ruling in force at {at} ({})", listed(&in_force)),
            ))
        }
        (Decision::Declare, _) => game.ending().map_or(Ok(()), |end| {
            Err((
                "decision",
                format!(
                    "the game is over ({} by the ruling at {}); overturn that ruling to \
                     declare another result",
                    end.result, end.at
                ),
            ))
        }),
        _ => Ok(()),
    }
}

/// `rulings in force: 3, 7`, the last few of a long list.
fn listed(in_force: &[u64]) -> String {
    let shown = &in_force[in_force.len().saturating_sub(LISTED)..];
    let seqs: Vec<String> = shown.iter().map(u64::to_string).collect();
    match in_force.len() {
        0 => "no ruling is in force".into(),
        n if n > LISTED => format!(
            "rulings in force: the last {LISTED} of {n}: {}",
            seqs.join(", ")
        ),
        _ => format!("rulings in force: {}", seqs.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Header, Side};
    use crate::games::Variant;

    fn word(
        decision: Decision,
        ruling: Option<u64>,
        result: Option<GameResult>,
    ) -> (String, Event) {
        let kind = EventKind::Arbiter {
            decision,
            ruling,
            result,
            text: None,
            moves: Vec::new(),
        };
        let event = Event {
            side: Side::Arbiter,
            ts_ms: None,
            kind,
        };
        ("id".into(), event)
    }

    fn path(i: usize) -> String {
        format!("events[{i}].event.arbiter")
    }

    fn resigned() -> Referee {
        let mut referee = Referee::new(&Header::new(Variant::Xiangqi, "g")).expect("referee");
        let resign = Event {
            side: Side::First,
            ts_ms: None,
            kind: EventKind::Resign,
        };
        referee.apply(1, &resign);
        referee
    }

    #[test]
    fn a_word_on_a_ruling_not_in_force_is_refused_with_the_rulings_in_force() {
        let refused = check(&resigned(), &[word(Decision::Uphold, Some(99), None)], path);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "events[0].event.arbiter.ruling: no ruling in force at 99 (rulings in force: 1)"
        );
        let overturn = word(Decision::Overturn, Some(1), None);
        assert!(check(&resigned(), std::slice::from_ref(&overturn), path).is_ok());
        // Overturned earlier in the batch: no longer in force.
        let again = check(&resigned(), &[overturn.clone(), overturn], path);
        assert_eq!(
            again.unwrap_err().to_string(),
            "events[1].event.arbiter.ruling: no ruling in force at 1 (rulings in force: 2)"
        );
    }

    #[test]
    fn a_declare_after_the_end_needs_the_ending_overturned_first() {
        let draw = word(Decision::Declare, None, Some(GameResult::Draw));
        let refused = check(&resigned(), std::slice::from_ref(&draw), path);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "events[0].event.arbiter.decision: the game is over (0-1 by the ruling at 1); \
             overturn that ruling to declare another result"
        );
        let overturn = word(Decision::Overturn, Some(1), None);
        assert!(check(&resigned(), &[overturn, draw], path).is_ok());
    }

    #[test]
    fn a_long_list_of_rulings_in_force_shows_its_last() {
        let in_force: Vec<u64> = (1..=20).collect();
        assert_eq!(
            listed(&in_force),
            "rulings in force: the last 12 of 20: 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20"
        );
        assert_eq!(listed(&[]), "no ruling is in force");
    }
}
