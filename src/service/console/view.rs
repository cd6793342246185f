//! What the console draws, as JSON: a board's frame after an event (position, clocks, last
//! move, the rulings it gave rise to) and a whole game as frames for the replay slider.

use serde_json::{Map, Value, json};

use crate::event::{Decision, Event, EventKind, Header, Side};
use crate::games::Variant;
use crate::log::Record;
use crate::referee::{Referee, Ruling};
use crate::stored::{Error, LoadedLog};

/// The last event a board shows: its record, the event, its words.
pub type Shown<'a> = (&'a Record, &'a Event, &'a str);

/// The board after the event `last` (None: no event yet), as the hall shows it, with the
/// event's words and the rulings it gave rise to.
pub fn frame(referee: &Referee, last: Option<Shown<'_>>, rulings: &[Ruling]) -> Value {
    let variant = referee.header().variant;
    let mut m = Map::new();
    m.insert("id".into(), json!(referee.header().id));
    m.insert("variant".into(), json!(variant.name()));
    if let Some(players) = players(referee.header()) {
        m.insert("players".into(), players);
    }
    m.insert("seq".into(), json!(referee.last_seq()));
    m.insert("fen".into(), json!(referee.fen()));
    m.insert(
        "to_move".into(),
        json!(referee.side_to_move().name(variant)),
    );
    m.insert("clock".into(), clock(referee));
    let squares = last.map(|(_, event, _)| last_squares(event));
    m.insert("last".into(), json!(squares.unwrap_or_default()));
    m.insert("move".into(), json!(last.map(|(_, _, words)| words)));
    m.insert(
        "type".into(),
        json!(last.map(|(_, event, _)| event.kind.type_name())),
    );
    m.insert(
        "received_ms".into(),
        json!(last.map(|(record, _, _)| record.received_ms)),
    );
    m.insert("rulings".into(), rulings_json(rulings, variant));
    m.insert(
        "result".into(),
        json!(referee.ending().map(|e| e.result.as_str())),
    );
    m.insert("open".into(), json!(referee.open_conditions()));
    Value::Object(m)
}

/// The players by side from the header's tags (`White`/`Red`, `Black`), where it names any.
fn players(header: &Header) -> Option<Value> {
    let names = [Side::First, Side::Second].map(|side| header.player(side).map(str::to_string));
    names.iter().any(Option::is_some).then(|| json!(names))
}

/// The header's tags as one JSON object, in order.
fn tags(header: &Header) -> Value {
    Value::Object(
        header
            .tags
            .iter()
            .map(|(name, value)| (name.clone(), json!(value)))
            .collect(),
    )
}

/// The clocks after the last press, named by side (`red_ms`, `black_ms`), and which runs.
fn clock(referee: &Referee) -> Value {
    let variant = referee.header().variant;
    let Some(times) = referee.clock_times() else {
        return Value::Null;
    };
    let [first, second] = variant.side_names();
    json!({
        format!("{first}_ms"): times.first_ms,
        format!("{second}_ms"): times.second_ms,
        "running": (referee.ending().is_none()).then(|| times.running.name(variant)),
    })
}

/// The squares a move touched, as the log names them, for the board to outline.
fn last_squares(event: &Event) -> Vec<String> {
    match &event.kind {
        EventKind::Move { from, to, .. } => vec![from.to_string(), to.to_string()],
        EventKind::Place { to } => vec![to.to_string()],
        _ => Vec::new(),
    }
}

fn rulings_json(rulings: &[Ruling], variant: Variant) -> Value {
    Value::Array(rulings.iter().map(|r| r.to_value(variant)).collect())
}

/// A whole game for the board view: one frame per seq (0 = the start), every event with its
/// words, every ruling with the seq of the arbiter's overturn if there was one. `up_to`
/// stops early (the public view's delay).
pub fn game(loaded: &LoadedLog, up_to: Option<u64>) -> Result<Value, Error> {
    let header = &loaded.header;
    let variant = header.variant;
    let mut referee = Referee::new(header)?;
    let mut frames = vec![frame(&referee, None, &[])];
    let mut events = Vec::new();
    let mut overturns = Map::new();
    for (record, event) in loaded
        .events
        .iter()
        .take_while(|(r, _)| up_to.is_none_or(|u| r.seq <= u))
    {
        let step = referee.step(record.seq, event);
        events.push(json!({
            "seq": record.seq,
            "side": event.side.name(variant),
            "type": event.kind.type_name(),
            "text": step.words,
            "received_ms": record.received_ms,
        }));
        if let Some(target) = overturned(event) {
            overturns.insert(target.to_string(), json!(record.seq));
        }
        let shown = (record, event, step.words.as_str());
        frames.push(frame(&referee, Some(shown), &step.rulings));
    }
    let rulings: Vec<Value> = referee
        .rulings()
        .iter()
        .map(|r| {
            let mut v = r.to_value(variant);
            let by = overturns.get(&r.at.to_string()).cloned();
            v["overturned_at"] = by.unwrap_or(Value::Null);
            v
        })
        .collect();
    Ok(json!({
        "id": header.id,
        "variant": variant.name(),
        "tags": tags(header),
        "result": referee.ending().map(|e| e.result.as_str()),
        "open": referee.open_conditions(),
        "frames": frames,
        "events": events,
        "rulings": rulings,
    }))
}

/// The ruling an arbiter's overturn names (by its `at`).
fn overturned(event: &Event) -> Option<u64> {
    match &event.kind {
        EventKind::Arbiter {
            decision: Decision::Overturn,
            ruling,
            ..
        } if event.side == Side::Arbiter => *ruling,
        _ => None,
    }
}
