//! A tournament export: every game of an event with its result and chain head, and the
//! results table per player, signed like a bundle.
//!
//! An event is a game-id prefix — the same scope an arbiter token covers. The players come
//! from each header's tags (`White`/`Red` for the first side, `Black` for the second: the
//! side's name as a PGN tag), overridden by a pairings list given at export time; a side
//! with neither is listed as `<game> <side>` and the export says so in its warnings. Both are
//! inside the signed text, so the table an auditor reads is the one the server vouched for.

use std::collections::BTreeMap;

use ed25519_dalek::SigningKey;
use serde_json::{Value, json};

use crate::event::{GameResult, Header, Side};
use crate::games::Variant;
use crate::log::Log;
use crate::quote::quote;
use crate::stored::Fold;

use super::Error;
use super::bundle::sign;

/// Who played the first (white/red) and second (black) side of each game.
#[derive(Clone, Debug, Default)]
pub struct Pairings {
    games: BTreeMap<String, [String; 2]>,
}

impl Pairings {
    pub fn insert(&mut self, game: &str, first: &str, second: &str) {
        self.games
            .insert(game.to_string(), [first.to_string(), second.to_string()]);
    }

    /// Reads JSON Lines `{"game":"...","white":"...","black":"..."}` (`red` for xiangqi's
    /// first player); `#` lines and blank lines are comments.
    pub fn from_jsonl(text: &str) -> Result<Pairings, Error> {
        let mut pairings = Pairings::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |message: String| Error::Malformed {
                line: i + 1,
                message,
            };
            let value: Value =
                serde_json::from_str(line).map_err(|e| bad(format!("malformed JSON: {e}")))?;
            let text_of = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| value.get(*k).and_then(Value::as_str))
                    .map(String::from)
                    .ok_or_else(|| bad(format!("a pairing needs \"{}\"", keys.join("\" or \""))))
            };
            let game = text_of(&["game"])?;
            pairings.insert(&game, &text_of(&["white", "red"])?, &text_of(&["black"])?);
        }
        Ok(pairings)
    }

    /// The player of `side` in the game of `header`: the pairing's name, else the side's
    /// tag (`White`, `Red`, `Black`), else `<game> <side>` and a warning saying so.
    fn player(&self, header: &Header, side: Side, warnings: &mut Vec<String>) -> String {
        let index = usize::from(side == Side::Second);
        if let Some(pair) = self.games.get(&header.id) {
            return pair[index].clone();
        }
        let name = side.name(header.variant);
        let tag = Header::player_tag(header.variant, side);
        match header.tag(&tag) {
            Some(player) => player.to_string(),
            None => {
                let placeholder = format!("{} {name}", header.id);
                warnings.push(format!(
                    "game {}: no {tag} tag and no pairing; its {name} player is listed as {}",
                    quote(&header.id),
                    quote(&placeholder)
                ));
                placeholder
            }
        }
    }
}

/// A signed tournament export and what the reader should know about it.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentExport {
    pub text: String,
    /// Sides listed under a placeholder name, one sentence each.
    pub warnings: Vec<String>,
}

/// The half points each side of a game of `variant` scores with `result`.
pub fn score(variant: Variant, result: GameResult) -> [u32; 2] {
    // Half points of a win and of a draw, by the game's scale (its spec cites it).
    let scoring = variant.spec().scoring;
    let (win, draw) = (scoring.win, scoring.draw);
    match result {
        GameResult::FirstWins => [win, 0],
        GameResult::SecondWins => [0, win],
        GameResult::Draw => [draw, draw],
    }
}

fn points(half: u32) -> Value {
    json!(f64::from(half) / 2.0)
}

/// One line of the results table.
#[derive(Clone, Debug, Default, PartialEq)]
struct Standing {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    half_points: u32,
}

/// The table: per player, over the finished games; unfinished games count for nobody.
fn standings(
    games: &[(String, String, Variant, Option<GameResult>)],
) -> BTreeMap<String, Standing> {
    let mut table: BTreeMap<String, Standing> = BTreeMap::new();
    for (first, second, variant, result) in games {
        let Some(result) = result else { continue };
        let got = score(*variant, *result);
        for (player, (mine, theirs)) in [first, second]
            .into_iter()
            .zip([(got[0], got[1]), (got[1], got[0])])
        {
            let s = table.entry(player.clone()).or_default();
            s.games += 1;
            s.half_points += mine;
            match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => s.wins += 1,
                std::cmp::Ordering::Equal => s.draws += 1,
                std::cmp::Ordering::Less => s.losses += 1,
            }
        }
    }
    table
}

fn standing_line(player: &str, s: &Standing) -> Value {
    json!({
        "type": "standing",
        "player": player,
        "games": s.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "points": points(s.half_points),
    })
}

