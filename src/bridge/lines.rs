//! The generic JSON-lines feed (docs/board-feed.md): one object per line, a whole placement,
//! a field update folded into the bridge's current placement, or a clock press. A line that
//! does not read is named on standard error with its line number and skipped: nothing of it
//! is sent.

use serde_json::{Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::mpsc;

use super::feed::{FeedItem, Source};
use super::reading::Reading;
use super::report::{self, Report};

/// What one line says.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// `{"placement": ...}`: the whole board.
    Whole { placement: String },
    /// `{"square": ..., "piece": ...}`: one square's new content (`None`: emptied).
    Field { square: String, piece: Option<u8> },
    /// `{"clock": SIDE, "<side>_ms": ...}`: SIDE pressed; times by turn order.
    Clock {
        side: String,
        times: [Option<u64>; 2],
    },
}

/// A line read: what it says, and the device and device time it carries.
#[derive(Debug, PartialEq, Eq)]
pub struct Line {
    pub input: Input,
    pub device: Option<String>,
    pub ts_ms: Option<u64>,
}

/// Reads one line of the protocol for a game whose sides are `sides` (first mover first);
/// `Ok(None)` for a blank line or a `#` comment.
pub fn parse(text: &str, sides: [&str; 2]) -> Result<Option<Line>, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let object: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err("a line is one JSON object".into()),
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    let device = optional_string(&object, "device")?;
    let ts_ms = optional_u64(&object, "ts_ms")?;
    let (input, allowed) = if object.contains_key("placement") {
        let placement =
            optional_string(&object, "placement")?.ok_or("\"placement\" must be a string")?;
        (Input::Whole { placement }, vec!["placement".to_string()])
    } else if object.contains_key("square") {
        (field(&object)?, vec!["square".into(), "piece".into()])
    } else if object.contains_key("clock") {
        clock(&object, sides)?
    } else {
        return Err("a line needs \"placement\", \"square\" or \"clock\"".into());
    };
    let known = |key: &str| key == "device" || key == "ts_ms" || allowed.iter().any(|k| k == key);
    if let Some(unknown) = object.keys().find(|k| !known(k)) {
        return Err(format!("unknown field {unknown:?} here"));
    }
    Ok(Some(Line {
        input,
        device,
        ts_ms,
    }))
}

/// A field update: `square` a name (`"e2"`) or a draughts number (`32` or `"32"`), `piece`
/// one letter or null.
fn field(object: &Map<String, Value>) -> Result<Input, String> {
    let square = match &object["square"] {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_u64() => n.to_string(),
        _ => return Err("\"square\" must be a square's name or number".into()),
    };
    let piece = match object.get("piece") {
        None => return Err("a field update needs \"piece\" (a letter, or null)".into()),
        Some(Value::Null) => None,
        Some(Value::String(s)) if s.len() == 1 && s.as_bytes()[0].is_ascii_alphabetic() => {
            Some(s.as_bytes()[0])
        }
        Some(other) => {
            return Err(format!("\"piece\" must be one letter or null, not {other}"));
        }
    };
    Ok(Input::Field { square, piece })
}

/// A clock press: `clock` names the side that pressed, `<side>_ms` the times shown after it.
fn clock(object: &Map<String, Value>, sides: [&str; 2]) -> Result<(Input, Vec<String>), String> {
    let side = optional_string(object, "clock")?.ok_or("\"clock\" must be a side's name")?;
    if !sides.contains(&side.as_str()) {
        return Err(format!(
            "\"clock\" must be {} or {}, not {side:?}",
            sides[0], sides[1]
        ));
    }
    let keys = sides.map(|s| format!("{s}_ms"));
    let times = [
        optional_u64(object, &keys[0])?,
        optional_u64(object, &keys[1])?,
    ];
    let mut allowed = vec!["clock".to_string()];
    allowed.extend(keys);
    Ok((Input::Clock { side, times }, allowed))
}

fn optional_string(object: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{key:?} must be a string, not {other}")),
    }
}

