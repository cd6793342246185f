//! `referee replay FILE [--json]`: the rulings a log gives, as the replay contract specifies.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::event::parse_log;
use crate::referee::replay;

pub fn run(file: &Path, json: bool) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("referee: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let log = match parse_log(&text) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let referee = match replay(&log.header, &log.events) {
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
        write_human(&mut out, &referee, log.events.len())
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

fn write_human(
    out: &mut impl Write,
    referee: &crate::referee::Referee,
    events: usize,
) -> std::io::Result<()> {
    let header = referee.header();
    let variant = header.variant;
    writeln!(out, "game {} ({variant}), {events} events", header.id)?;
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
    writeln!(out, "position {}", referee.fen())
}
