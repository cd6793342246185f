//! The game-log interchange format (`shared/spec/log-format.md`): JSON Lines, a header then
//! one event per line. Reading refuses what cannot be an event with `line N: <what is wrong>`;
//! writing gives the canonical line the log stores and hashes.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::games::{SquareKind, Variant};
use crate::quote::quote;

use super::BoardTouch;
use super::check;
use super::{
    ClaimKind, ClockControl, Decision, Event, EventKind, ForbiddenRule, GameResult, Header,
    IllegalMovePolicy, OpeningRule, Period, Procedure, RuleOptions, RuleSet, Side, Square,
};

/// A parsed log file: the header and the events in log order (event `i` has seq `i + 1`).
#[derive(Clone, Debug, PartialEq)]
pub struct GameLog {
    pub header: Header,
    pub events: Vec<Event>,
    /// The file line of each event, for messages that point back into the file.
    pub lines: Vec<usize>,
    /// The file line of the header.
    pub header_line: usize,
}

/// A line of a log file that cannot be read.
#[derive(Debug, Error, PartialEq)]
#[error("line {line}: {message}")]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

/// Reads a whole log file.
pub fn parse_log(text: &str) -> Result<GameLog, LineError> {
    let mut header: Option<(Header, usize)> = None;
    let (mut events, mut lines) = (Vec::new(), Vec::new());
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let at = |message: String| LineError { line, message };
        let value: Value =
            serde_json::from_str(trimmed).map_err(|e| at(format!("malformed JSON: {e}")))?;
        match &header {
            None => header = Some((header_from_value(value).map_err(at)?, line)),
            Some((h, _)) => {
                let seq = u64::try_from(events.len() + 1).unwrap_or(u64::MAX);
                events.push(event_from_value(value, h.variant, Some(seq)).map_err(at)?);
                lines.push(line);
            }
        }
    }
    let (header, header_line) = header.ok_or(LineError {
        line: text.lines().count().max(1),
        message: "the log has no game header".into(),
    })?;
    Ok(GameLog {
        header,
        events,
        lines,
        header_line,
    })
}

/// Writes a whole log file: the header, then one line per event.
pub fn write_log(header: &Header, events: &[Event]) -> String {
    let mut out = header_to_json(header);
    out.push('\n');
    for event in events {
        out.push_str(&event_to_json(event, header.variant));
        out.push('\n');
    }
    out
}

/// Reads a header line.
pub fn header_from_json(text: &str) -> Result<Header, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON: {e}"))?;
    header_from_value(value)
}

/// Reads one event line of a game of `variant`. `seq`, when given, is the seq the event will
/// have; an event line that carries its own `seq` must match it.
pub fn event_from_json(text: &str, variant: Variant, seq: Option<u64>) -> Result<Event, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("malformed JSON: {e}"))?;
    event_from_value(value, variant, seq)
}

/// An object's fields, consumed one by one so that whatever is left is an unknown field.
struct Fields {
    what: String,
    map: Map<String, Value>,
}

impl Fields {
    fn new(value: Value, what: &str) -> Result<Fields, String> {
        match value {
            Value::Object(map) => Ok(Fields {
                what: what.to_string(),
                map,
            }),
            other => Err(format!(
                "{what} must be a JSON object, found {}",
                kind_of(&other)
            )),
        }
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    fn required(&mut self, key: &str) -> Result<Value, String> {
        self.take(key)
            .ok_or_else(|| format!("{} has no \"{key}\" field", self.what))
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", &other)),
        }
    }

    fn required_string(&mut self, key: &str) -> Result<String, String> {
        let value = self.required(key)?;
        match value {
            Value::String(s) => Ok(s),
            other => Err(self.wrong(key, "a string", &other)),
        }
    }

    fn uint(&mut self, key: &str) -> Result<Option<u64>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a whole number >= 0", &v)),
        }
    }

    fn uint32(&mut self, key: &str) -> Result<Option<u32>, String> {
        match self.uint(key)? {
            None => Ok(None),
            Some(n) => u32::try_from(n)
                .map(Some)
                .map_err(|_| format!("\"{key}\" {n} is too large")),
        }
    }

    fn boolean(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(self.wrong(key, "true or false", &other)),
        }
    }

    fn wrong(&self, key: &str, wanted: &str, found: &Value) -> String {
        format!(
            "\"{key}\" of {} must be {wanted}, found {}",
            self.what,
            show(found)
        )
    }

    /// Refuses whatever field was not consumed.
    fn finish(self) -> Result<(), String> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(key) => Err(format!("unknown field {} in {}", quote(key), self.what)),
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value for a message: strings quoted short, other values whole while short.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s).to_string(),
        other => {
            let text = other.to_string();
            if text.len() > 40 {
                kind_of(other).to_string()
            } else {
                text
            }
        }
    }
}