fn optional_u64(object: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) if n.is_u64() => Ok(n.as_u64()),
        Some(other) => Err(format!(
            "{key:?} must be a whole number of milliseconds, not {other}"
        )),
    }
}

/// Reads `input` line by line into reports on `out`, until its end (`Ok`) or a read error.
pub async fn read<R: AsyncBufRead + Unpin>(
    mut input: R,
    source: Source,
    mut reading: Reading,
    out: mpsc::Sender<FeedItem>,
) {
    let mut device: Option<String> = None;
    let mut number = 0u64;
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let end = match input.read_until(b'\n', &mut buffer).await {
            Ok(0) => Some(source.ended()),
            Ok(_) => None,
            Err(e) => Some(source.lost(e.to_string())),
        };
        if let Some(end) = end {
            let _ = out.send(FeedItem::End(end)).await;
            return;
        }
        number += 1;
        let reports = match std::str::from_utf8(&buffer) {
            Ok(text) => line_reports(text, number, &source, &mut reading, &mut device),
            Err(_) => Err("not UTF-8".into()),
        };
        match reports {
            Ok(reports) => {
                for r in reports {
                    if out.send(FeedItem::Report(r)).await.is_err() {
                        return;
                    }
                }
            }
            Err(why) => eprintln!("{} line {number}: {why}; skipped", source.spec),
        }
    }
}

/// The report a line gives, if any (a placement that changed nothing gives none).
///
/// Event ids are `DEVICE-LINE-HASH`: the line number makes a restarted bridge re-reading the
/// same file send the same ids (acknowledged again, not stored twice), and the hash of what
/// the line reports (with the device's own time, when it gives one) makes the lines of a live
/// feed that was restarted, which count from 1 again, differ from the first run's. The
/// bridge's own time is left out of the hash: a re-read file must give the same ids.
fn line_reports(
    text: &str,
    number: u64,
    source: &Source,
    reading: &mut Reading,
    device: &mut Option<String>,
) -> Result<Vec<Report>, String> {
    let Some(line) = parse(text, source.sides)? else {
        return Ok(Vec::new());
    };
    if line.device.is_some() {
        device.clone_from(&line.device);
    }
    let ts_ms = line.ts_ms.unwrap_or_else(|| source.time.now_ms());
    let device_time = line.ts_ms.map(|t| t.to_string()).unwrap_or_default();
    let origin = format!("line {number}");
    let id = |said: &str| {
        let name = report::id_part(device.as_deref().unwrap_or("board"));
        let hash = report::digest(&[&name, said, &device_time]);
        format!("{name}-{number}-{hash}")
    };
    let report = match line.input {
        Input::Whole { placement } => reading.whole(&placement, ts_ms)?.map(|change| Report {
            event_id: id(&change.placement),
            event: report::board_event(change.placement, device.clone(), ts_ms),
            what: change.what,
            origin,
        }),
        Input::Field { square, piece } => {
            reading.field(&square, piece, ts_ms)?.map(|change| Report {
                event_id: id(&change.placement),
                event: report::board_event(change.placement, device.clone(), ts_ms),
                what: change.what,
                origin,
            })
        }
        Input::Clock { side, times } => {
            reading.pressed(ts_ms);
            Some(Report {
                event_id: id(&format!("clock {side} {times:?}")),
                event: report::clock_event(&side, times, ts_ms),
                what: clock_words(&side, source.sides, times),
                origin,
            })
        }
    };
    Ok(report.into_iter().collect())
}

/// `clock red (red 5400000 ms, black 5399000 ms)`.
pub fn clock_words(side: &str, sides: [&str; 2], times: [Option<u64>; 2]) -> String {
    let shown: Vec<String> = sides
        .iter()
        .zip(times)
        .filter_map(|(s, t)| t.map(|t| format!("{s} {t} ms")))
        .collect();
    if shown.is_empty() {
        format!("clock {side}")
    } else {
        format!("clock {side} ({})", shown.join(", "))
    }
}
