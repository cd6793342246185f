//! Game records from outside as logs: a log in the interchange format, the draughts games
//! of a PDN file, the xiangqi games of a PGN file (ICCS, WXF or Chinese moves, in UTF-8,
//! Big5 or GBK), or a renju record (PGN-like, or a renju program's bare move list).
//! `referee import` and the service's `ImportGame` both read records here, so a file gives
//! the same games either way; what they then do with them (append to the store, write log
//! files) is theirs.

pub mod pdn;
pub mod renju;
mod result;
pub mod xiangqi;

use std::borrow::Cow;
use std::path::Path;

use thiserror::Error;

use crate::event::{Event, Header, parse_log};
use crate::games::draughts::parse_pdn;
use crate::games::xiangqi::{is_move_text, parse_pgn};
use crate::referee::Referee;

/// A record read: a game's header and events, and where the referee's verdict differs from
/// the record's result, a sentence saying how.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub header: Header,
    pub events: Vec<Event>,
    pub note: Option<String>,
}

/// The kinds of record read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A log in the interchange format (JSON Lines).
    Log,
    /// Draughts games in PDN.
    Pdn,
    /// Xiangqi games in PGN.
    XiangqiPgn,
    /// A renju game: PGN-like text or a bare move list (see [`renju`]).
    Renju,
}

impl Format {
    /// `log`, `pdn`, `pgn` (xiangqi PGN), or `renju`.
    pub fn parse(text: &str) -> Option<Format> {
        match text.trim().to_ascii_lowercase().as_str() {
            "log" | "jsonl" => Some(Format::Log),
            "pdn" => Some(Format::Pdn),
            "pgn" | "xiangqi" | "xiangqi-pgn" => Some(Format::XiangqiPgn),
            "renju" => Some(Format::Renju),
            _ => None,
        }
    }

    /// The name [`Format::parse`] reads and `ImportGame` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Log => "log",
            Format::Pdn => "pdn",
            Format::XiangqiPgn => "pgn",
            Format::Renju => "renju",
        }
    }
}

/// The header's tags as a record writes them back: `Event` first (the game id where the header
/// has none), then the others in their order but those in `skip` (compared without case: the
/// tags the format writes from the header's rules or the moves).
fn written_tags(header: &Header, skip: &[&str]) -> Vec<(String, String)> {
    let event = header.tag("Event").unwrap_or(&header.id).to_string();
    let mut tags = vec![("Event".to_string(), event)];
    tags.extend(
        (header.tags.iter())
            .filter(|(name, _)| {
                name != "Event" && !skip.iter().any(|s| s.eq_ignore_ascii_case(name))
            })
            .cloned(),
    );
    tags
}

/// Why a record was not read: `name` is the file (or the name a client gave the record),
/// `message` says where and what, e.g. `line 14: move 12 of red, "炮二進八": ...`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{name}: {message}")]
pub struct Error {
    pub name: String,
    pub message: String,
}

/// The games of the record `bytes`, read as `format` (or as its name and content say).
/// A file of several games gives each the id `STEM-N` (N counted from 1; one xiangqi game
/// alone is `STEM`, as is the one game of a renju record), or only the `N`th with `only`.
pub fn read(
    name: &str,
    bytes: &[u8],
    format: Option<Format>,
    only: Option<usize>,
) -> Result<Vec<Imported>, Error> {
    let fail = |message: String| Error {
        name: name.to_string(),
        message,
    };
    // Older PDN files are Latin-1; a byte that is not UTF-8 only ever sits in a tag or comment.
    let lossy = String::from_utf8_lossy(bytes);
    let format = format.unwrap_or_else(|| detect(name, &lossy));
    let stem = Path::new(name)
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().into_owned());
    match format {
        Format::Pdn => pdn_games(&stem, &lossy, only).map_err(fail),
        Format::XiangqiPgn => pgn_games(&stem, &decode(bytes), only).map_err(fail),
        Format::Renju => renju_game(&stem, &lossy, only).map_err(fail),
        Format::Log if only.is_some() => {
            Err(fail("--game applies to PDN and PGN files only".to_string()))
        }
        Format::Log => {
            let log = parse_log(&lossy).map_err(|e| fail(e.to_string()))?;
            Referee::new(&log.header)
                .map_err(|e| fail(format!("line {}: {e}", log.header_line)))?;
            Ok(vec![Imported {
                header: log.header,
                events: log.events,
                note: None,
            }])
        }
    }
}