fn header_from_value(value: Value) -> Result<Header, String> {
    let mut f = Fields::new(value, "the game header")?;
    let kind = f.required_string("type")?;
    if kind != "game" {
        return Err(format!(
            "the first line must be the game header with \"type\":\"game\", found type {}",
            quote(&kind)
        ));
    }
    let name = f.required_string("variant")?;
    let variant = Variant::parse_named(&name)?;
    let id = f.required_string("id")?;
    let start = f.string("start")?;
    let rules = match f.take("rules") {
        None => RuleOptions::default(),
        Some(v) => rules_from_value(v, variant)?,
    };
    let clock = f.take("clock").map(clock_from_value).transpose()?;
    let tags = f.take("tags").map(tags_from_value).transpose()?;
    f.finish()?;
    Ok(Header {
        variant,
        id,
        start,
        rules,
        clock,
        tags: tags.unwrap_or_default(),
    })
}

fn tags_from_value(value: Value) -> Result<Vec<(String, String)>, String> {
    let Value::Object(map) = value else {
        return Err(format!(
            "\"tags\" must be an object of strings, found {}",
            kind_of(&value)
        ));
    };
    let mut tags = Vec::with_capacity(map.len());
    for (name, value) in map {
        match value {
            Value::String(text) => tags.push((name, text)),
            other => {
                return Err(format!(
                    "tag {} must be a string, found {}",
                    quote(&name),
                    show(&other)
                ));
            }
        }
    }
    check::tags(&tags)?;
    Ok(tags)
}

fn rules_from_value(value: Value, variant: Variant) -> Result<RuleOptions, String> {
    let mut f = Fields::new(value, "\"rules\"")?;
    let rules = RuleOptions {
        move_limit: f.uint32("move_limit")?,
        foul_limit: f.uint32("foul_limit")?,
        illegal_move: named(
            f.string("illegal_move")?,
            "illegal_move",
            IllegalMovePolicy::parse,
        )?,
        repetition_count: f.uint32("repetition_count")?,
        rule_set: named(f.string("rule_set")?, "rule_set", RuleSet::parse)?,
        procedure: named(f.string("procedure")?, "procedure", Procedure::parse)?,
        forbidden: named(f.string("forbidden")?, "forbidden", ForbiddenRule::parse)?,
        opening: f
            .string("opening")?
            .map(|text| OpeningRule::parse(&text).ok_or_else(|| opening_refused(&text)))
            .transpose()?,
        board_hold_ms: f.uint("board_hold_ms")?,
        board_touch: named(f.string("board_touch")?, "board_touch", BoardTouch::parse)?,
    };
    f.finish()?;
    check::rules(&rules, variant)?;
    Ok(rules)
}

/// Why an `opening` is refused: the names it may take.
pub fn opening_refused(text: &str) -> String {
    format!(
        "unknown opening {} (expected {}; N from 1 to {})",
        quote(text),
        OpeningRule::NAMES.join(", "),
        OpeningRule::MAX_OFFERS
    )
}

fn named<T>(
    value: Option<String>,
    key: &str,
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, String> {
    value
        .map(|text| parse(&text).ok_or_else(|| format!("unknown {key} {}", quote(&text))))
        .transpose()
}

fn clock_from_value(value: Value) -> Result<ClockControl, String> {
    let mut f = Fields::new(value, "\"clock\"")?;
    let initial_ms = f.uint("initial_ms")?;
    let periods = match f.take("periods") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| period_from_value(v, i))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(f.wrong("periods", "an array", &other)),
    };
    let clock = ClockControl {
        initial_ms,
        periods,
        increment_ms: f.uint("increment_ms")?.unwrap_or(0),
        per_move_ms: f.uint("per_move_ms")?,
        per_move_after_ms: f.uint("per_move_after_ms")?,
    };
    f.finish()?;
    check::clock(&clock)?;
    Ok(clock)
}

fn period_from_value(value: Value, index: usize) -> Result<Period, String> {
    let what = format!("clock period {}", index + 1);
    let mut f = Fields::new(value, &what)?;
    let moves = f
        .uint32("moves")?
        .ok_or(format!("{what} has no \"moves\""))?;
    let ms = f.uint("ms")?.ok_or(format!("{what} has no \"ms\""))?;
    f.finish()?;
    let period = Period { moves, ms };
    check::period(&period, index)?;
    Ok(period)
}

