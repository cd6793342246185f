//! `referee import FILE [--game N] [--format F] [--data DIR | --log-out DIR | --server URL]`: a
//! log in the interchange format, the draughts games of a PDN file, the xiangqi games of a PGN
//! file or a renju record (`--format` where the name and content leave it open) become new
//! games in the store, event by event, exactly as a board would have appended them (or, with
//! `--log-out`, log files `DIR/ID.jsonl`; with `--server`, through a running server's
//! ImportGame). Prints each game's id.
//!
//! A PDN or PGN file may hold many games: each becomes a game `STEM-N` (`wk2003-5` for the
//! fifth game of `wk2003.pdn`; a PGN file of one game gives `STEM`), or only the `N`th with
//! `--game N`. See [`crate::records`] for how a record becomes events.

use std::path::Path;
use std::process::ExitCode;

use crate::event::{Event, Header, event_to_json, header_to_json, write_log};
use crate::log::{Log, NewEvent, SledLog};
use crate::records;
use crate::service::proto;

use super::remote::{self, Remote};

/// Events per append: large enough to be quick, small enough to stay far below limits.
const CHUNK: usize = 500;

type Failure = (u8, String);

/// Where imported games go: the store, log files in a directory, or a running server.
pub enum Target<'a> {
    Store(&'a Path),
    Files(&'a Path),
    Server(Remote<'a>),
}

pub fn run(
    file: &Path,
    game: Option<usize>,
    format: Option<records::Format>,
    target: Target,
) -> ExitCode {
    match import(file, game, format, target) {
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

fn import(
    file: &Path,
    game: Option<usize>,
    format: Option<records::Format>,
    target: Target,
) -> Result<Vec<String>, Failure> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| (2, format!("cannot read {name}: {e}")))?;
    if let Target::Server(remote) = &target {
        return to_server(file, bytes, game, format, remote);
    }
    let games = records::read(&name, &bytes, format, game).map_err(|e| (2, e.to_string()))?;
    let mut logs = Vec::with_capacity(games.len());
    for imported in games {
        if let Some(note) = &imported.note {
            eprintln!("{name}: {note}");
        }
        logs.push((imported.header, imported.events));
    }
    match target {
        Target::Store(data) => to_store(&name, data, logs),
        Target::Files(dir) => to_files(&name, dir, logs),
        Target::Server(_) => unreachable!("sent whole above"),
    }
}

/// The record sent whole to a running server's ImportGame, which reads it as this command
/// would and appends its games through its own log: no need to stop the server.
fn to_server(
    file: &Path,
    record: Vec<u8>,
    game: Option<usize>,
    format: Option<records::Format>,
    remote: &Remote,
) -> Result<Vec<String>, Failure> {
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| (1, e.to_string()))?;
    runtime.block_on(async {
        let mut client = remote::connect(remote).await.map_err(|m| (1, m))?;
        let request = proto::ImportGameRequest {
            record,
            name,
            format: format
                .map(records::Format::name)
                .unwrap_or_default()
                .to_string(),
            game: game.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        };
        let reply = client.import_game(request).await.map_err(|status| {
            let code = if status.code() == tonic::Code::InvalidArgument {
                2
            } else {
                1
            };
            (code, remote::status_text(&status))
        })?;
        let reply = reply.into_inner();
        for note in &reply.notes {
            eprintln!("{note}");
        }
        Ok(reply.games)
    })
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
    let store = SledLog::open(data)
        .map_err(|e| (1, format!("cannot open the log in {}: {e}", data.display())))?;
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
