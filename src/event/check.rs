//! The checks an event or a header passes whichever way it comes in — a log line or a gRPC
//! message — so a board's message is refused exactly when the same log line would be. Each
//! check returns the message its reader puts after the name of the field or line at fault.

use crate::games::Variant;
use crate::quote::quote;

use super::{ClockControl, Decision, Event, EventKind, GameResult, Period, RuleOptions, Side};

/// A move's promotion letter, where the game has promotions (chess_gjq `q r b n`).
pub fn promotion(variant: Variant, text: &str) -> Result<char, String> {
    let letters = variant.spec().moves.promotion;
    if letters.is_empty() {
        return Err(format!("\"promotion\" is not a field of a {variant} move"));
    }
    letter(text, "promotion", letters)
}

/// A move's captured squares, where a board reports what a capture took (draughts).
pub fn captures(variant: Variant) -> Result<(), String> {
    if !variant.spec().moves.captures {
        return Err(format!("\"captures\" is not a field of a {variant} move"));
    }
    Ok(())
}

/// Why a move with a `from` is refused in a game whose pieces are placed (renju), or `None`
/// where pieces move.
pub fn placed(variant: Variant) -> Option<String> {
    (!variant.spec().moves.from).then(|| {
        format!(
            "a {variant} piece is placed, not moved: a {variant} move has \"to\" and no \"from\""
        )
    })
}

/// Reveals exist only where pieces are hidden.
pub fn reveal(variant: Variant) -> Result<(), String> {
    if !variant.spec().moves.reveals {
        let hidden: Vec<&str> = Variant::ALL
            .iter()
            .filter(|v| v.spec().moves.reveals)
            .map(|v| v.name())
            .collect();
        return Err(format!(
            "reveal events exist only in {}, not in {variant}",
            hidden.join(" and ")
        ));
    }
    Ok(())
}

/// The renju opening's steps (`swap`, `declare`, `offer`, `choose`) exist only in renju.
pub fn opening_event(variant: Variant, name: &str) -> Result<(), String> {
    if variant != Variant::Renju {
        return Err(format!(
            "{name} events exist only in renju (its opening rules), not in {variant}"
        ));
    }
    Ok(())
}

/// The most fifth-move offers one `offer` or `declare` may carry: every point of the board.
pub const MAX_OFFERS: u32 = 225;