fn event_from_value(value: Value, variant: Variant, seq: Option<u64>) -> Result<Event, String> {
    let mut f = Fields::new(value, "the event")?;
    let kind_name = f.required_string("type")?;
    // Messages name the event by its type; an unknown type is the board's text, so quoted.
    f.what = if EVENT_TYPES.contains(&kind_name.as_str()) {
        format!("the {kind_name} event")
    } else {
        format!("the event of type {}", quote(&kind_name))
    };
    // A board's report has no side: the device reads both players' pieces.
    let side = if kind_name == "board" {
        if f.take("side").is_some() {
            return Err(
                "a board event has no \"side\": the board reports both players' pieces".into(),
            );
        }
        Side::Board
    } else {
        let side_name = f.required_string("side")?;
        Side::parse(&side_name, variant).ok_or_else(|| {
            let [a, b] = variant.side_names();
            format!(
                "unknown side {} for {variant} (expected {a}, {b} or arbiter)",
                quote(&side_name)
            )
        })?
    };
    let ts_ms = f.uint("ts_ms")?;
    if let Some(given) = f.uint("seq")? {
        match seq {
            Some(expected) if expected != given => {
                return Err(format!(
                    "seq {given} is not the next one (expected {expected})"
                ));
            }
            _ => {}
        }
    }
    let kind = event_kind(&mut f, &kind_name, variant)?;
    f.finish()?;
    check::side(&kind, side)?;
    Ok(Event { side, ts_ms, kind })
}

/// The `type` of every event, as [`event_kind`] reads them.
const EVENT_TYPES: [&str; 14] = [
    "touch",
    "move",
    "reveal",
    "clock",
    "draw_offer",
    "draw_reply",
    "claim",
    "resign",
    "arbiter",
    "board",
    "swap",
    "declare",
    "offer",
    "choose",
];

fn event_kind(f: &mut Fields, name: &str, variant: Variant) -> Result<EventKind, String> {
    Ok(match name {
        "touch" => EventKind::Touch {
            square: square(f, "square", variant)?,
            adjust: f.boolean("adjust")?.unwrap_or(false),
        },
        "move" => move_kind(f, variant)?,
        "reveal" => reveal_kind(f, variant)?,
        "clock" => clock_kind(f, variant)?,
        "draw_offer" => EventKind::DrawOffer,
        "draw_reply" => EventKind::DrawReply {
            accept: f
                .boolean("accept")?
                .ok_or("the draw_reply event has no \"accept\" field")?,
        },
        "claim" => EventKind::Claim {
            claim: named(Some(f.required_string("claim")?), "claim", ClaimKind::parse)?
                .expect("claim given"),
        },
        "resign" => EventKind::Resign,
        "arbiter" => arbiter_kind(f, variant)?,
        "board" => board_kind(f, variant)?,
        "swap" | "declare" | "offer" | "choose" => opening_kind(f, name, variant)?,
        other => {
            return Err(format!(
                "unknown event type {} (expected {})",
                quote(other),
                EVENT_TYPES.join(", ")
            ));
        }
    })
}

fn square(f: &mut Fields, key: &str, variant: Variant) -> Result<Square, String> {
    let value = f.required(key)?;
    parse_square(&value, variant).map_err(|e| format!("\"{key}\": {e}"))
}

fn parse_square(value: &Value, variant: Variant) -> Result<Square, String> {
    let squares = &variant.spec().squares;
    let parsed = match (squares.kind, value) {
        (SquareKind::Numbered, Value::Number(n)) => {
            n.as_u64().and_then(|n| Square::parse_number(variant, n))
        }
        (SquareKind::Numbered, other) => {
            return Err(format!(
                "{variant} squares are numbers {}, found {}",
                squares.range,
                show(other)
            ));
        }
        (SquareKind::Named, Value::String(s)) => Square::parse_text(variant, s),
        (SquareKind::Named, other) => {
            return Err(format!("a square must be a string, found {}", show(other)));
        }
    };
    parsed.ok_or_else(|| {
        format!(
            "square {} does not exist on the {variant} board",
            show(value)
        )
    })
}

fn move_kind(f: &mut Fields, variant: Variant) -> Result<EventKind, String> {
    if let Some(refusal) = check::placed(variant) {
        return place_kind(f, variant, refusal);
    }
    let from = square(f, "from", variant)?;
    let to = square(f, "to", variant)?;
    let promotion = f.string("promotion")?;
    let promotion = promotion
        .map(|p| check::promotion(variant, &p))
        .transpose()?;
    let captures = match f.take("captures") {
        None => None,
        Some(_) if let Err(e) = check::captures(variant) => return Err(e),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| parse_square(v, variant).map_err(|e| format!("\"captures\": {e}")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => return Err(f.wrong("captures", "an array of squares", &other)),
    };
    Ok(EventKind::Move {
        from,
        to,
        promotion,
        captures,
    })
}

/// A placed piece (a renju stone): `to` and nothing else of a move; `refusal` says why a
/// `from` is refused.
fn place_kind(f: &mut Fields, variant: Variant, refusal: String) -> Result<EventKind, String> {
    if f.take("from").is_some() {
        return Err(refusal);
    }
    let to = square(f, "to", variant)?;
    for key in ["promotion", "captures"] {
        if f.take(key).is_some() {
            return Err(format!("\"{key}\" is not a field of a {variant} move"));
        }
    }
    Ok(EventKind::Place { to })
}

/// A renju opening step: `swap`, `declare` with `offers`, `offer` with `points`, `choose`
/// with `to`.
fn opening_kind(f: &mut Fields, name: &str, variant: Variant) -> Result<EventKind, String> {
    check::opening_event(variant, name)?;
    let kind = match name {
        "swap" => EventKind::Swap,
        "declare" => {
            let offers = f
                .uint32("offers")?
                .ok_or("the declare event has no \"offers\" field")?;
            EventKind::Declare { offers }
        }
        "offer" => {
            let points = match f.take("points") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| parse_square(v, variant).map_err(|e| format!("\"points\": {e}")))
                    .collect::<Result<Vec<_>, _>>()?,
                Some(other) => return Err(f.wrong("points", "an array of squares", &other)),
                None => return Err("the offer event has no \"points\" field".into()),
            };
            EventKind::Offer { points }
        }
        _ => EventKind::Choose {
            to: square(f, "to", variant)?,
        },
    };
    check::opening_fields(&kind)?;
    Ok(kind)
}

