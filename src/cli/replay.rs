//! `referee replay FILE [--json]`: the rulings a log gives, as the replay contract specifies.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::audit;
use crate::event::{
    Decision, Event, EventKind, GameLog, Header, LineError, Side, parse_log, read_text,
};
use crate::games::Variant;
use crate::referee::{Referee, Ruling, SetupError, replay};

mod wrap;

pub fn run(file: &Path, json: bool) -> ExitCode {
    let rendered = render(file, json, false);
    let mut out = std::io::stdout().lock();
    let written = match rendered {
        Ok(bytes) => out.write_all(&bytes),
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    finish(written)
}

fn finish(written: std::io::Result<()>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `referee replay FILE` prints for one file, or the message for a malformed one. With
/// `labelled` (several files at once) each JSON ruling starts with a `"file"` key and the human
/// output with a `== FILE` line.
fn render(file: &Path, json: bool, labelled: bool) -> Result<Vec<u8>, String> {
    let text = read_text(file).map_err(|e| format!("referee: {e}"))?;
    let log = read_log(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let replayed = if json {
        replay(&log.header, &log.events).map(|r| (r, Transcript::default()))
    } else {
        transcribe(&log.header, &log.events)
    };
    let (referee, transcript) =
        replayed.map_err(|e| format!("{}: line {}: {e}", file.display(), log.header_line))?;
    let variant = log.header.variant;
    let mut out = Vec::new();
    let written = if json {
        referee
            .rulings()
            .iter()
            .try_for_each(|r| writeln!(out, "{}", ruling_json(r, variant, file, labelled)))
    } else if labelled {
        writeln!(out, "== {}", file.display())
            .and_then(|()| write_human(&mut out, &referee, &transcript, log.events.len()))
    } else {
        write_human(&mut out, &referee, &transcript, log.events.len())
    };
    written.map_err(|e| format!("referee: {e}"))?;
    Ok(out)
}

/// `referee replay` of several files or directories at once, for an auditor going through an
/// archive: one process, the files shared out over the cores, the output in the order the
/// files were named (a directory's `.jsonl` files, recursively, in path order). With `--json`
/// each ruling line starts with `"file"`; for people each file's replay follows a `== FILE`
/// line. A malformed file is reported on standard error and the others still replay; the exit
/// code is then 2. On a terminal, standard error shows the progress.
pub fn run_many(paths: &[std::path::PathBuf], json: bool) -> ExitCode {
    let files = match expand(paths) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("referee: {message}");
            return ExitCode::from(2);
        }
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(files.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (sender, results) = std::sync::mpsc::channel::<(usize, Result<Vec<u8>, String>)>();
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut malformed = 0usize;
    let mut written: std::io::Result<()> = Ok(());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, files) = (&next, &files);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = files.get(index) else { break };
                    let result = render(file, json, true);
                    if sender.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Printed in file order: results that come early wait for those before them.
        let mut waiting = std::collections::BTreeMap::new();
        let mut printed = 0usize;
        let mut out = std::io::stdout().lock();
        for (index, result) in results {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&printed) {
                match result {
                    Ok(bytes) => {
                        if written.is_ok() {
                            written = out.write_all(&bytes);
                        }
                    }
                    Err(message) => {
                        malformed += 1;
                        eprintln!("{message}");
                    }
                }
                printed += 1;
                if progress {
                    eprint!("\rreplayed {printed} of {} files", files.len());
                }
            }
        }
    });
    if progress {
        eprintln!();
    }
    if malformed > 0 {
        eprintln!(
            "referee: {malformed} of {} files could not be replayed",
            files.len()
        );
        return ExitCode::from(2);
    }
    finish(written)
}

/// One ruling as a JSON line; when several files replay together, `"file"` comes first so a
/// reader sees which log the ruling is about.
fn ruling_json(ruling: &Ruling, variant: Variant, file: &Path, labelled: bool) -> String {
    let value = ruling.to_value(variant);
    if !labelled {
        return value.to_string();
    }
    let mut object = serde_json::Map::new();
    object.insert("file".into(), file.display().to_string().into());
    if let serde_json::Value::Object(fields) = value {
        object.extend(fields);
    }
    serde_json::Value::Object(object).to_string()
}

