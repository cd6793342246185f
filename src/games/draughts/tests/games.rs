//! Every recorded game replays legally: 452 real FMJD games and composed problems, parsed
//! from the PDN standard's test set into `shared/data/draughts/parsed-games.json`.

use std::path::PathBuf;

use super::super::{Move, Position, Resolution, Square};
use super::json::Json;

/// The data file, found from this source file so it works from any crate that includes the
/// rules: `<repo>/../shared/data/draughts/parsed-games.json`.
fn data_file() -> PathBuf {
    super::shared_data().join("parsed-games.json")
}

/// A recorded move: `32-28`, `28x19`, or a capture with landing squares `28x19x10`.
fn squares(token: &str) -> Option<Vec<Square>> {
    token
        .split(['-', 'x'])
        .map(|n| Square::new(n.parse().ok()?))
        .collect()
}

/// The one legal move the record means; intermediate squares pick among routes.
fn resolve(pos: &Position, token: &str) -> Result<Move, String> {
    let path = squares(token).ok_or_else(|| format!("{token:?} is not a move"))?;
    let (from, to) = (path[0], path[path.len() - 1]);
    let via = |mv: &Move| {
        path[1..path.len() - 1]
            .iter()
            .all(|sq| mv.path.contains(sq))
    };
    match pos.resolve(from, to, None) {
        Resolution::Legal(mv) if via(&mv) => Ok(mv),
        Resolution::Ambiguous(routes) => {
            let mut fits = routes.into_iter().filter(via);
            match (fits.next(), fits.next()) {
                (Some(mv), None) => Ok(mv),
                _ => Err(format!("{token} is ambiguous")),
            }
        }
        other => Err(format!("{token}: {other:?}")),
    }
}

/// Replays one game; returns the number of plies played.
fn replay(game: &Json) -> Result<usize, String> {
    let start = match game
        .get("tags")
        .and_then(|t| t.get("FEN"))
        .and_then(Json::as_str)
    {
        Some(fen) => Position::from_fen(fen).map_err(|e| format!("FEN {fen:?}: {e}"))?,
        None => Position::startpos(),
    };
    let moves = game
        .get("moves")
        .and_then(Json::as_array)
        .unwrap_or_default();
    let plies = game
        .get("plies")
        .and_then(Json::as_u64)
        .map_or(Some(moves.len()), |n| usize::try_from(n).ok());
    let plies = plies.ok_or("plies out of range")?;
    let mut pos = start;
    for (ply, token) in moves.iter().take(plies).enumerate() {
        let token = token.as_str().ok_or("move is not a string")?;
        let mv = resolve(&pos, token)
            .map_err(|e| format!("ply {}: {e} in {}", ply + 1, pos.to_fen()))?;
        pos.play(&mv);
    }
    check_end(game, &pos)?;
    Ok(plies)
}

/// The final position and its number of legal moves, as recorded.
fn check_end(game: &Json, pos: &Position) -> Result<(), String> {
    if game.get("ok") != Some(&Json::Bool(true)) {
        return Ok(());
    }
    if let Some(fen) = game.get("final_fen").and_then(Json::as_str) {
        let want = Position::from_fen(fen).map_err(|e| format!("final FEN {fen:?}: {e}"))?;
        if want != *pos {
            return Err(format!("ends in {}, recorded {fen}", pos.to_fen()));
        }
    }
    let count = game.get("legal_moves_at_end").and_then(Json::as_u64);
    let have = pos.legal_moves().len();
    match count.is_none_or(|n| usize::try_from(n) == Ok(have)) {
        true => Ok(()),
        false => Err(format!("{count:?} legal moves recorded at the end, {have}")),
    }
}

#[test]
fn every_game_replays_legally() {
    let path = data_file();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the data is part of the repository)",
            path.display()
        )
    });
    let games = Json::parse(&text).expect("parsed-games.json is JSON");
    let games = games.as_array().expect("a list of games");
    let (mut failures, mut plies) = (Vec::new(), 0);
    for game in games {
        let name = |g: &Json| {
            format!(
                "{}#{}",
                g.get("file").and_then(Json::as_str).unwrap_or("?"),
                g.get("idx").and_then(Json::as_u64).unwrap_or(0)
            )
        };
        match replay(game) {
            Ok(n) => plies += n,
            Err(e) => failures.push(format!("{}: {e}", name(game))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} games fail:\n{}",
        failures.len(),
        games.len(),
        failures.join("\n")
    );
    assert!(
        games.len() >= 450 && plies > 20_000,
        "{} games, {plies} plies",
        games.len()
    );
}