fn reveal_kind(f: &mut Fields, variant: Variant) -> Result<EventKind, String> {
    check::reveal(variant)?;
    let square = square(f, "square", variant)?;
    let piece = check::revealed_piece(&f.required_string("piece")?)?;
    let promotion = f
        .string("promotion")?
        .map(|p| check::revealed_promotion(&p))
        .transpose()?;
    Ok(EventKind::Reveal {
        square,
        piece,
        promotion,
    })
}

fn clock_kind(f: &mut Fields, variant: Variant) -> Result<EventKind, String> {
    let [first, second] = variant.side_names();
    let first_ms = f.uint(&format!("{first}_ms"))?;
    let second_ms = f.uint(&format!("{second}_ms"))?;
    Ok(EventKind::Clock {
        first_ms,
        second_ms,
    })
}

fn board_kind(f: &mut Fields, variant: Variant) -> Result<EventKind, String> {
    let placement = f.required_string("placement")?;
    check::placement(variant, &placement).map_err(|e| format!("\"placement\": {e}"))?;
    let device = f.string("device")?;
    if let Some(d) = &device {
        check::device(d)?;
    }
    Ok(EventKind::Board { placement, device })
}

/// The moves of an arbiter's `set`: `move` (or renju stone) and `reveal` events of a player.
fn set_moves(value: Value, variant: Variant) -> Result<Vec<Event>, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "\"moves\" must be an array of events, found {}",
            show(&value)
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let event = event_from_value(item, variant, None)
                .map_err(|e| format!("\"moves\" item {}: {e}", i + 1))?;
            check::set_move(&event).map_err(|e| format!("\"moves\" item {}: {e}", i + 1))?;
            Ok(event)
        })
        .collect()
}

fn arbiter_kind(f: &mut Fields, variant: Variant) -> Result<EventKind, String> {
    let decision = named(
        Some(f.required_string("decision")?),
        "decision",
        Decision::parse,
    )?
    .expect("decision given");
    let ruling = f.uint("ruling")?;
    let result = named(f.string("result")?, "result", GameResult::parse)?;
    let text = f.string("text")?;
    let moves = match f.take("moves") {
        Some(value) => set_moves(value, variant)?,
        None => Vec::new(),
    };
    check::arbiter(decision, ruling, result, &moves)?;
    Ok(EventKind::Arbiter {
        decision,
        ruling,
        result,
        text,
        moves,
    })
}

/// The canonical header line.
pub fn header_to_json(header: &Header) -> String {
    let mut m = Map::new();
    m.insert("type".into(), "game".into());
    m.insert("variant".into(), header.variant.name().into());
    m.insert("id".into(), header.id.clone().into());
    if let Some(start) = &header.start {
        m.insert("start".into(), start.clone().into());
    }
    if !header.tags.is_empty() {
        let tags = header
            .tags
            .iter()
            .map(|(name, value)| (name.clone(), Value::from(value.as_str())))
            .collect();
        m.insert("tags".into(), Value::Object(tags));
    }
    let rules = rules_to_value(&header.rules);
    if !rules.is_empty() {
        m.insert("rules".into(), Value::Object(rules));
    }
    if let Some(clock) = &header.clock {
        m.insert("clock".into(), clock_to_value(clock));
    }
    Value::Object(m).to_string()
}

