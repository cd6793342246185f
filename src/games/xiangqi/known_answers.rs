//! Known-answer tests: published perft counts, master games that must replay move by move,
//! and recorded games whose one illegal move must be caught.

use std::path::{Path, PathBuf};

use super::{Illegal, Move, Position, START_FEN, Status, perft};

/// Perft counts by depth from 1. Source: ../shared/data/perft/perft_reference.json (the
/// project's shared data folder, beside the repository),
/// section "xiangqi" (which cites wukong-xiangqi, Fairy-Stockfish tests/perft.sh and the
/// folium engine). Depths kept small here (the start position to 4, as published by all
/// three); `perft_file` checks every count of `tests/perft/xiangqi.perft` up to 5 million.
const PERFT_TABLE: [(&str, &[u64]); 5] = [
    (START_FEN, &[44, 1920, 79666, 3290240]),
    (
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        &[38, 1128, 43929],
    ),
    (
        "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
        &[58, 1651, 90744],
    ),
    (
        "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
        &[49, 2265, 100326],
    ),
    (
        "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
        &[13, 272, 3707],
    ),
];

#[test]
fn perft_table() {
    for (fen, counts) in PERFT_TABLE {
        let pos = Position::from_fen(fen).unwrap();
        for (depth, &nodes) in (1..).zip(counts) {
            assert_eq!(perft(&pos, depth), nodes, "{fen} depth {depth}");
        }
    }
}

#[test]
fn perft_depth_zero_is_the_position_itself() {
    assert_eq!(perft(&Position::startpos(), 0), 1);
}

/// The speed target (under 10 s): `cargo test --release -- --ignored perft_start_depth_5`.
#[test]
#[ignore = "a few seconds in release; run for timing"]
fn perft_start_depth_5() {
    let start = std::time::Instant::now();
    assert_eq!(perft(&Position::startpos(), 5), 133_312_995);
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("start position perft 5: {seconds:.2} s");
    assert!(seconds < 10.0, "{seconds:.2} s");
}

/// The copy of the shared data set in `tests/data`, found from this file's path: `file!()` is
/// `src/games/xiangqi/known_answers.rs`, relative to the repository (where `cargo test` runs
/// unit tests), or that path made absolute when the compiler was given an absolute one.
fn shared_data(relative: &str) -> PathBuf {
    let here = Path::new(file!());
    let repo = here.ancestors().nth(4).unwrap_or(Path::new(""));
    repo.join("tests/data").join(relative)
}

/// The string values of `"key": "..."` in order of appearance: enough JSON for a manifest
/// whose strings hold no escapes (FENs and ICCS moves).
fn string_values<'a>(json: &'a str, key: &str) -> Vec<&'a str> {
    let pattern = format!("\"{key}\": \"");
    let values = json.split(pattern.as_str()).skip(1);
    values
        .map(|rest| rest.split('"').next().unwrap_or(""))
        .collect()
}

fn board_field(fen: &str) -> &str {
    fen.split(' ').next().unwrap_or("")
}

/// Plays a game move by move with `check_move`; returns the final position.
fn replay(id: &str, moves: &str) -> Position {
    let mut pos = Position::startpos();
    for (ply, text) in (1..).zip(moves.split_whitespace()) {
        let mv = Move::parse(text).unwrap_or_else(|| panic!("{id} ply {ply}: bad move {text}"));
        let checked = pos.check_move(mv.from, mv.to);
        assert_eq!(checked, Ok(mv), "{id} ply {ply} {text} in {}", pos.to_fen());
        pos.play(mv);
    }
    pos
}

#[test]
fn master_games_replay() {
    let path = shared_data("xiangqi/ccpd/manifest.json");
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the data is part of the repository)",
            path.display()
        )
    });
    let ids = string_values(&json, "id");
    let fens = string_values(&json, "final_fen");
    let games = string_values(&json, "moves_iccs");
    assert!(ids.len() == fens.len() && fens.len() == games.len() && !ids.is_empty());
    for ((id, fen), moves) in ids.iter().zip(&fens).zip(&games) {
        let pos = replay(id, moves);
        assert_eq!(board_field(&pos.to_fen()), board_field(fen), "{id}");
        assert_eq!(pos.to_fen(), *fen, "{id}: counters");
    }
}

#[test]
fn master_games_end_states() {
    let path = shared_data("xiangqi/ccpd/manifest.json");
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the data is part of the repository)",
            path.display()
        )
    });
    let fens = string_values(&json, "final_fen");
    let counts: Vec<usize> = json
        .split("\"legal_moves_at_end\": ")
        .skip(1)
        .map(|rest| rest.split(',').next().unwrap_or("").trim().parse().unwrap())
        .collect();
    assert_eq!(fens.len(), counts.len());
    for (fen, count) in fens.iter().zip(counts) {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(pos.legal_moves().len(), count, "{fen}");
        assert_eq!(pos.status() == Status::Ongoing, count > 0, "{fen}");
    }
}

#[test]
fn recorded_illegal_general_moves_are_caught() {
    let text = include_str!("testdata/invalid_records.txt");
    let mut pos = Position::startpos();
    let mut caught = 0;
    for line in text.lines() {
        if let Some(fen) = line.strip_prefix("fen ") {
            pos = Position::from_fen(fen).unwrap();
        } else if let Some(moves) = line.strip_prefix("moves ") {
            assert_eq!(
                pos.to_fen(),
                START_FEN,
                "records start from the start position"
            );
            pos = replay("invalid record", moves);
        } else if let Some(text) = line.strip_prefix("illegal ") {
            let mv = Move::parse(text).unwrap();
            let why = pos.check_move(mv.from, mv.to).unwrap_err();
            assert!(matches!(why, Illegal::LeavesGeneralInCheck { .. }), "{why}");
            assert!(!pos.is_legal(mv) && !pos.legal_moves().contains(&mv));
            caught += 1;
        }
    }
    assert_eq!(caught, 3);
}