/// The files to replay: each file as named, each directory's `.jsonl` files recursively in
/// path order.
fn expand(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_logs(path, &mut found)?;
            found.sort();
            if found.is_empty() {
                return Err(format!("{}: no .jsonl file in it", path.display()));
            }
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn collect_logs(dir: &Path, found: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            collect_logs(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            found.push(path);
        }
    }
    Ok(())
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

/// The replay for people, to read beside the log in a dispute: the header, the scoresheet
/// with the clock after each press, every ruling (marked where the arbiter upheld or
/// overturned it) with its justification wrapped, and how the game stands.
fn write_human(
    out: &mut impl Write,
    referee: &Referee,
    transcript: &Transcript,
    events: usize,
) -> std::io::Result<()> {
    write_header(out, referee, events)?;
    write_score(out, &transcript.score)?;
    write_rulings(out, referee, &transcript.reviews)?;
    write_standing(out, referee)
}

/// What the game is: its id, variant and length.
fn write_header(out: &mut impl Write, referee: &Referee, events: usize) -> std::io::Result<()> {
    let header = referee.header();
    writeln!(
        out,
        "game {} ({}), {events} events",
        header.id, header.variant
    )?;
    for (name, value) in &header.tags {
        writeln!(out, "  {name}: {value}")?;
    }
    if referee.players_swapped() {
        let [first, second] = [Side::First, Side::Second].map(|side| {
            let name = side.name(header.variant);
            format!("{name} {}", referee.player(side).unwrap_or("(no tag)"))
        });
        writeln!(
            out,
            "  after the opening's swaps: {first}, {second} (the tags name the colours at \
             the start)"
        )?;
    }
    Ok(())
}

fn write_score(out: &mut impl Write, score: &[ScoreLine]) -> std::io::Result<()> {
    if !score.is_empty() {
        writeln!(out, "moves")?;
    }
    for line in score {
        let (number, events, text) = match line {
            ScoreLine::Move {
                number,
                text,
                first,
                last: Some(last),
            } => (number.as_str(), format!("events {first}-{last}"), text),
            ScoreLine::Move {
                number,
                text,
                first,
                last: None,
            } => (number.as_str(), format!("event {first}"), text),
            ScoreLine::Press { seq, text } => ("", format!("event {seq}"), text),
        };
        let first = format!("  {number:<7} {events:<16} ");
        let rest = " ".repeat(first.len());
        for line in wrap::wrap(text, wrap::WIDTH, &first, &rest) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

fn write_rulings(
    out: &mut impl Write,
    referee: &Referee,
    reviews: &[Review],
) -> std::io::Result<()> {
    let variant = referee.header().variant;
    if referee.rulings().is_empty() {
        writeln!(out, "no rulings")?;
    }
    for ruling in referee.rulings() {
        write_ruling(out, ruling, variant, reviews)?;
    }
    Ok(())
}

/// A ruling's heading, the arbiter's word on it, and its justification in lines of
/// [`wrap::WIDTH`] hanging under the first.
fn write_ruling(
    out: &mut impl Write,
    ruling: &Ruling,
    variant: Variant,
    reviews: &[Review],
) -> std::io::Result<()> {
    let mut heading = ruling.heading(variant);
    for review in reviews.iter().filter(|r| r.ruling == ruling.at) {
        let done = match review.decision {
            Decision::Overturn => "overturned",
            _ => "upheld",
        };
        heading.push_str(&format!("  [{done} by the arbiter at event {}]", review.at));
    }
    writeln!(out, "{heading}")?;
    for line in wrap::wrap(&ruling.text, wrap::WIDTH, "    ", "      ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The result, or whose move it is and what stands open; the position.
fn write_standing(out: &mut impl Write, referee: &Referee) -> std::io::Result<()> {
    match referee.ending() {
        Some(end) => writeln!(out, "result {} (event {})", end.result, end.at)?,
        None => writeln!(
            out,
            "game not over; {} to move",
            referee.side_to_move().name(referee.header().variant)
        )?,
    }
    for open in referee.open_conditions() {
        for line in wrap::wrap(&format!("open: {open}"), wrap::WIDTH, "", "      ") {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out, "position {}", referee.fen())
}

/// What the replay for people shows beside the rulings, gathered from the log as it is
/// replayed.
#[derive(Default)]
struct Transcript {
    score: Vec<ScoreLine>,
    reviews: Vec<Review>,
}

/// One line of the scoresheet in the human-readable replay.
enum ScoreLine {
    /// A move: its number (`12.` or `12...`), its notation, and the events it rests on (a
    /// chess_gjq move and its reveal).
    Move {
        number: String,
        text: String,
        first: u64,
        last: Option<u64>,
    },
    /// A clock press (its seq, who pressed, and both players' time after it), or a renju
    /// opening's step (a swap, a declaration, offers) in words.
    Press { seq: u64, text: String },
}

/// The arbiter's word on an earlier ruling: `uphold` or `overturn` (log format, `arbiter`).
struct Review {
    /// Seq of the ruling's `at`, as the arbiter event's `ruling` names it.
    ruling: u64,
    decision: Decision,
    /// Seq of the arbiter's event.
    at: u64,
}

/// Replays the log as [`replay`] does, writing down each move in the game's notation as it
/// is played (chess_gjq 9.3 `e2-e4车`; xiangqi Chinese, ICCS and WXF; draughts as logged),
/// the clock after each press, and the arbiter's reviews of rulings. A move the rules did not
/// allow is written with its squares, in the notation of the game's rulings, and `?`.
fn transcribe(header: &Header, events: &[Event]) -> Result<(Referee, Transcript), SetupError> {
    let mut referee = Referee::new(header)?;
    let mut transcript = Transcript::default();
    let mut number = 1u32;
    for (seq, event) in (1..).zip(events) {
        let step = referee.step(seq, event);
        // The moves derived from a board's reports (or an arbiter's `set`) at this event come
        // first: a press follows the move it ends.
        for (made, words) in &step.made {
            let second = made.side == Side::Second;
            let dots = if second { "..." } else { "." };
            transcript.score.push(ScoreLine::Move {
                number: format!("{number}{dots}"),
                text: words.clone(),
                first: seq,
                last: None,
            });
            if second {
                number += 1;
            }
        }
        match &event.kind {
            EventKind::Move { .. } | EventKind::Place { .. } => {
                let second = event.side == Side::Second;
                let dots = if second { "..." } else { "." };
                transcript.score.push(ScoreLine::Move {
                    number: format!("{number}{dots}"),
                    text: step.words,
                    first: seq,
                    last: None,
                });
                if second {
                    number += 1;
                }
            }
            // Renju under an opening rule: white's choice puts black's fifth stone on the
            // board; the other steps are written as they were made.
            EventKind::Choose { to } if step.rulings.is_empty() => {
                transcript.score.push(ScoreLine::Move {
                    number: format!("{number}."),
                    text: format!("{to} (chosen)"),
                    first: seq,
                    last: None,
                });
            }
            EventKind::Swap
            | EventKind::Declare { .. }
            | EventKind::Offer { .. }
            | EventKind::Choose { .. } => transcript.score.push(ScoreLine::Press {
                seq,
                text: step.words,
            }),
            EventKind::Reveal { .. } => {
                let last_move = transcript
                    .score
                    .iter_mut()
                    .rev()
                    .find_map(|line| match line {
                        ScoreLine::Move { text, last, .. } => Some((text, last)),
                        ScoreLine::Press { .. } => None,
                    });
                if let (Some((text, last)), true) = (last_move, step.notation) {
                    text.push_str(&step.words);
                    *last = Some(seq);
                }
            }
            EventKind::Clock { .. } => transcript.score.push(ScoreLine::Press {
                seq,
                text: step.words,
            }),
            EventKind::Arbiter {
                decision: decision @ (Decision::Uphold | Decision::Overturn),
                ruling: Some(ruling),
                ..
            } if *ruling < seq => transcript.reviews.push(Review {
                ruling: *ruling,
                decision: *decision,
                at: seq,
            }),
            _ => {}
        }
    }
    Ok((referee, transcript))
}