fn rules_to_value(rules: &RuleOptions) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(v) = value {
            m.insert(key.into(), v);
        }
    };
    put("move_limit", rules.move_limit.map(Value::from));
    put("foul_limit", rules.foul_limit.map(Value::from));
    put(
        "illegal_move",
        rules.illegal_move.map(|p| p.as_str().into()),
    );
    put("repetition_count", rules.repetition_count.map(Value::from));
    put("rule_set", rules.rule_set.map(|r| r.as_str().into()));
    put("procedure", rules.procedure.map(|p| p.as_str().into()));
    put("forbidden", rules.forbidden.map(|p| p.as_str().into()));
    put("opening", rules.opening.map(|o| o.to_string().into()));
    put("board_hold_ms", rules.board_hold_ms.map(Value::from));
    put("board_touch", rules.board_touch.map(|p| p.as_str().into()));
    m
}

fn clock_to_value(clock: &ClockControl) -> Value {
    let mut m = Map::new();
    if let Some(ms) = clock.initial_ms {
        m.insert("initial_ms".into(), ms.into());
    }
    if !clock.periods.is_empty() {
        let periods = clock
            .periods
            .iter()
            .map(|p| serde_json::json!({"moves": p.moves, "ms": p.ms}))
            .collect();
        m.insert("periods".into(), Value::Array(periods));
    }
    m.insert("increment_ms".into(), clock.increment_ms.into());
    if let Some(ms) = clock.per_move_ms {
        m.insert("per_move_ms".into(), ms.into());
    }
    if let Some(ms) = clock.per_move_after_ms {
        m.insert("per_move_after_ms".into(), ms.into());
    }
    Value::Object(m)
}

/// The canonical line of an event: `type`, `side`, the type's fields, then `ts_ms`.
pub fn event_to_json(event: &Event, variant: Variant) -> String {
    event_value(event, variant).to_string()
}

/// An event as the log writes it (a board's report without `side`).
pub fn event_value(event: &Event, variant: Variant) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), event.kind.type_name().into());
    if event.side != Side::Board {
        m.insert("side".into(), event.side.name(variant).into());
    }
    kind_fields(&event.kind, variant, &mut m);
    if let Some(ts) = event.ts_ms {
        m.insert("ts_ms".into(), ts.into());
    }
    Value::Object(m)
}

fn square_value(square: Square) -> Value {
    match square {
        Square::Draughts(s) => u64::from(s.number()).into(),
        other => other.to_string().into(),
    }
}

