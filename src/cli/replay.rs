//! `referee replay FILE [--json]`: the rulings a log gives, as the replay contract specifies.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::audit;
use crate::event::{Event, EventKind, GameLog, Header, LineError, Side, parse_log, read_text};
use crate::referee::{Referee, SetupError, replay};

pub fn run(file: &Path, json: bool) -> ExitCode {
    let text = match read_text(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("referee: {e}");
            return ExitCode::from(2);
        }
    };
    let log = match read_log(&text) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let replayed = if json {
        replay(&log.header, &log.events).map(|r| (r, Vec::new()))
    } else {
        replay_with_score(&log.header, &log.events)
    };
    let (referee, score) = match replayed {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: line {}: {e}", file.display(), log.header_line);
            return ExitCode::from(2);
        }
    };
    let variant = log.header.variant;
    let mut out = std::io::stdout().lock();
    let written = if json {
        referee
            .rulings()
            .iter()
            .try_for_each(|r| writeln!(out, "{}", r.to_json(variant)))
    } else {
        write_human(&mut out, &referee, &score, log.events.len())
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A log file, or a game's audit bundle read back as its log (checked first: signature and
/// chain).
fn read_log(text: &str) -> Result<GameLog, LineError> {
    match audit::kind(text) {
        audit::Kind::Log => parse_log(text),
        audit::Kind::Bundle => audit::bundle_log(text),
        audit::Kind::Tournament => Err(LineError {
            line: 1,
            message: "a tournament export holds results, not a game's events; replay the \
                      game's log or audit bundle"
                .into(),
        }),
    }
}

fn write_human(
    out: &mut impl Write,
    referee: &crate::referee::Referee,
    score: &[ScoreLine],
    events: usize,
) -> std::io::Result<()> {
    let header = referee.header();
    let variant = header.variant;
    writeln!(out, "game {} ({variant}), {events} events", header.id)?;
    for (name, value) in &header.tags {
        writeln!(out, "  {name}: {value}")?;
    }
    if !score.is_empty() {
        writeln!(out, "moves")?;
    }
    for line in score {
        let events = match line.last {
            Some(last) => format!("events {}-{last}", line.first),
            None => format!("event {}", line.first),
        };
        writeln!(out, "  {:<7} {:<16} {}", line.number, events, line.text)?;
    }
    if referee.rulings().is_empty() {
        writeln!(out, "no rulings")?;
    }
    for ruling in referee.rulings() {
        writeln!(out, "{}", ruling.to_human(variant))?;
    }
    match referee.ending() {
        Some(end) => writeln!(out, "result {} (event {})", end.result, end.at)?,
        None => writeln!(
            out,
            "game not over; {} to move",
            referee.side_to_move().name(variant)
        )?,
    }
    for open in referee.open_conditions() {
        writeln!(out, "open: {open}")?;
    }
    writeln!(out, "position {}", referee.fen())
}

/// One move of the scoresheet in the human-readable replay: its number (`12.` or `12...`),
/// its notation, and the events it rests on (a chess_gjq move and its reveal).
struct ScoreLine {
    number: String,
    text: String,
    first: u64,
    last: Option<u64>,
}

/// Replays the log as [`replay`] does, writing down each move in the game's notation as it
/// is played (chess_gjq 9.3 `e2-e4车`; xiangqi Chinese, ICCS and WXF; draughts as logged).
/// A move the rules did not allow is written with its squares and `?`.
fn replay_with_score(
    header: &Header,
    events: &[Event],
) -> Result<(Referee, Vec<ScoreLine>), SetupError> {
    let mut referee = Referee::new(header)?;
    let mut score: Vec<ScoreLine> = Vec::new();
    let mut number = 1u32;
    for (seq, event) in (1..).zip(events) {
        let described = referee.describe(event);
        match &event.kind {
            EventKind::Move { from, to, .. } => {
                let text = described.unwrap_or_else(|| match &event.kind {
                    EventKind::Move {
                        captures: Some(_), ..
                    } => format!("{from}x{to} ?"),
                    _ => format!("{from}-{to} ?"),
                });
                let second = event.side == Side::Second;
                let dots = if second { "..." } else { "." };
                score.push(ScoreLine {
                    number: format!("{number}{dots}"),
                    text,
                    first: seq,
                    last: None,
                });
                if second {
                    number += 1;
                }
            }
            EventKind::Reveal { .. } => {
                if let (Some(line), Some(text)) = (score.last_mut(), described) {
                    line.text.push_str(&text);
                    line.last = Some(seq);
                }
            }
            _ => {}
        }
        referee.apply(seq, event);
    }
    Ok((referee, score))
}
