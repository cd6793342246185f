//! `referee export --pdn GAME [--data DIR]`: a stored draughts game as PDN on standard output
//! — the moves that stand after the referee's judgment, up to the end of the game, in the
//! shortest notation of draughts 10, and the result in points (`2-0`, `1-1`, `0-2`).

use std::path::Path;
use std::process::ExitCode;

use crate::games::Variant;
use crate::log::SledLog;
use crate::referee::replay;
use crate::stored::load_log;

use super::pdn::pdn_from_referee;

pub fn run(game: &str, data: &Path) -> ExitCode {
    match export(game, data) {
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

fn export(game: &str, data: &Path) -> Result<String, (u8, String)> {
    let store = SledLog::open(data).map_err(|e| {
        (
            1,
            format!(
                "cannot open the log in {}: {e} (is a server using it?)",
                data.display()
            ),
        )
    })?;
    let loaded = load_log(&store, game, None).map_err(|e| (2, e.to_string()))?;
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
    let referee = replay(&loaded.header, &events).map_err(|e| (2, format!("{game}: {e}")))?;
    pdn_from_referee(&referee).ok_or_else(|| (2, format!("{game}: not a draughts game")))
}
