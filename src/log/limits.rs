//! What the log accepts: ids and bodies it can store and index, checked before anything is
//! staged. Refusals are [`Rejection`]s.

use std::collections::HashMap;

use super::{MAX_BODY_BYTES, MAX_EVENT_ID_BYTES, MAX_GAME_ID_BYTES, NewEvent, Rejection};

pub(super) fn check_game_id(game: &str) -> Result<(), Rejection> {
    let reason = match game.len() {
        0 => "it is empty".to_owned(),
        n if n > MAX_GAME_ID_BYTES => format!("it is {n} bytes; the limit is {MAX_GAME_ID_BYTES}"),
        _ => return Ok(()),
    };
    Err(Rejection::BadGameId { reason })
}

/// A new game's id: as [`check_game_id`], and no character that a terminal, a log line or a
/// file name would not show as it is: control characters (newline, NUL, the escape that
/// starts a terminal sequence, DEL, C1) and the bidirectional overrides and isolates that
/// reorder what is shown. Games already stored keep their ids (a store restored from an
/// export is checked only as [`check_game_id`]).
pub(super) fn check_new_game_id(game: &str) -> Result<(), Rejection> {
    check_game_id(game)?;
    let hidden = |c: &char| {
        c.is_control() || matches!(*c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    match game.chars().find(hidden) {
        Some(c) => Err(Rejection::BadGameId {
            reason: format!(
                "it contains U+{:04X}, a control character that logs, file names and terminals \
                 cannot show as it is",
                u32::from(c)
            ),
        }),
        None => Ok(()),
    }
}

pub(super) fn check_events(events: &[NewEvent]) -> Result<(), Rejection> {
    if events.is_empty() {
        return Err(Rejection::EmptyAppend);
    }
    let mut seen = HashMap::new();
    for (index, event) in events.iter().enumerate() {
        check_event_id(index, &event.event_id)?;
        check_body(index, &event.body)?;
        if let Some(first) = seen.insert(event.event_id.as_str(), index) {
            let reason = format!(
                "event id {:?} repeats event {first} of this append",
                event.event_id
            );
            return Err(Rejection::BadEvent { index, reason });
        }
    }
    Ok(())
}

pub(super) fn check_event_id(index: usize, event_id: &str) -> Result<(), Rejection> {
    let reason = match event_id.len() {
        0 => "event id is empty".to_owned(),
        n if n > MAX_EVENT_ID_BYTES => {
            format!("event id is {n} bytes; the limit is {MAX_EVENT_ID_BYTES}")
        }
        _ => return Ok(()),
    };
    Err(Rejection::BadEvent { index, reason })
}

pub(super) fn check_body(index: usize, body: &str) -> Result<(), Rejection> {
    let reason = if body.len() > MAX_BODY_BYTES {
        format!(
            "body is {} bytes; the limit is {MAX_BODY_BYTES}",
            body.len()
        )
    } else if body.contains('\n') {
        // Bodies are JSON lines: a newline would split one event into two in any export.
        "body contains a newline".to_owned()
    } else {
        return Ok(());
    };
    Err(Rejection::BadEvent { index, reason })
}