/// By extension, then by content: a JSON log opens with `{` or a `#` comment; a renju record
/// says `[Variant "renju"]` or `[Game "Renju"]`, or its first move is a renju point (`h8`,
/// or points run together); a PGN file says `[Game "Chinese Chess"]` or a xiangqi variant,
/// or its first move is a xiangqi move; other text opening with a `[` tag or a move number
/// is PDN.
fn detect(name: &str, text: &str) -> Format {
    let extension = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("pdn") => return Format::Pdn,
        Some("pgn") => return Format::XiangqiPgn,
        Some("renju") => return Format::Renju,
        _ => {}
    }
    let first = text.trim_start_matches('\u{feff}').trim_start();
    if first.starts_with(['{', '#']) {
        return Format::Log;
    }
    if renju::looks_like_renju(text) {
        return Format::Renju;
    }
    if !first.starts_with('[') && !first.starts_with(|c: char| c.is_ascii_digit()) {
        return Format::Log;
    }
    if says_xiangqi(text) {
        Format::XiangqiPgn
    } else {
        Format::Pdn
    }
}

/// A `Game` or `Variant` tag naming xiangqi, or a first move in a xiangqi notation.
fn says_xiangqi(text: &str) -> bool {
    let tags = text.lines().map(str::trim).filter(|l| l.starts_with('['));
    let named = tags.map(str::to_ascii_lowercase).any(|tag| {
        (tag.starts_with("[game ") || tag.starts_with("[variant "))
            && (tag.contains("chinese chess") || tag.contains("xiangqi"))
    });
    let first_move = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .flat_map(str::split_whitespace)
        .map(|w| w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .find(|w| !w.is_empty() && !w.starts_with(['{', ';', '(', '$']));
    named || first_move.is_some_and(is_move_text)
}

/// The text of a record: UTF-8 if it is, else the decoding (Big5, then GBK) without errors
/// that reads as more xiangqi notation (both often decode the same bytes without error).
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let attempt = |encoding: &'static encoding_rs::Encoding| {
        encoding.decode_without_bom_handling_and_without_replacement(bytes)
    };
    match (attempt(encoding_rs::BIG5), attempt(encoding_rs::GBK)) {
        (Some(big5), Some(gbk)) if notation_chars(&gbk) > notation_chars(&big5) => gbk,
        (Some(big5), _) => big5,
        (None, Some(gbk)) => gbk,
        (None, None) => String::from_utf8_lossy(bytes),
    }
}

/// How many characters of the Chinese move notation `text` holds.
fn notation_chars(text: &str) -> usize {
    const NOTATION: &str = "進进退平車车馬马炮砲兵卒將将帥帅仕士相象前後后";
    text.chars().filter(|c| NOTATION.contains(*c)).count()
}

/// The numbers of the games to import: all, or only `only` (counted from 1).
fn chosen(count: usize, only: Option<usize>) -> Result<Vec<usize>, String> {
    match only {
        None => Ok((1..=count).collect()),
        Some(n) if (1..=count).contains(&n) => Ok(vec![n]),
        Some(n) => Err(format!("there is no game {n}; the file holds {count}")),
    }
}