fn kind_fields(kind: &EventKind, variant: Variant, m: &mut Map<String, Value>) {
    match kind {
        EventKind::Touch { square, adjust } => {
            m.insert("square".into(), square_value(*square));
            if *adjust {
                m.insert("adjust".into(), true.into());
            }
        }
        EventKind::Move {
            from,
            to,
            promotion,
            captures,
        } => {
            m.insert("from".into(), square_value(*from));
            m.insert("to".into(), square_value(*to));
            if let Some(p) = promotion {
                m.insert("promotion".into(), p.to_string().into());
            }
            if let Some(c) = captures {
                m.insert(
                    "captures".into(),
                    c.iter().map(|s| square_value(*s)).collect(),
                );
            }
        }
        EventKind::Place { to } => {
            m.insert("to".into(), square_value(*to));
        }
        EventKind::Reveal {
            square,
            piece,
            promotion,
        } => {
            m.insert("square".into(), square_value(*square));
            m.insert("piece".into(), piece.to_string().into());
            if let Some(p) = promotion {
                m.insert("promotion".into(), p.to_string().into());
            }
        }
        EventKind::Clock {
            first_ms,
            second_ms,
        } => {
            let [first, second] = variant.side_names();
            if let Some(ms) = first_ms {
                m.insert(format!("{first}_ms"), (*ms).into());
            }
            if let Some(ms) = second_ms {
                m.insert(format!("{second}_ms"), (*ms).into());
            }
        }
        EventKind::DrawOffer | EventKind::Resign => {}
        EventKind::DrawReply { accept } => {
            m.insert("accept".into(), (*accept).into());
        }
        EventKind::Claim { claim } => {
            m.insert("claim".into(), claim.as_str().into());
        }
        EventKind::Arbiter {
            decision,
            ruling,
            result,
            text,
            moves,
        } => {
            m.insert("decision".into(), decision.as_str().into());
            if let Some(r) = ruling {
                m.insert("ruling".into(), (*r).into());
            }
            if let Some(r) = result {
                m.insert("result".into(), r.as_str().into());
            }
            if let Some(t) = text {
                m.insert("text".into(), t.clone().into());
            }
            if !moves.is_empty() {
                let moves = moves.iter().map(|e| event_value(e, variant)).collect();
                m.insert("moves".into(), Value::Array(moves));
            }
        }
        EventKind::Swap => {}
        EventKind::Declare { offers } => {
            m.insert("offers".into(), (*offers).into());
        }
        EventKind::Offer { points } => {
            m.insert(
                "points".into(),
                points.iter().map(|s| square_value(*s)).collect(),
            );
        }
        EventKind::Choose { to } => {
            m.insert("to".into(), square_value(*to));
        }
        EventKind::Board { placement, device } => {
            m.insert("placement".into(), placement.clone().into());
            if let Some(d) = device {
                m.insert("device".into(), d.clone().into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../../replay-fixtures/xiangqi/blocked-horse-leg.jsonl");

    #[test]
    fn reads_the_spec_example_and_writes_it_back() {
        let log = parse_log(EXAMPLE).unwrap();
        assert_eq!(log.header.variant, Variant::Xiangqi);
        assert_eq!(log.events.len(), 6);
        let written = write_log(&log.header, &log.events);
        assert_eq!(parse_log(&written).unwrap().events, log.events);
    }

    fn error_of(text: &str) -> String {
        parse_log(text).unwrap_err().to_string()
    }

    const XQ: &str = r#"{"type":"game","variant":"xiangqi","id":"t"}"#;

    #[test]
    fn board_reports_read_without_a_side_and_are_refused_naming_the_field() {
        let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
        let line = format!(r#"{{"type":"board","placement":"{start}","device":"SN1","ts_ms":5}}"#);
        let log = parse_log(&format!("{XQ}\n{line}")).unwrap();
        assert_eq!(log.events[0].side, Side::Board);
        assert_eq!(event_to_json(&log.events[0], Variant::Xiangqi), line);
        let cases = [
            (
                format!(r#"{{"type":"board","side":"red","placement":"{start}"}}"#),
                "line 2: a board event has no \"side\"",
            ),
            (
                r#"{"type":"board","placement":"9/9/9"}"#.to_string(),
                "line 2: \"placement\": the placement has 3 rows, expected 10",
            ),
            (
                r#"{"type":"board","placement":"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNQ"}"#
                    .to_string(),
                "line 2: \"placement\": unknown letter \"Q\" in row 10",
            ),
            (
                r#"{"type":"board"}"#.to_string(),
                "line 2: the board event has no \"placement\"",
            ),
            (
                r#"{"type":"arbiter","side":"arbiter","decision":"set"}"#.to_string(),
                "line 2: an arbiter \"set\" needs the \"moves\"",
            ),
            (
                r#"{"type":"arbiter","side":"arbiter","decision":"set","moves":[{"type":"clock","side":"red"}]}"#
                    .to_string(),
                "line 2: \"moves\" item 1: an arbiter \"set\" gives move and reveal events, found clock",
            ),
            (
                r#"{"type":"arbiter","side":"arbiter","decision":"warn","moves":[{"type":"move","side":"red","from":"h2","to":"e2"}]}"#
                    .to_string(),
                "line 2: \"moves\" belongs to an arbiter \"set\"",
            ),
        ];
        for (text, wanted) in cases {
            let error = error_of(&format!("{XQ}\n{text}"));
            assert!(error.starts_with(wanted), "{text}: {error}");
        }
        let set = r#"{"type":"arbiter","side":"arbiter","decision":"set","moves":[{"type":"move","side":"red","from":"h2","to":"e2"}]}"#;
        let log = parse_log(&format!("{XQ}\n{set}")).unwrap();
        assert_eq!(event_to_json(&log.events[0], Variant::Xiangqi), set);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_line_number() {
        let cases = [
            (
                format!("{XQ}\n{{\"type\":\"move\""),
                "line 2: malformed JSON",
            ),
            (
                format!("{XQ}\n# c\n\n{{\"type\":\"mvoe\",\"side\":\"red\"}}"),
                "line 4: unknown event type \"mvoe\"",
            ),
            (
                format!(
                    "{XQ}\n{{\"type\":\"move\",\"side\":\"red\",\"from\":\"j4\",\"to\":\"a1\"}}"
                ),
                "line 2: \"from\": square \"j4\" does not exist",
            ),
            (
                format!(
                    "{XQ}\n{{\"type\":\"move\",\"side\":\"red\",\"from\":\"a0\",\"to\":\"a1\",\"frm\":1}}"
                ),
                "line 2: unknown field \"frm\" in the move event",
            ),
            (
                format!(
                    "{XQ}\n{{\"type\":\"move\",\"side\":\"white\",\"from\":\"a0\",\"to\":\"a1\"}}"
                ),
                "line 2: unknown side \"white\" for xiangqi",
            ),
            (
                format!("{XQ}\n{{\"type\":\"resign\",\"side\":\"red\",\"seq\":2}}"),
                "line 2: seq 2 is not the next one (expected 1)",
            ),
            (
                format!(
                    "{XQ}\n{{\"type\":\"reveal\",\"side\":\"red\",\"square\":\"a0\",\"piece\":\"R\"}}"
                ),
                "line 2: reveal events exist only in chess_gjq",
            ),
            (
                "{\"type\":\"game\",\"variant\":\"go\",\"id\":\"x\"}".to_string(),
                "line 1: unknown variant \"go\"",
            ),
            (
                "{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"x\",\"rules\":{\"moves\":3}}"
                    .to_string(),
                "line 1: unknown field \"moves\" in \"rules\"",
            ),
            (
                "# only a comment\n".to_string(),
                "line 1: the log has no game header",
            ),
        ];
        for (text, want) in cases {
            let got = error_of(&text);
            assert!(got.starts_with(want), "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn long_values_are_quoted_short() {
        let long = "x".repeat(64 * 1024);
        let shown = format!("\"{}…\" (65536 bytes)", "x".repeat(40));
        let event = |fields: &str| format!("{XQ}\n{{{fields}}}");
        let cases = [
            (
                event(&format!(r#""type":"{long}","side":"red""#)),
                format!("line 2: unknown event type {shown}"),
            ),
            (
                event(&format!(r#""type":"{long}""#)),
                format!("line 2: the event of type {shown} has no \"side\" field"),
            ),
            (
                event(&format!(r#""type":"claim","side":"red","claim":"{long}""#)),
                format!("line 2: unknown claim {shown}"),
            ),
            (
                event(&format!(
                    r#""type":"move","side":"red","from":"{long}","to":"a1""#
                )),
                format!("line 2: \"from\": square {shown} does not exist"),
            ),
            (
                event(&format!(r#""type":"resign","side":"red","{long}":1"#)),
                format!("line 2: unknown field {shown} in the resign event"),
            ),
        ];
        for (text, want) in cases {
            let got = error_of(&text);
            assert!(got.starts_with(&want), "got {got:?}, want {want:?}");
            // The echo is cut; the rest is the message's own words (the longest lists the
            // 14 event types).
            assert!(got.len() < 240, "{} bytes: {got}", got.len());
        }
    }

    #[test]
    fn draughts_squares_are_numbers() {
        let head = r#"{"type":"game","variant":"draughts","id":"d"}"#;
        let ok = format!("{head}\n{{\"type\":\"move\",\"side\":\"white\",\"from\":32,\"to\":28}}");
        assert_eq!(parse_log(&ok).unwrap().events.len(), 1);
        let bad = format!("{head}\n{{\"type\":\"move\",\"side\":\"white\",\"from\":51,\"to\":28}}");
        assert!(error_of(&bad).contains("square 51 does not exist"));
        let text =
            format!("{head}\n{{\"type\":\"move\",\"side\":\"white\",\"from\":\"32\",\"to\":28}}");
        assert!(error_of(&text).contains("draughts squares are numbers"));
    }

    #[test]
    fn canonical_lines_round_trip_for_every_event_type() {
        let head = r#"{"type":"game","variant":"chess_gjq","id":"g","rules":{"foul_limit":2},"clock":{"initial_ms":1800000,"increment_ms":10000}}"#;
        let lines = [
            r#"{"type":"touch","side":"white","square":"e2","adjust":true}"#,
            r#"{"type":"move","side":"white","from":"e2","to":"e4","ts_ms":5}"#,
            r#"{"type":"reveal","side":"white","square":"e4","piece":"P"}"#,
            r#"{"type":"move","side":"black","from":"d8","to":"d1","promotion":"q"}"#,
            r#"{"type":"clock","side":"white","white_ms":1,"black_ms":2}"#,
            r#"{"type":"draw_offer","side":"black"}"#,
            r#"{"type":"draw_reply","side":"white","accept":false}"#,
            r#"{"type":"claim","side":"white","claim":"repetition"}"#,
            r#"{"type":"resign","side":"black"}"#,
            r#"{"type":"arbiter","side":"arbiter","decision":"overturn","ruling":3,"result":"1-0","text":"why"}"#,
        ];
        let header = header_from_json(head).unwrap();
        assert_eq!(header_to_json(&header), head);
        for line in lines {
            let event = event_from_json(line, Variant::ChessGjq, None).unwrap();
            assert_eq!(event_to_json(&event, Variant::ChessGjq), line);
        }
    }

    #[test]
    fn renju_opening_steps_round_trip_and_bad_ones_are_refused_naming_the_field() {
        let head = r#"{"type":"game","variant":"renju","id":"g","rules":{"opening":"soosorv-8"}}"#;
        let lines = [
            r#"{"type":"swap","side":"white"}"#,
            r#"{"type":"declare","side":"white","offers":2}"#,
            r#"{"type":"offer","side":"black","points":["g7","j11"]}"#,
            r#"{"type":"choose","side":"white","to":"j11"}"#,
        ];
        let log = parse_log(&format!("{head}\n{}", lines.join("\n"))).unwrap();
        assert_eq!(log.header.rules.opening, Some(OpeningRule::Soosorv(8)));
        let written: Vec<String> = (log.events.iter())
            .map(|e| event_to_json(e, Variant::Renju))
            .collect();
        assert_eq!(written, lines);
        let refused = [
            (
                r#"{"type":"declare","side":"white","offers":0}"#,
                "\"offers\" must be 1 to 225",
            ),
            (
                r#"{"type":"declare","side":"white"}"#,
                "has no \"offers\" field",
            ),
            (
                r#"{"type":"offer","side":"black","points":[]}"#,
                "\"points\" names no point",
            ),
            (
                r#"{"type":"offer","side":"black","points":["g7","g7"]}"#,
                "\"points\" names g7 twice",
            ),
            (
                r#"{"type":"offer","side":"black","points":["g7","p1"]}"#,
                "\"points\": square \"p1\" does not exist",
            ),
            (r#"{"type":"choose","side":"white"}"#, "has no \"to\""),
        ];
        for (line, want) in refused {
            let got = error_of(&format!("{head}\n{line}"));
            assert!(got.contains(want), "{line}: got {got:?}, want {want:?}");
            assert!(got.starts_with("line 2:"), "{got}");
        }
        let swap_in_xiangqi = error_of(&format!("{XQ}\n{}", r#"{"type":"swap","side":"red"}"#));
        assert!(
            swap_in_xiangqi.contains("swap events exist only in renju"),
            "{swap_in_xiangqi}"
        );
        let bad_rule =
            r#"{"type":"game","variant":"renju","id":"g","rules":{"opening":"soosorv-0"}}"#;
        assert!(error_of(bad_rule).contains("unknown opening \"soosorv-0\""));
    }

    #[test]
    fn a_renju_stone_is_placed_on_to_and_has_no_from() {
        let head = r#"{"type":"game","variant":"renju","id":"g","rules":{"forbidden":"replay"}}"#;
        let header = header_from_json(head).unwrap();
        assert_eq!(header.rules.forbidden, Some(ForbiddenRule::Replay));
        assert_eq!(header_to_json(&header), head);
        let stone = r#"{"type":"move","side":"black","to":"h8"}"#;
        let log = parse_log(&format!("{head}\n{stone}")).unwrap();
        let to = Square::parse_text(Variant::Renju, "h8").unwrap();
        assert_eq!(log.events[0].kind, EventKind::Place { to });
        assert_eq!(
            log.events[0].side,
            Side::First,
            "black moves first in renju"
        );
        assert_eq!(event_to_json(&log.events[0], Variant::Renju), stone);
        let refused = [
            (
                r#"{"type":"move","side":"black","from":"h7","to":"h8"}"#,
                "a renju move has \"to\" and no \"from\"",
            ),
            (
                r#"{"type":"move","side":"black","to":"p8"}"#,
                "square \"p8\" does not exist on the renju board",
            ),
            (
                r#"{"type":"move","side":"white","to":"o16"}"#,
                "does not exist on the renju board",
            ),
            (
                r#"{"type":"move","side":"black","to":"h8","captures":["h9"]}"#,
                "\"captures\" is not a field of a renju move",
            ),
            (r#"{"type":"move","side":"red","to":"h8"}"#, "red"),
        ];
        for (line, want) in refused {
            let error = error_of(&format!("{head}\n{line}"));
            assert!(
                error.contains("line 2") && error.contains(want),
                "{line}: {error}"
            );
        }
        let options = [
            (r#"{"forbidden":"later"}"#, "unknown forbidden \"later\""),
            (
                r#"{"move_limit":60}"#,
                "\"move_limit\" is not a rule option of renju",
            ),
            (
                r#"{"illegal_move":"foul"}"#,
                "\"illegal_move\" is not a rule option of renju",
            ),
        ];
        for (rules, want) in options {
            let head = format!(r#"{{"type":"game","variant":"renju","id":"g","rules":{rules}}}"#);
            assert!(
                error_of(&head).contains(want),
                "{rules}: {}",
                error_of(&head)
            );
        }
        let xiangqi =
            r#"{"type":"game","variant":"xiangqi","id":"g","rules":{"forbidden":"loss"}}"#;
        assert!(error_of(xiangqi).contains("\"forbidden\" is not a rule option of xiangqi"));
    }

    #[test]
    fn procedure_is_a_xiangqi_option_and_unknown_values_are_refused() {
        let head =
            r#"{"type":"game","variant":"xiangqi","id":"g","rules":{"procedure":"automatic"}}"#;
        let header = header_from_json(head).unwrap();
        assert_eq!(header.rules.procedure, Some(Procedure::Automatic));
        assert_eq!(header_to_json(&header), head);
        let unknown =
            r#"{"type":"game","variant":"xiangqi","id":"g","rules":{"procedure":"judge"}}"#;
        assert!(error_of(unknown).contains("unknown procedure \"judge\""));
        let draughts =
            r#"{"type":"game","variant":"draughts","id":"g","rules":{"procedure":"arbiter"}}"#;
        assert!(error_of(draughts).contains("\"procedure\" is not a rule option of draughts"));
    }
}
