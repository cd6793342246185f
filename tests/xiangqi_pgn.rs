//! Xiangqi PGN records through the import (`referee::records`, the path `referee import` and
//! the service's ImportGame share): the 500 CCPD originals (Big5, traditional Chinese
//! notation) give the manifest's ICCS moves and replay to the same rulings, their results
//! become the events a board would have sent, and the records CCPD itself could not read
//! are refused at the line of the move that fails.

use std::path::{Path, PathBuf};
use std::time::Instant;

use referee::event::{Event, EventKind, GameResult, Header, Side, Square};
use referee::games::Variant;
use referee::records::{self, Format};
use referee::referee::replay;
use serde_json::Value;

/// Copies of ../shared/data/xiangqi/ccpd (attribution in tests/data/README.md).
const CCPD: &str = "tests/data/xiangqi/ccpd";

fn ccpd(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(CCPD).join(path)
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(ccpd("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest is JSON")
}

/// The manifest's ICCS moves of one game as move events.
fn iccs_events(game: &Value) -> Vec<Event> {
    let sides = [Side::First, Side::Second].into_iter().cycle();
    let square = |t: &str| Square::parse_text(Variant::Xiangqi, t).expect("square");
    game["moves_iccs"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .zip(sides)
        .map(|(mv, side)| Event {
            side,
            ts_ms: None,
            kind: EventKind::Move {
                from: square(&mv[..2]),
                to: square(&mv[2..]),
                promotion: None,
                captures: None,
            },
        })
        .collect()
}

fn recorded(game: &Value) -> Option<GameResult> {
    match game["result"].as_str() {
        Some("1-0") => Some(GameResult::FirstWins),
        Some("0-1") => Some(GameResult::SecondWins),
        Some("1/2-1/2") => Some(GameResult::Draw),
        _ => None,
    }
}

#[test]
fn the_500_ccpd_originals_import_to_the_manifest_moves_and_rulings() {
    let games = manifest();
    let clock = Instant::now();
    let mut imported = Vec::with_capacity(games.len());
    for g in &games {
        let id = g["id"].as_str().expect("id");
        let bytes = std::fs::read(ccpd("original").join(id)).expect("original record");
        let mut read = records::read(id, &bytes, None, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.len(), 1, "{id}: one game");
        imported.push(read.remove(0));
    }
    let took = clock.elapsed();
    let (mut resigned, mut agreed, mut noted) = (0, 0, 0);
    for (g, game) in games.iter().zip(&imported) {
        let id = g["id"].as_str().unwrap_or_default();
        assert_eq!(game.header.id, id.trim_end_matches(".pgn"));
        assert_eq!(
            (game.header.variant, &game.header.start),
            (Variant::Xiangqi, &None)
        );
        let tag = |name: &str| {
            let found = game.header.tags.iter().find(|(n, _)| n == name);
            found.map_or("", |(_, v)| v.as_str())
        };
        for (name, key) in [("Red", "red"), ("Black", "black"), ("Date", "date")] {
            assert_eq!(
                tag(name),
                g[key].as_str().unwrap_or_default().trim(),
                "{id} {name}"
            );
        }
        for setup in ["FEN", "Result", "Game"] {
            assert_eq!(tag(setup), "", "{id}: {setup} is the header's business");
        }
        let moves = iccs_events(g);
        assert_eq!(game.events[..moves.len()], moves[..], "{id}: the moves");
        let from_moves = replay(&game.header, &moves).unwrap();
        let from_import = replay(&game.header, &game.events).unwrap();
        let plies = u64::try_from(moves.len()).unwrap();
        let during: Vec<_> = from_import
            .rulings()
            .iter()
            .filter(|r| r.at <= plies)
            .cloned()
            .collect();
        assert_eq!(
            during,
            from_moves.rulings(),
            "{id}: the rulings of the moves"
        );
        // After the moves, the events of the recorded result, unless the referee ended the
        // game itself (then a note says how it differs, if it does).
        let extra = &game.events[moves.len()..];
        match (&game.note, from_moves.ending()) {
            (Some(_), _) => noted += 1,
            (None, Some(end)) => assert_eq!(Some(end.result), recorded(g), "{id}"),
            (None, None) => {
                let end = from_import.ending().map(|e| e.result);
                assert_eq!(end, recorded(g), "{id}: the recorded result");
            }
        }
        resigned += usize::from(matches!(extra, [e] if e.kind == EventKind::Resign));
        agreed +=
            usize::from(matches!(extra, [_, e] if e.kind == EventKind::DrawReply { accept: true }));
    }
    eprintln!(
        "ccpd: {} of {} originals imported in {took:?}; {resigned} end by resignation, \
         {agreed} by an agreed draw, {noted} with a note that the referee ends them otherwise",
        imported.len(),
        games.len()
    );
    assert!(took.as_secs() < 30, "500 records import in {took:?}");
}

/// The records CCPD could not read (ply and move in its README.json): each is refused at
/// the line of that move, naming it.
#[test]
fn records_with_an_illegal_move_are_refused_at_its_line() {
    let dir = ccpd("invalid_records");
    let readme = std::fs::read_to_string(dir.join("README.json")).expect("README.json");
    let cases: Vec<Value> = serde_json::from_str(&readme).expect("JSON");
    assert_eq!(cases.len(), 3);
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        // "ply 115 '帥五進一': no legal match"
        let error = case["error"].as_str().unwrap();
        let ply: usize = error["ply ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let written = error.split('\'').nth(1).unwrap();
        let bytes = std::fs::read(dir.join(id)).unwrap();
        let text = records::decode(&bytes);
        let number = ply.div_ceil(2);
        let line = 1 + text
            .lines()
            .position(|l| l.starts_with(&format!("{number}. ")) && l.contains(written))
            .expect("the move's line");
        let color = if ply % 2 == 1 { "red" } else { "black" };
        let err = records::read(id, &bytes, None, None).unwrap_err();
        let want = format!("{id}: line {line}: move {number} of {color}, \"{written}\": illegal: ");
        assert!(err.to_string().starts_with(&want), "{err} / {want}");
        assert!(err.to_string().contains("general"), "{err}");
    }
}

#[test]
fn one_game_in_utf8_big5_gbk_and_every_notation() {
    let chinese = "[Game \"Chinese Chess\"]\n[Red \"胡榮華\"]\n[Result \"0-1\"]\n\
                   1. 炮二平五 馬８進７ 2. 馬二進三 車９平８ 0-1\n";
    let simplified = "[Game \"Chinese Chess\"]\n[Result \"0-1\"]\n\
                      1. 炮二平五 马8进7 2. 马二进三 车9平8 0-1\n";
    let wxf = "[Result \"0-1\"]\n1. C2.5 H8+7 2. H2+3 R9.8 0-1\n";
    let iccs = "[Result \"0-1\"]\n1. H2-E2 H9-G7 2. H0-G2 I9-H9 0-1\n";
    let mut seen = Vec::new();
    for (text, encoding) in [
        (chinese, encoding_rs::UTF_8),
        (chinese, encoding_rs::BIG5),
        (simplified, encoding_rs::GBK),
        (wxf, encoding_rs::UTF_8),
        (iccs, encoding_rs::UTF_8),
    ] {
        let (bytes, _, _) = encoding.encode(text);
        let games = records::read("r1.pgn", &bytes, None, None).unwrap();
        assert_eq!(games[0].header.id, "r1");
        if text == chinese {
            let red = ("Red".to_string(), "胡榮華".to_string());
            assert_eq!(games[0].header.tags, [red], "{}", encoding.name());
        }
        seen.push(games[0].events.clone());
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    let last = seen[0].last().unwrap();
    assert_eq!((last.side, &last.kind), (Side::First, &EventKind::Resign));
}

#[test]
fn a_fen_start_many_games_and_the_game_option() {
    let text = "[Game \"Chinese Chess\"]\n[FEN \"3k5/9/9/9/9/9/4C4/9/4C4/5K3 w - - 0 1\"]\n\
                1. 前炮進五 1-0\n\n[Game \"Chinese Chess\"]\n1. 炮二平五 {中炮} 1/2-1/2\n";
    let games = records::read("set.pgn", text.as_bytes(), Some(Format::XiangqiPgn), None).unwrap();
    let ids: Vec<&str> = games.iter().map(|g| g.header.id.as_str()).collect();
    assert_eq!(ids, ["set-1", "set-2"]);
    assert_eq!(
        games[0].header.start.as_deref(),
        Some("3k5/9/9/9/9/9/4C4/9/4C4/5K3 w - - 0 1")
    );
    // e3e8 is no mate: black resigns. The draw after one move: red offers, black accepts.
    let kinds = |g: &records::Imported| g.events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>();
    assert_eq!(kinds(&games[0])[1], EventKind::Resign);
    assert_eq!(
        kinds(&games[1])[1..],
        [EventKind::DrawOffer, EventKind::DrawReply { accept: true }]
    );
    assert_eq!(
        replay(&games[1].header, &games[1].events)
            .unwrap()
            .ending()
            .map(|e| e.result),
        Some(GameResult::Draw)
    );
    let second = records::read("set.pgn", text.as_bytes(), None, Some(2)).unwrap();
    assert_eq!(second, games[1..]);
    let none = records::read("set.pgn", text.as_bytes(), None, Some(3)).unwrap_err();
    assert_eq!(
        none.to_string(),
        "set.pgn: there is no game 3; the file holds 2"
    );
    let header = Header::new(Variant::Xiangqi, "set-2");
    assert_eq!(games[1].header, header);
}
