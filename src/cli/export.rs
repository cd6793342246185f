//! `referee export --log|--pdn|--renju GAME [--data DIR]`, on standard output:
//! - `--log`: the game as an interchange log — the stored header line (with its tags) and
//!   every stored event line, byte for byte as acknowledged, so that log → import → export
//!   gives the same file and `referee replay` gives the same rulings;
//! - `--pdn`: a stored draughts game as PDN — the moves that stand after the referee's
//!   judgment, up to the end of the game, in the shortest notation of draughts 10, the
//!   result in points (`2-0`, `1-1`, `0-2`) and the header's tags;
//! - `--renju`: a stored renju game as a renju record (see [`crate::records::renju`]) — the
//!   stones and opening steps that stand after the referee's judgment, up to the end of the
//!   game, the header's tags with `Black` and `White` naming who holds each colour after the
//!   swaps, the opening rule and the result.

use std::path::Path;
use std::process::ExitCode;

use crate::games::Variant;
use crate::log::SledLog;
use crate::records::renju::renju_from_log;
use crate::stored::load_log;

use super::pdn::pdn_from_log;

/// What `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The interchange log, as stored.
    Log,
    /// Draughts: PDN.
    Pdn,
    /// Renju: a renju record.
    Renju,
}

impl Format {
    /// The game the format is for, and the format's name for a refusal.
    fn variant(self) -> Option<(Variant, &'static str)> {
        match self {
            Format::Log => None,
            Format::Pdn => Some((Variant::Draughts, "PDN")),
            Format::Renju => Some((Variant::Renju, "a renju record")),
        }
    }
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
    let Some((variant, name)) = format.variant() else {
        return Ok(loaded.text());
    };
    if loaded.header.variant != variant {
        return Err((
            2,
            format!(
                "game {game:?} is {}; {name} is for {variant}",
                loaded.header.variant
            ),
        ));
    }
    let events: Vec<_> = loaded.events.into_iter().map(|(_, e)| e).collect();
    let text = match format {
        Format::Renju => renju_from_log(&loaded.header, &events),
        Format::Pdn | Format::Log => pdn_from_log(&loaded.header, &events),
    };
    text.map_err(|e| (2, format!("{game}: {e}")))?
        .ok_or_else(|| (2, format!("{game}: not a {variant} game")))
}