fn pdn_games(stem: &str, text: &str, only: Option<usize>) -> Result<Vec<Imported>, String> {
    let games = parse_pdn(text).map_err(|e| e.to_string())?;
    chosen(games.len(), only)?
        .into_iter()
        .map(|n| {
            let imported = pdn::log_from_pdn(&games[n - 1], &format!("{stem}-{n}"))
                .map_err(|e| format!("game {n}: {e}"))?;
            Ok(Imported {
                header: imported.header,
                events: imported.events,
                note: imported.note.map(|note| format!("game {n}: {note}")),
            })
        })
        .collect()
}

fn pgn_games(stem: &str, text: &str, only: Option<usize>) -> Result<Vec<Imported>, String> {
    let games = parse_pgn(text).map_err(|e| e.to_string())?;
    if games.is_empty() {
        return Err("no game in the file".to_string());
    }
    let alone = games.len() == 1;
    chosen(games.len(), only)?
        .into_iter()
        .map(|n| {
            let id = if alone {
                stem.to_string()
            } else {
                format!("{stem}-{n}")
            };
            xiangqi::log_from_pgn(&games[n - 1], &id).map_err(|e| e.to_string())
        })
        .collect()
}

/// The game of a renju record (one to a file), with the file's stem as its id.
fn renju_game(stem: &str, text: &str, only: Option<usize>) -> Result<Vec<Imported>, String> {
    chosen(1, only)?;
    let record = renju::parse(text).map_err(|e| e.to_string())?;
    let imported = renju::log_from_record(&record, stem).map_err(|e| e.to_string())?;
    Ok(vec![imported])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_content() {
        assert_eq!(detect("a.pdn", "1. c3c4"), Format::Pdn);
        assert_eq!(detect("a.pgn", "1. 32-28"), Format::XiangqiPgn);
        assert_eq!(detect("a.txt", "{\"type\":\"game\"}"), Format::Log);
        assert_eq!(detect("a", "# a log\n{}"), Format::Log);
        assert_eq!(
            detect("a", "[Game \"Chinese Chess\"]\n1. 32-28"),
            Format::XiangqiPgn
        );
        assert_eq!(detect("a", "[Variant \"Xiangqi\"]\n"), Format::XiangqiPgn);
        assert_eq!(
            detect("a", "[Event \"x\"]\n1. 炮二平五 马8进7"),
            Format::XiangqiPgn
        );
        assert_eq!(detect("a", "1.c3c4 {x}"), Format::XiangqiPgn);
        assert_eq!(
            detect("a", "[Event \"x\"]\n1. 32-28 18-23 2-0"),
            Format::Pdn
        );
        assert_eq!(detect("a", "[GameType \"20\"]\n{c} 1. 32x23"), Format::Pdn);
        assert_eq!(detect("a.renju", "1. 32-28"), Format::Renju);
        assert_eq!(detect("a", "[Variant \"renju\"]\n"), Format::Renju);
        assert_eq!(detect("a.txt", "1. h8 2. h9"), Format::Renju);
        assert_eq!(detect("a.txt", "h8,i9,j10"), Format::Renju);
        assert_eq!(detect("a", "h8i9j10k11"), Format::Renju);
        assert_eq!(detect("a", "1. h2e2 h9g7"), Format::XiangqiPgn);
        assert_eq!(detect("a", "not a record"), Format::Log);
    }

    #[test]
    fn decodes_utf8_big5_and_gbk() {
        let text = "1. 炮二平五 馬８進７";
        for encoding in [encoding_rs::BIG5, encoding_rs::GBK, encoding_rs::UTF_8] {
            let (bytes, _, lossy) = encoding.encode(text);
            assert!(!lossy, "{}", encoding.name());
            assert_eq!(decode(&bytes), text, "{}", encoding.name());
        }
        let simplified = "1. 炮二平五 马8进7 2. 马二进三 车9平8";
        let (gbk, _, _) = encoding_rs::GBK.encode(simplified);
        assert_eq!(decode(&gbk), simplified);
        assert_eq!(decode("\u{feff}1. c3c4".as_bytes()), "1. c3c4");
    }
}