/// An opening step's fields as a step can hold them: a declared number of offers from 1, an
/// offer of distinct points; whether the rule allows them is the referee's ruling.
pub fn opening_fields(kind: &EventKind) -> Result<(), String> {
    match kind {
        EventKind::Declare { offers } if !(1..=MAX_OFFERS).contains(offers) => Err(format!(
            "\"offers\" must be 1 to {MAX_OFFERS}, found {offers}"
        )),
        EventKind::Offer { points } if points.is_empty() => {
            Err("\"points\" names no point: an offer places at least one stone".into())
        }
        EventKind::Offer { points } if points.len() > MAX_OFFERS as usize => Err(format!(
            "\"points\" names {} points; the board has {MAX_OFFERS}",
            points.len()
        )),
        EventKind::Offer { points } => {
            for (index, point) in points.iter().enumerate() {
                if points[..index].contains(point) {
                    return Err(format!("\"points\" names {point} twice"));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The piece a reveal shows: `Q R B N P`.
pub fn revealed_piece(text: &str) -> Result<char, String> {
    letter(text, "piece", "QRBNP")
}

/// The promotion a reveal shows (a hidden pawn that reached the last rank).
pub fn revealed_promotion(text: &str) -> Result<char, String> {
    letter(text, "promotion", "QRBNqrbn")
}

/// One letter of `allowed`.
pub fn letter(text: &str, key: &str, allowed: &str) -> Result<char, String> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if allowed.contains(c) => Ok(c),
        _ => Err(format!(
            "\"{key}\" must be one of {}, found {}",
            allowed
                .chars()
                .map(String::from)
                .collect::<Vec<_>>()
                .join(" "),
            quote(text)
        )),
    }
}

/// An arbiter's word carries what its decision needs: a declaration its result, an uphold
/// or overturn the ruling it concerns.
pub fn arbiter(
    decision: Decision,
    ruling: Option<u64>,
    result: Option<GameResult>,
    moves: &[Event],
) -> Result<(), String> {
    match (decision, moves.is_empty()) {
        (Decision::Set, true) => {
            return Err(
                "an arbiter \"set\" needs the \"moves\" the arbiter finds were made".into(),
            );
        }
        (Decision::Set, false) if moves.len() > MAX_SET_MOVES => {
            return Err(format!(
                "an arbiter \"set\" gives at most {MAX_SET_MOVES} moves, found {}",
                moves.len()
            ));
        }
        (Decision::Set, false) | (_, true) => {}
        (_, false) => {
            return Err(format!(
                "\"moves\" belongs to an arbiter \"set\", not \"{decision}\""
            ));
        }
    }
    if decision == Decision::Declare && result.is_none() {
        return Err("an arbiter \"declare\" needs a \"result\"".into());
    }
    if matches!(decision, Decision::Uphold | Decision::Overturn) && ruling.is_none() {
        return Err(format!(
            "an arbiter \"{decision}\" needs the \"ruling\" it concerns"
        ));
    }
    Ok(())
}

/// The most moves an arbiter's `set` gives: the plies a board's lost reports can hide and
/// more, not a game.
pub const MAX_SET_MOVES: usize = 40;

/// The longest device name a board report carries.
pub const MAX_DEVICE: usize = 64;

/// Players make moves and claims; only the arbiter gives an arbiter's word; a board's
/// report has no side.
pub fn side(kind: &EventKind, side: Side) -> Result<(), String> {
    match (kind, side) {
        (EventKind::Arbiter { .. }, Side::Arbiter) | (EventKind::Board { .. }, Side::Board) => {
            Ok(())
        }
        (EventKind::Arbiter { .. }, _) => {
            Err("an arbiter event must have \"side\":\"arbiter\"".into())
        }
        (EventKind::Board { .. }, _) => {
            Err("a board event has no \"side\": the board reports both players' pieces".into())
        }
        (_, Side::First | Side::Second) => Ok(()),
        (_, Side::Arbiter | Side::Board) => Err(format!(
            "a {} event is a player's; its side cannot be the {}",
            kind.type_name(),
            if side == Side::Arbiter {
                "arbiter"
            } else {
                "board"
            }
        )),
    }
}

/// A board's placement the game's board can hold: the right size, the game's letters.
pub fn placement(variant: Variant, text: &str) -> Result<(), String> {
    crate::games::sensor::read(variant, text).map(|_| ())
}

/// A device name: printable, short.
pub fn device(device: &str) -> Result<(), String> {
    if device.chars().count() > MAX_DEVICE {
        return Err(format!("\"device\" is longer than {MAX_DEVICE} characters"));
    }
    if device.chars().any(char::is_control) {
        return Err("\"device\" has a control character".into());
    }
    Ok(())
}

/// A move of an arbiter's `set`: a player's `move` or `reveal`.
pub fn set_move(event: &Event) -> Result<(), String> {
    match event.kind {
        EventKind::Move { .. } | EventKind::Place { .. } | EventKind::Reveal { .. } => Ok(()),
        _ => Err(format!(
            "an arbiter \"set\" gives move and reveal events, found {}",
            event.kind.type_name()
        )),
    }
}

/// Rule options that make sense together and for this game.
pub fn rules(rules: &RuleOptions, variant: Variant) -> Result<(), String> {
    positive(rules.move_limit, "move_limit")?;
    positive(rules.foul_limit, "foul_limit")?;
    if let Some(n) = rules.repetition_count.filter(|n| !(2..=10).contains(n)) {
        return Err(format!("\"repetition_count\" must be 2 to 10, found {n}"));
    }
    if let Some(n) = rules.board_hold_ms.filter(|n| !(100..=60_000).contains(n)) {
        return Err(format!("\"board_hold_ms\" must be 100 to 60000, found {n}"));
    }
    let spec = variant.spec();
    if let Some(key) = rules.keys().find(|&key| !spec.reads(key)) {
        return Err(format!(
            "\"{key}\" is not a rule option of {variant} (its options: {})",
            spec.rule_list()
        ));
    }
    Ok(())
}

/// Most tags a header may carry, and the longest name and value: room for every PGN/PDN tag
/// a federation writes, not for documents.
pub const MAX_TAGS: usize = 64;
pub const MAX_TAG_NAME: usize = 64;
pub const MAX_TAG_VALUE: usize = 1024;

/// Tag pairs as PGN/PDN can write them back: a name of letters, digits and `_` starting with a
/// letter, each name once, a value on one line.
pub fn tags(tags: &[(String, String)]) -> Result<(), String> {
    if tags.len() > MAX_TAGS {
        return Err(format!(
            "\"tags\" has {} tags; at most {MAX_TAGS} are kept",
            tags.len()
        ));
    }
    for (index, (name, value)) in tags.iter().enumerate() {
        let shown = quote(name);
        let well_formed = name.len() <= MAX_TAG_NAME
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !well_formed {
            return Err(format!(
                "tag name {shown} must be 1-{MAX_TAG_NAME} letters, digits or _, starting with a letter"
            ));
        }
        if tags[..index].iter().any(|(n, _)| n == name) {
            return Err(format!("tag {shown} is given twice"));
        }
        if value.len() > MAX_TAG_VALUE {
            return Err(format!(
                "tag {shown} is {} bytes long; at most {MAX_TAG_VALUE}",
                value.len()
            ));
        }
        if value.chars().any(char::is_control) {
            return Err(format!(
                "tag {shown} holds a control character (a tag value is one line)"
            ));
        }
    }
    Ok(())
}

fn positive(value: Option<u32>, key: &str) -> Result<(), String> {
    match value {
        Some(0) => Err(format!("\"{key}\" must be at least 1")),
        _ => Ok(()),
    }
}

/// A clock with one way of giving the time (a single budget or periods), each period real.
pub fn clock(clock: &ClockControl) -> Result<(), String> {
    for (index, p) in clock.periods.iter().enumerate() {
        period(p, index)?;
    }
    match (clock.initial_ms.is_some(), clock.periods.is_empty()) {
        (false, true) => Err("\"clock\" needs \"initial_ms\" or \"periods\"".into()),
        (true, false) => Err("\"clock\" has both \"initial_ms\" and \"periods\"; give one".into()),
        _ => Ok(()),
    }
}

/// A period of `moves` moves in `ms`, both above 0; `index` counts from 0.
pub fn period(period: &Period, index: usize) -> Result<(), String> {
    if period.moves == 0 || period.ms == 0 {
        return Err(format!(
            "clock period {} must have moves and ms above 0",
            index + 1
        ));
    }
    Ok(())
}
