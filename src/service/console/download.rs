//! A game's files from the console, each an attachment named after the game: its log as
//! `referee export --log` writes it, a draughts game's PDN as `referee export --pdn` writes
//! it, a xiangqi game's PGN (ICCS moves with the clocks), a renju game's record as `referee
//! export --renju` writes it, and its signed audit bundle as `ExportAudit` gives it (for the roles that call may
//! use). Spectators get the log and the PDN as far as the public delay lets them see.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::games::Variant;
use crate::log::Log;
use crate::quote::quote;
use crate::records::pdn::pdn_from_log;
use crate::records::renju::renju_from_log;
use crate::records::xiangqi::pgn_from_log;
use crate::stored::{LoadedLog, load_log};

use super::super::caller::Caller;
use super::{Console, Error, failed};

/// A file a game may be downloaded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Download {
    Log,
    Pdn,
    Pgn,
    Renju,
    Audit,
}

impl Download {
    const ALL: [Download; 5] = [
        Download::Log,
        Download::Pdn,
        Download::Pgn,
        Download::Renju,
        Download::Audit,
    ];

    /// Its name in the route, `/download/NAME`.
    fn name(self) -> &'static str {
        match self {
            Download::Log => "log",
            Download::Pdn => "pdn",
            Download::Pgn => "pgn",
            Download::Renju => "renju",
            Download::Audit => "audit",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Download::Log => "jsonl",
            Download::Pdn => "pdn",
            Download::Pgn => "pgn",
            Download::Renju => "renju",
            Download::Audit => "bundle",
        }
    }

    /// Logs and bundles are JSON Lines; PDN has no registered type and is plain text.
    fn content_type(self) -> &'static str {
        match self {
            Download::Log | Download::Audit => "application/x-ndjson; charset=utf-8",
            Download::Pdn | Download::Renju => "text/plain; charset=utf-8",
            Download::Pgn => "application/x-chess-pgn; charset=utf-8",
        }
    }

    /// Whether a game of `variant` has this file, for a spectator (`public`) or not: a
    /// bundle is signed over the whole log, so it cannot wait out the delay (and a
    /// spectator, with no token, would pass the audit call's role check).
    fn offered(self, variant: Variant, public: bool) -> bool {
        match self {
            Download::Log => true,
            Download::Pdn => variant == Variant::Draughts,
            Download::Pgn => variant == Variant::Xiangqi,
            Download::Renju => variant == Variant::Renju,
            Download::Audit => !public,
        }
    }
}

/// The game's file `name` for `caller`, who may read the game; for a spectator (`public`)
/// only the events stored before the delay.
pub(super) async fn file<L: Log>(
    c: &Console<L>,
    caller: &Caller,
    game: &str,
    name: &str,
    public: bool,
) -> Response {
    let mut loaded = match load_log(&c.service.log, game, None).await {
        Ok(loaded) => loaded,
        Err(e) => return failed(e.into()),
    };
    if public {
        let records: Vec<crate::log::Record> =
            loaded.events.iter().map(|(r, _)| r.clone()).collect();
        let horizon = c.public_horizon(&records);
        loaded.events.retain(|(r, _)| r.seq <= horizon);
    }
    let variant = loaded.header.variant;
    let offered: Vec<Download> = (Download::ALL.into_iter())
        .filter(|d| d.offered(variant, public))
        .collect();
    let Some(download) = offered.iter().copied().find(|d| d.name() == name) else {
        return not_offered(game, variant, name, &offered);
    };
    let text = match download {
        Download::Log => Ok(loaded.text()),
        Download::Pdn => pdn(&loaded),
        Download::Pgn => pgn(&loaded),
        Download::Renju => renju(&loaded),
        Download::Audit => (c.service.audit_bundle(game, caller).await).map(|a| a.text),
    };
    match text {
        Ok(text) => attachment(game, download, text),
        Err(e) => failed(e),
    }
}

fn pdn(loaded: &LoadedLog) -> Result<String, Error> {
    let events: Vec<_> = loaded.events.iter().map(|(_, e)| e.clone()).collect();
    pdn_from_log(&loaded.header, &events)
        .map_err(|e| Error::invalid("header", e.to_string()))?
        .ok_or_else(|| Error::invalid("format", "PDN is for draughts"))
}

fn pgn(loaded: &LoadedLog) -> Result<String, Error> {
    let events: Vec<_> = loaded.events.iter().map(|(_, e)| e.clone()).collect();
    pgn_from_log(&loaded.header, &events).map_err(|e| Error::invalid("header", e.to_string()))
}

fn renju(loaded: &LoadedLog) -> Result<String, Error> {
    let events: Vec<_> = loaded.events.iter().map(|(_, e)| e.clone()).collect();
    renju_from_log(&loaded.header, &events)
        .map_err(|e| Error::invalid("header", e.to_string()))?
        .ok_or_else(|| Error::invalid("format", "a renju record is for renju"))
}

/// A 404 naming the files the game has.
fn not_offered(game: &str, variant: Variant, name: &str, offered: &[Download]) -> Response {
    let names: Vec<&str> = offered.iter().map(|d| d.name()).collect();
    let message = format!(
        "game {} ({variant}) has no {} download; it has {}",
        quote(game),
        quote(name),
        names.join(", ")
    );
    let body = json!({ "error": message, "available": names });
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn attachment(game: &str, download: Download, text: String) -> Response {
    let disposition = format!(
        "attachment; filename=\"{}.{}\"",
        file_stem(game),
        download.extension()
    );
    (
        [
            (header::CONTENT_TYPE, download.content_type().to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response()
}

/// A game id as a file name's stem: letters, digits, `-`, `_` and `.` kept, anything else
/// (a path separator, a quote, a control or non-ASCII character) as `_`, and no leading dot
/// (a hidden file, or `..`).
fn file_stem(game: &str) -> String {
    let kept = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let safe: String = game
        .chars()
        .map(|c| if kept(c) { c } else { '_' })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "game".into(),
        stem => stem.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_id_becomes_a_safe_file_stem() {
        assert_eq!(file_stem("2026-ch-r3-b12"), "2026-ch-r3-b12");
        assert_eq!(file_stem("../etc/passwd"), "_etc_passwd");
        assert_eq!(file_stem("a \"b\"\r\n象棋"), "a__b_____");
        assert_eq!(file_stem(".."), "game");
    }
}
