//! An audit bundle read back as a game log, so that `referee replay` re-derives the rulings
//! of a bundle exactly as it does those of a log file.

use serde_json::Value;

use crate::event::{GameLog, LineError, event_from_json, header_from_json};

use super::verify::verified_records;

/// What kind of text a file holds, told by its first line that is not blank or a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An interchange log (or anything else: the log reader says what is wrong with it).
    Log,
    /// A game's audit bundle (`referee audit export`, ExportAudit).
    Bundle,
    /// A tournament export, which holds results but no game's events.
    Tournament,
}

/// Tells a bundle or a tournament export from a log by its first line's `type`.
pub fn kind(text: &str) -> Kind {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    let kind = first
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|v| v.get("type").and_then(Value::as_str).map(String::from));
    match kind.as_deref() {
        Some("audit") => Kind::Bundle,
        Some("tournament") => Kind::Tournament,
        _ => Kind::Log,
    }
}

/// The header and events of a game's bundle, once its signature and hash chain hold (the
/// rulings it records are not compared: replay derives them, `audit verify` compares them).
/// Errors name the bundle's line.
pub fn bundle_log(text: &str) -> Result<GameLog, LineError> {
    let records = verified_records(text, None).map_err(|problems| LineError {
        line: problem_line(&problems).unwrap_or(1),
        message: format!(
            "the bundle does not hold ({}); `referee audit verify` reports each problem",
            problems.join("; ")
        ),
    })?;
    // The file line of each record, in order: the header, then the events.
    let record_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| {
                matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("header" | "event")
                )
            })
        })
        .map(|(i, _)| i + 1)
        .collect();
    let line_of = |index: usize| record_lines.get(index).copied().unwrap_or(1);
    let (header_record, events) = records.split_first().ok_or(LineError {
        line: 1,
        message: "the bundle has no header record".into(),
    })?;
    let header = header_from_json(&header_record.body).map_err(|message| LineError {
        line: line_of(0),
        message,
    })?;
    let mut log = GameLog {
        header,
        events: Vec::with_capacity(events.len()),
        lines: Vec::with_capacity(events.len()),
        header_line: line_of(0),
    };
    for (index, record) in events.iter().enumerate() {
        let line = line_of(index + 1);
        let event = event_from_json(&record.body, log.header.variant, Some(record.seq))
            .map_err(|message| LineError { line, message })?;
        log.events.push(event);
        log.lines.push(line);
    }
    Ok(log)
}

/// The line the first problem names (`line N: ...`), if it names one.
fn problem_line(problems: &[String]) -> Option<usize> {
    let first = problems.first()?;
    let rest = first.strip_prefix("line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}
