//! What the console draws, as JSON: a board's frame after an event (position, clocks, last
//! move, the rulings it gave rise to) and a whole game as frames for the replay slider.

use serde_json::{Map, Value, json};

use crate::event::{Decision, Event, EventKind, Header, Side};
use crate::games::Variant;
use crate::games::sensor::{self, Placement};
use crate::referee::{Referee, Ruling};
use crate::stored::{Error, Fold, LoadedLog};

/// The board as `fold` left it, as the hall shows it: after its last event (none yet: the
/// start), with the event's words, the moves it made (derived from a board or set by the
/// arbiter) and the rulings it gave rise to.
pub fn frame(fold: &Fold, rulings: &[Ruling]) -> Value {
    let referee = &fold.referee;
    let last = fold.last.as_ref();
    let variant = referee.header().variant;
    let mut m = Map::new();
    m.insert("id".into(), json!(referee.header().id));
    m.insert("variant".into(), json!(variant.name()));
    if let Some(players) = players(referee) {
        m.insert("players".into(), players);
    }
    // Renju under an opening rule: the colours stay tentative until the opening is over, and
    // the fifth-move offers stand on the board while white chooses.
    if let Some(opening) = referee.renju_opening() {
        m.insert("tentative".into(), json!(opening.tentative));
        m.insert("swapped".into(), json!(referee.players_swapped()));
        m.insert("offers".into(), json!(opening.offers));
    }
    m.insert("seq".into(), json!(referee.last_seq()));
    m.insert("fen".into(), json!(referee.fen()));
    m.insert(
        "to_move".into(),
        json!(referee.side_to_move().name(variant)),
    );
    m.insert("clock".into(), clock(fold));
    // The board's last move (played, derived from a board's reports, or set by the arbiter,
    // with a Gjq reveal that completed it): its squares and words, whatever came after it.
    let made = last.is_some_and(|l| !l.made.is_empty());
    let squares = fold
        .last_move
        .as_ref()
        .and_then(|m| m.events.first())
        .map(last_squares);
    m.insert("last".into(), json!(squares.unwrap_or_default()));
    m.insert(
        "move".into(),
        json!(fold.last_move.as_ref().map(|m| m.words.as_str())),
    );
    m.insert("made".into(), json!(made));
    m.insert("words".into(), json!(last.map(|l| l.words.as_str())));
    m.insert("type".into(), json!(last.map(|l| l.event.kind.type_name())));
    m.insert(
        "received_ms".into(),
        json!(last.map(|l| l.record.received_ms)),
    );
    m.insert("rulings".into(), rulings_json(rulings, variant));
    m.insert("board".into(), board(fold));
    m.insert(
        "result".into(),
        json!(referee.ending().map(|e| e.result.as_str())),
    );
    m.insert("open".into(), json!(referee.open_conditions()));
    Value::Object(m)
}

/// What the game's electronic board last reported, against the game's position: its device,
/// the report's seq and device time, when the server received it, its placement as sent and
/// turned the game's way round (`shown`), the squares where it differs from the position, and
/// a standing mismatch. `null` for a game no board reports to.
fn board(fold: &Fold) -> Value {
    let referee = &fold.referee;
    let variant = referee.header().variant;
    let Some(watch) = referee.board_watch() else {
        return Value::Null;
    };
    let mismatch = watch
        .mismatch
        .as_ref()
        .map(|m| json!({"seq": m.seq, "what": m.what}));
    let Some(last) = &watch.last else {
        return json!({"mismatch": mismatch});
    };
    let shown = sensor::read(variant, &last.placement)
        .ok()
        .map(|p| watch.oriented(p));
    let differs = match (&shown, game_placement(referee)) {
        (Some(shown), Some(game)) => {
            let cells = shown.cells().iter().zip(game.cells()).enumerate();
            cells
                .filter(|(_, (s, g))| !(watch.rules.shows)(**s, **g))
                .map(|(i, _)| sensor::cell_name(variant, i))
                .collect()
        }
        _ => Vec::new(),
    };
    json!({
        "device": last.device,
        "seq": last.seq,
        "ts_ms": last.ts,
        "received_ms": fold.report_received_ms,
        "placement": last.placement,
        "shown": shown.map(|p| sensor::write(variant, &p)),
        "turned": watch.turned,
        "differs": differs,
        "mismatch": mismatch,
    })
}