/// The signed export of every game whose id starts with `event`.
pub async fn export_tournament<L: Log>(
    log: &L,
    event: &str,
    pairings: &Pairings,
    key: &SigningKey,
    now_ms: u64,
) -> Result<TournamentExport, Error> {
    let ids: Vec<String> = log
        .games()
        .await
        .map_err(|e| Error::Log(e.to_string()))?
        .into_iter()
        .map(|g| g.game)
        .filter(|g| g.starts_with(event))
        .collect();
    let mut lines = vec![json!({
        "type": "tournament",
        "version": 1,
        "event": event,
        "games": ids.len(),
        "exported_ms": now_ms,
    })];
    let mut results = Vec::new();
    let mut warnings = Vec::new();
    for game in &ids {
        let (line, row) = game_line(log, game, pairings, &mut warnings).await?;
        lines.push(line);
        results.push(row);
    }
    lines.extend(
        standings(&results)
            .iter()
            .map(|(player, s)| standing_line(player, s)),
    );
    Ok(TournamentExport {
        text: sign(&lines, key),
        warnings,
    })
}

type Row = (String, String, Variant, Option<GameResult>);

/// A game's line: its result re-derived with this build's rules, and its chain head.
async fn game_line<L: Log>(
    log: &L,
    game: &str,
    pairings: &Pairings,
    warnings: &mut Vec<String>,
) -> Result<(Value, Row), Error> {
    let Fold {
        referee, head_hash, ..
    } = Fold::load(log, game, None)
        .await
        .map_err(|e| Error::Log(e.to_string()))?;
    let variant = referee.header().variant;
    let result = referee.ending().map(|e| e.result);
    // After a renju swap the player paired (or tagged) with one colour holds the other.
    let [first, second] = match referee.players_swapped() {
        false => [Side::First, Side::Second],
        true => [Side::Second, Side::First],
    }
    .map(|side| pairings.player(referee.header(), side, warnings));
    let line = json!({
        "type": "tournament_game",
        "game": game,
        "variant": variant.name(),
        "first": first,
        "second": second,
        "result": result.map(GameResult::as_str),
        "at": referee.ending().map(|e| e.at),
        "points": result.map(|r| score(variant, r).map(points)),
        "last_seq": referee.last_seq(),
        "head_hash": hex::encode(head_hash),
    });
    Ok((line, (first, second, variant, result)))
}

/// Checks a tournament export's body (the signature is checked by the caller): every game's
/// points follow from its result and its variant's scoring, and the table is the sum of them.
pub(super) fn check_table(
    lines: &[(usize, &Value)],
    problems: &mut Vec<String>,
    held: &mut Vec<String>,
) {
    let before = problems.len();
    let mut rows = Vec::new();
    let mut recorded = BTreeMap::new();
    let mut announced = None;
    for (number, value) in lines {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "tournament" => announced = value.get("games").and_then(Value::as_u64),
            "tournament_game" => match game_row(value) {
                Ok(row) => {
                    check_points(*number, value, &row, problems);
                    rows.push(row);
                }
                Err(message) => problems.push(format!("line {number}: {message}")),
            },
            "standing" => {
                let player = value.get("player").and_then(Value::as_str).unwrap_or("");
                recorded.insert(player.to_string(), (*number, (*value).clone()));
            }
            _ => problems.push(format!("line {number}: unexpected line of type \"{kind}\"")),
        }
    }
    if announced != u64::try_from(rows.len()).ok() {
        problems.push(format!(
            "the export announces {} games but lists {}: a game was removed or added",
            announced.map_or("no number of".to_string(), |n| n.to_string()),
            rows.len()
        ));
    }
    compare_standings(&standings(&rows), &recorded, problems);
    if problems.len() == before {
        held.push(format!(
            "results table: {} games; every game's points follow from its result, and the \
             table of {} players is their sum",
            rows.len(),
            recorded.len()
        ));
    }
}

fn game_row(value: &Value) -> Result<Row, String> {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(String::from)
            .ok_or_else(|| format!("a tournament game needs \"{key}\""))
    };
    let variant = Variant::parse_named(&text("variant")?)?;
    let result = match value.get("result") {
        None | Some(Value::Null) => None,
        Some(r) => Some(
            r.as_str()
                .and_then(GameResult::parse)
                .ok_or_else(|| format!("result {r} is not 1-0, 0-1 or 1/2-1/2"))?,
        ),
    };
    Ok((text("first")?, text("second")?, variant, result))
}

fn check_points(number: usize, value: &Value, row: &Row, problems: &mut Vec<String>) {
    let expected = row.3.map(|r| json!(score(row.2, r).map(points)));
    let recorded = value.get("points").filter(|p| !p.is_null()).cloned();
    if recorded != expected {
        problems.push(format!(
            "line {number}: game {} records points {} but result {} of {} scores {}",
            value.get("game").unwrap_or(&Value::Null),
            recorded.unwrap_or(Value::Null),
            row.3.map_or("none", GameResult::as_str),
            row.2.name(),
            expected.unwrap_or(Value::Null)
        ));
    }
}

fn compare_standings(
    derived: &BTreeMap<String, Standing>,
    recorded: &BTreeMap<String, (usize, Value)>,
    problems: &mut Vec<String>,
) {
    for (player, s) in derived {
        let want = standing_line(player, s);
        match recorded.get(player) {
            Some((_, got)) if *got == want => {}
            Some((number, got)) => problems.push(format!(
                "line {number}: the table records {got} but the games give {want}"
            )),
            None => problems.push(format!(
                "the table has no line for {player}: the games give {want}"
            )),
        }
    }
    for (player, (number, _)) in recorded {
        if !derived.contains_key(player) {
            problems.push(format!(
                "line {number}: the table lists {player}, who has no finished game in the export"
            ));
        }
    }
}
