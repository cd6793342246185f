//! `referee import FILE [--data DIR]`: a log in the interchange format becomes a new game in
//! the store, event by event, exactly as a board would have appended it. Prints the id last.

use std::path::Path;
use std::process::ExitCode;

use crate::event::{event_to_json, header_to_json, parse_log};
use crate::log::{Log, NewEvent, SledLog};
use crate::referee::Referee;

/// Events per append: large enough to be quick, small enough to stay far below limits.
const CHUNK: usize = 500;

pub fn run(file: &Path, data: &Path) -> ExitCode {
    match import(file, data) {
        Ok(game) => {
            println!("{game}");
            ExitCode::SUCCESS
        }
        Err((code, message)) => {
            eprintln!("referee: {message}");
            ExitCode::from(code)
        }
    }
}

fn import(file: &Path, data: &Path) -> Result<String, (u8, String)> {
    let name = file.display();
    let text =
        std::fs::read_to_string(file).map_err(|e| (2, format!("cannot read {name}: {e}")))?;
    let log = parse_log(&text).map_err(|e| (2, format!("{name}: {e}")))?;
    Referee::new(&log.header).map_err(|e| (2, format!("{name}: line {}: {e}", log.header_line)))?;
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
    let game = log.header.id.clone();
    let writer = format!("import {name}");
    runtime.block_on(async {
        store
            .create(&game, header_to_json(&log.header), &writer)
            .await
            .map_err(|e| (1, e.to_string()))?
            .map_err(|r| (2, r.to_string()))?;
        let variant = log.header.variant;
        let mut seq = 1u64;
        for chunk in log.events.chunks(CHUNK) {
            let events: Vec<NewEvent> = chunk
                .iter()
                .zip(seq..)
                .map(|(e, s)| NewEvent {
                    event_id: format!("import-{s}"),
                    body: event_to_json(e, variant),
                    writer: writer.clone(),
                })
                .collect();
            let count = u64::try_from(events.len()).unwrap_or(u64::MAX);
            store
                .append(&game, seq, events)
                .await
                .map_err(|e| (1, e.to_string()))?
                .map_err(|r| (2, r.to_string()))?;
            seq += count;
        }
        Ok::<(), (u8, String)>(())
    })?;
    eprintln!("imported {} events of {name}", log.events.len());
    Ok(game)
}