/// What a board shows of the game's position: the board part of its FEN (draughts: the
/// piece lists after the side to move).
fn game_placement(referee: &Referee) -> Option<Placement> {
    let variant = referee.header().variant;
    let fen = referee.fen();
    let part = match variant {
        Variant::Draughts => fen.split_once(':').map_or("", |(_, lists)| lists),
        _ => fen.split_whitespace().next().unwrap_or(""),
    };
    sensor::read(variant, part).ok()
}

/// The squares where two placements of one board differ, by name.
fn changed(variant: Variant, before: &Placement, now: &Placement) -> Vec<String> {
    now.cells()
        .iter()
        .zip(before.cells())
        .enumerate()
        .filter(|(_, (n, b))| n != b)
        .map(|(i, _)| sensor::cell_name(variant, i))
        .collect()
}

/// The players by side from the header's tags (`White`/`Red`, `Black`), where it names any;
/// after a renju swap, each colour's player is the other tag's.
fn players(referee: &Referee) -> Option<Value> {
    let names = [Side::First, Side::Second].map(|side| referee.player(side).map(str::to_string));
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
/// The clocks as the last press left them: each side's time, the side whose clock runs
/// (none once the game is over), and when the server received that press (`pressed_ms`),
/// from which the running clock counts down; in a game whose header sets no time control,
/// the times the board's clock showed (`shown: true`); `null` when there are none.
fn clock(fold: &Fold) -> Value {
    let referee = &fold.referee;
    let variant = referee.header().variant;
    // Without a time control, the times the board's clock showed (`shown`).
    let (times, shown) = match (referee.clock_times(), referee.shown_clock_times()) {
        (Some(times), _) => (times, false),
        (None, Some(times)) => (times, true),
        (None, None) => return Value::Null,
    };
    let [first, second] = variant.side_names();
    json!({
        format!("{first}_ms"): times.first_ms,
        format!("{second}_ms"): times.second_ms,
        "running": (referee.ending().is_none()).then(|| times.running.name(variant)),
        "pressed_ms": fold.press_received_ms,
        "shown": shown,
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
    let mut fold = Fold::start(&loaded.header_record)?;
    let mut frames = vec![frame(&fold, &[])];
    let mut events = Vec::new();
    let mut reports = Vec::new();
    let mut previous: Option<Placement> = None;
    let mut overturns = Map::new();
    for (record, event) in loaded
        .events
        .iter()
        .take_while(|(r, _)| up_to.is_none_or(|u| r.seq <= u))
    {
        let step = fold.apply(record, event);
        let made: Vec<&str> = (fold.last.iter())
            .flat_map(|l| l.made.iter().map(|(_, w)| w.as_str()))
            .collect();
        events.push(json!({
            "seq": record.seq,
            "side": event.side.name(variant),
            "type": event.kind.type_name(),
            "text": step.words,
            "made": made,
            "received_ms": record.received_ms,
        }));
        if let EventKind::Board { placement, device } = &event.kind {
            // Read as the board sent it: what changed from its previous report.
            let read = sensor::read(variant, placement).ok();
            // The first report has no previous one: `null`.
            let changes = match (&previous, &read) {
                (Some(before), Some(now)) => Some(changed(variant, before, now)),
                _ => None,
            };
            reports.push(json!({
                "seq": record.seq,
                "device": device,
                "ts_ms": event.ts_ms,
                "received_ms": record.received_ms,
                "placement": placement,
                "changed": changes,
            }));
            previous = read.or(previous);
        }
        if let Some(target) = overturned(event) {
            overturns.insert(target.to_string(), json!(record.seq));
        }
        frames.push(frame(&fold, &step.rulings));
    }
    let referee = &fold.referee;
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
        "reports": reports,
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
