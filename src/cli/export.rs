//! `referee export --log|--pdn GAME [--data DIR]`, on standard output:
//! - `--log`: the game as an interchange log — the stored header line (with its tags) and
//!   every stored event line, byte for byte as acknowledged, so that log → import → export
//!   gives the same file and `referee replay` gives the same rulings;
//! - `--pdn`: a stored draughts game as PDN — the moves that stand after the referee's
//!   judgment, up to the end of the game, in the shortest notation of draughts 10, the
//!   result in points (`2-0`, `1-1`, `0-2`) and the header's tags.

use std::path::Path;
use std::process::ExitCode;

use crate::games::Variant;
use crate::log::SledLog;
use crate::stored::load_log;

use super::pdn::pdn_from_log;

/// What `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Log,
    Pdn,
}

pub fn run(game: &str, format: Format, data: &Path) -> ExitCode {
    match export(game, format, data) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err((code, message)) => {
            eprintln!("referee: {message}");
            ExitCode::from(code)
        }
    }
}

fn export(game: &str, format: Format, data: &Path) -> Result<String, (u8, String)> {
    let store = SledLog::open(data)
        .map_err(|e| (1, format!("cannot open the log in {}: {e}", data.display())))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| (1, format!("cannot start the runtime: {e}")))?;
    let loaded = runtime
        .block_on(load_log(&store, game, None))
        .map_err(|e| (2, e.to_string()))?;
    if format == Format::Log {
        return Ok(loaded.text());
    }
    if loaded.header.variant != Variant::Draughts {
        return Err((
            2,
            format!(
                "game {game:?} is {}; PDN is for draughts",
                loaded.header.variant
            ),
        ));
    }
    let events: Vec<_> = loaded.events.into_iter().map(|(_, e)| e).collect();
    pdn_from_log(&loaded.header, &events)
        .map_err(|e| (2, format!("{game}: {e}")))?
        .ok_or_else(|| (2, format!("{game}: not a draughts game")))
}
