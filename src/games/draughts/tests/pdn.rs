//! PDN reading and writing: the quirks of real files, ambiguous captures, the shortest
//! notation, and the 171 games of the FMJD PDN standard's test set read from their files and
//! compared with the independent parse in `parsed-games.json`.

use std::path::{Path, PathBuf};

use super::super::pdn::{Outcome, PdnError, outcome, parse_pdn, write_pdn};
use super::super::{Color, Move, Position};
use super::json::Json;
use super::{pos, sq};

#[test]
fn quirks_of_real_files() {
    let text = "\
[Event \"test\"]
[Result \"4-6\"]

{ a comment
over two lines } 01. 33-28 18- 22 ( 1... 17-21 { nested } ( 1... 19-24 ) )
2. 38-33 $1 12-18 ; a comment to the end of the line
3. 34-29 19-23 4. 28x19! 14x34?
5... not-a-move
";
    // The last line is move text outside a variation: an error naming its line.
    assert_eq!(
        parse_pdn(text),
        Err(PdnError::BadToken {
            line: 8,
            token: "not-a-move".into()
        })
    );
    let text = text.replace("5... not-a-move", "4-6");
    let games = parse_pdn(&text).expect("reads");
    assert_eq!(games.len(), 1);
    let game = &games[0];
    let written: Vec<String> = game.moves.iter().map(ToString::to_string).collect();
    assert_eq!(
        written,
        [
            "33-28", "18-22", "38-33", "12-18", "34-29", "19-23", "28x19", "14x34"
        ]
    );
    assert_eq!(game.result.as_deref(), Some("4-6"));
    assert_eq!(game.outcome(), Some(Outcome::BlackWins));
    assert_eq!(game.moves[6].line, 7);
    let played = game.legal_moves().expect("legal");
    assert_eq!(played[6].captured_set(), [sq(23)]);
    assert_eq!(played[7].captured_set(), [sq(19), sq(29)]);
}

#[test]
fn results_and_games_in_one_file() {
    let text = "[Result \"2-0\"]\n1. 32-28 2-0\n\n[Result \"1/2-1/2\"]\n1. 33-29 1/2-1/2\n[Event \"empty\"]\n\n\
                [FEN \"B:W8,25,30:B7,15,18.\"]\n1. ... 7-12 2. 8x17 *\n";
    let games = parse_pdn(text).expect("reads");
    assert_eq!(games.len(), 3, "the empty tag section is no game");
    assert_eq!(games[2].legal_moves().expect("legal").len(), 2);
    assert_eq!(games[2].outcome(), None);
    assert_eq!(games[0].outcome(), Some(Outcome::WhiteWins));
    assert_eq!(games[1].outcome(), Some(Outcome::Draw));
    assert_eq!(games[1].moves[0].to_string(), "33-29");
    for (text, want) in [
        ("1-0", Some(Outcome::WhiteWins)),
        ("0-2", Some(Outcome::BlackWins)),
        ("1-1", Some(Outcome::Draw)),
        ("1-9", Some(Outcome::BlackWins)),
        ("*", None),
        ("0-0", None),
    ] {
        assert_eq!(outcome(text), want, "{text}");
    }
    assert!(matches!(
        parse_pdn("1. 32-28 { open"),
        Err(PdnError::Unclosed { line: 1, what: '{' })
    ));
    assert!(matches!(
        parse_pdn("1. 32-28 )"),
        Err(PdnError::StrayParen { line: 1 })
    ));
}

/// The king on 16 takes three pieces to 1 by two routes: 16x27x18x1 (21, 22, 7) and
/// 16x43x34x1 (21, 39, 7). Start and end alone do not say which; the full path does.
const TWO_ROUTES: &str = "W:WK16:B7,21,22,39";

#[test]
fn ambiguous_capture_needs_the_full_path() {
    let start = pos(TWO_ROUTES);
    let legal = start.legal_moves();
    let same_ends: Vec<&Move> = legal
        .iter()
        .filter(|m| (m.from(), m.to()) == (legal[0].from(), legal[0].to()))
        .collect();
    assert_eq!(same_ends.len(), 2, "{legal:?}");
    let short = parse_pdn(&format!("[FEN \"{TWO_ROUTES}\"]\n1. {} *", legal[0].pdn()))
        .expect("reads")
        .remove(0);
    match short.legal_moves() {
        Err(PdnError::Ambiguous { fits, .. }) => assert_eq!(fits.len(), same_ends.len()),
        other => panic!("{other:?}"),
    }
    for mv in same_ends {
        let text = start.pdn_text(mv);
        assert_eq!(text, mv.pdn_full());
        let game = parse_pdn(&format!("[FEN \"{TWO_ROUTES}\"]\n1. {text} *"))
            .expect("reads")
            .remove(0);
        let found = game.legal_moves().expect("one move");
        assert_eq!(found[0].captured_set(), mv.captured_set());
    }
    assert_eq!(Position::startpos().pdn_text(&legal_of("32-28")), "32-28");
}

fn legal_of(text: &str) -> Move {
    let game = parse_pdn(&format!("1. {text} *")).expect("reads").remove(0);
    game.legal_moves().expect("legal").remove(0)
}

#[test]
fn written_games_read_back() {
    let moves: Vec<String> = ["18-23", "32-28", "23x32", "37x28"]
        .map(String::from)
        .to_vec();
    let tags = [("Event".to_string(), "a \"test\"".to_string())];
    let text = write_pdn(&tags, Color::Black, &moves, "0-2");
    assert!(
        text.starts_with("[Event \"a \\\"test\\\"\"]\n\n1... 18-23 2. 32-28 23x32 3. 37x28 0-2"),
        "{text}"
    );
    let game = parse_pdn(&text).expect("reads").remove(0);
    assert_eq!(game.tag("Event"), Some("a \"test\""));
    let again: Vec<String> = game.moves.iter().map(ToString::to_string).collect();
    assert_eq!(again, moves);
    assert_eq!(game.outcome(), Some(Outcome::BlackWins));
}

/// `shared/data/draughts` beside the repository or a directory above it (a worktree may sit
/// one level deeper than the main checkout).
fn data_dir() -> PathBuf {
    super::shared_data()
}

/// The recorded moves of each game in `parsed-games.json`, keyed by file and index.
fn recorded(dir: &Path) -> Vec<(String, usize, Vec<String>)> {
    let text = std::fs::read_to_string(dir.join("parsed-games.json")).expect("parsed-games.json");
    let games = Json::parse(&text).expect("json");
    let mut out = Vec::new();
    for g in games.as_array().expect("list") {
        let file = g.get("file").and_then(Json::as_str).unwrap_or("");
        if !file.starts_with("fmjd_pdn_standard/games/") || g.get("ok") != Some(&Json::Bool(true)) {
            continue;
        }
        let idx = g.get("idx").and_then(Json::as_u64).expect("idx");
        let moves = g.get("moves").and_then(Json::as_array).expect("moves");
        let moves = moves
            .iter()
            .filter_map(Json::as_str)
            .map(without_leading_zeros);
        out.push((
            file.to_string(),
            usize::try_from(idx).expect("idx"),
            moves.collect(),
        ));
    }
    out
}

/// `06-11` as `6-11`: Dutch files pad square numbers; the squares are what count.
fn without_leading_zeros(text: &str) -> String {
    let sep = if text.contains('x') { "x" } else { "-" };
    let squares: Vec<String> = text
        .split(['x', '-'])
        .map(|n| n.trim_start_matches('0').to_string())
        .collect();
    squares.join(sep)
}

#[test]
fn the_fmjd_test_games_read_as_recorded() {
    let dir = data_dir();
    if !dir.join("parsed-games.json").exists() {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    }
    let want = recorded(&dir);
    let mut read = 0;
    for (file, idx, moves) in &want {
        let text = std::fs::read(dir.join(file)).expect("pdn file");
        let games =
            parse_pdn(&String::from_utf8_lossy(&text)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let game = &games[*idx];
        let written: Vec<String> = game.moves.iter().map(ToString::to_string).collect();
        assert_eq!(&written, moves, "{file}#{idx}");
        let legal = game
            .legal_moves()
            .unwrap_or_else(|e| panic!("{file}#{idx}: {e}"));
        assert_eq!(legal.len(), moves.len());
        assert!(game.outcome().is_some(), "{file}#{idx}: no result");
        read += 1;
    }
    assert_eq!(read, 171);
}
