//! `referee import FILE [--game N] [--data DIR | --log-out DIR]`: a log in the interchange format, or the
//! games of a PDN file, become new games in the store, event by event, exactly as a board
//! would have appended them (or, with `--log-out`, log files `DIR/ID.jsonl`). Prints each
//! game's id.
//!
//! A PDN file (`.pdn`, or text that opens with a `[` tag or a move number) may hold many
//! games: each becomes a game `STEM-N` (`wk2003-5` for the fifth game of `wk2003.pdn`), or
//! only the `N`th with `--game N`. See [`super::pdn`] for how a PDN record becomes events.

use std::path::Path;
use std::process::ExitCode;

use crate::event::{Event, Header, event_to_json, header_to_json, parse_log, write_log};
use crate::games::draughts::parse_pdn;
use crate::log::{Log, NewEvent, SledLog};
use crate::referee::Referee;

use super::pdn::log_from_pdn;

/// Events per append: large enough to be quick, small enough to stay far below limits.
const CHUNK: usize = 500;

type Failure = (u8, String);

/// Where imported games go: the store, or log files in a directory.
pub enum Target<'a> {
    Store(&'a Path),
    Files(&'a Path),
}

pub fn run(file: &Path, game: Option<usize>, target: Target) -> ExitCode {
    match import(file, game, target) {
        Ok(ids) => {
            for id in ids {
                println!("{id}");
            }
            ExitCode::SUCCESS
        }
        Err((code, message)) => {
            eprintln!("referee: {message}");
            ExitCode::from(code)
        }
    }
}

fn import(file: &Path, game: Option<usize>, target: Target) -> Result<Vec<String>, Failure> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| (2, format!("cannot read {name}: {e}")))?;
    // Older PDN files are Latin-1; a byte that is not UTF-8 only ever sits in a tag or comment.
    let text = String::from_utf8_lossy(&bytes);
    let logs = if is_pdn(file, &text) {
        pdn_logs(file, &text, game)?
    } else if game.is_some() {
        return Err((2, format!("{name}: --game applies to PDN files only")));
    } else {
        let log = parse_log(&text).map_err(|e| (2, format!("{name}: {e}")))?;
        Referee::new(&log.header)
            .map_err(|e| (2, format!("{name}: line {}: {e}", log.header_line)))?;
        vec![(log.header, log.events)]
    };
    match target {
        Target::Store(data) => to_store(&name, data, logs),
        Target::Files(dir) => to_files(&name, dir, logs),
    }
}

/// Each log as `DIR/ID.jsonl` in the interchange format (to replay, or to make a fixture of).
fn to_files(
    name: &str,
    dir: &Path,
    logs: Vec<(Header, Vec<Event>)>,
) -> Result<Vec<String>, Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| (1, format!("cannot create {}: {e}", dir.display())))?;
    let mut ids = Vec::with_capacity(logs.len());
    for (header, events) in logs {
        let path = dir.join(format!("{}.jsonl", header.id));
        std::fs::write(&path, write_log(&header, &events))
            .map_err(|e| (1, format!("cannot write {}: {e}", path.display())))?;
        eprintln!(
            "wrote {} events of {name} to {}",
            events.len(),
            path.display()
        );
        ids.push(header.id);
    }
    Ok(ids)
}

fn to_store(
    name: &str,
    data: &Path,
    logs: Vec<(Header, Vec<Event>)>,
) -> Result<Vec<String>, Failure> {
    let store = SledLog::open(data).map_err(|e| {
        (
            1,
            format!(
                "cannot open the log in {}: {e} (is a server using it?)",
                data.display()
            ),
        )
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| (1, e.to_string()))?;
    let writer = format!("import {name}");
    let mut ids = Vec::with_capacity(logs.len());
    for (header, events) in logs {
        runtime.block_on(store_game(&store, &header, &events, &writer))?;
        eprintln!(
            "imported {} events of {name} as {}",
            events.len(),
            header.id
        );
        ids.push(header.id);
    }
    Ok(ids)
}

/// By extension, or by content: a JSON log opens with `{` or a `#` comment.
fn is_pdn(file: &Path, text: &str) -> bool {
    if file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdn"))
    {
        return true;
    }
    let first = text.trim_start_matches('\u{feff}').trim_start();
    first.starts_with('[') || first.starts_with(|c: char| c.is_ascii_digit())
}

/// The games of a PDN file (or only game `only`, counted from 1) as logs.
fn pdn_logs(
    file: &Path,
    text: &str,
    only: Option<usize>,
) -> Result<Vec<(Header, Vec<Event>)>, Failure> {
    let name = file.display();
    let games = parse_pdn(text).map_err(|e| (2, format!("{name}: {e}")))?;
    let stem = file
        .file_stem()
        .map_or("pdn".into(), |s| s.to_string_lossy().into_owned());
    let chosen: Vec<usize> = match only {
        None => (1..=games.len()).collect(),
        Some(n) if (1..=games.len()).contains(&n) => vec![n],
        Some(n) => {
            return Err((
                2,
                format!(
                    "{name}: there is no game {n}; the file holds {}",
                    games.len()
                ),
            ));
        }
    };
    chosen
        .into_iter()
        .map(|n| {
            let imported = log_from_pdn(&games[n - 1], &format!("{stem}-{n}"))
                .map_err(|e| (2, format!("{name}: game {n}: {e}")))?;
            if let Some(note) = &imported.note {
                eprintln!("{name}: game {n}: {note}");
            }
            Ok((imported.header, imported.events))
        })
        .collect()
}

async fn store_game(
    store: &SledLog,
    header: &Header,
    events: &[Event],
    writer: &str,
) -> Result<(), Failure> {
    let game = &header.id;
    store
        .create(game, header_to_json(header), writer)
        .await
        .map_err(|e| (1, e.to_string()))?
        .map_err(|r| (2, r.to_string()))?;
    let variant = header.variant;
    let mut seq = 1u64;
    for chunk in events.chunks(CHUNK) {
        let batch: Vec<NewEvent> = chunk
            .iter()
            .zip(seq..)
            .map(|(e, s)| NewEvent {
                event_id: format!("import-{s}"),
                body: event_to_json(e, variant),
                writer: writer.to_string(),
            })
            .collect();
        let count = u64::try_from(batch.len()).unwrap_or(u64::MAX);
        store
            .append(game, seq, batch)
            .await
            .map_err(|e| (1, e.to_string()))?
            .map_err(|r| (2, r.to_string()))?;
        seq += count;
    }
    Ok(())
}
