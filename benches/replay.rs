//! Replay throughput: `cargo bench --bench replay`. Replays the 500 CCPD master games
//! (../shared/data/xiangqi/ccpd/manifest.json; Yu-Han Tseng (2026), Chinese Chess Practical
//! Dataset, CC BY 4.0) and the 171 real draughts games of the FMJD PDN standard's test set
//! (../shared/data/draughts/fmjd_pdn_standard/games, imported from PDN) through the pure fold,
//! rulings included, and reports moves per second.

use std::time::Instant;

use std::path::{Path, PathBuf};

use referee::cli::pdn::log_from_pdn;
use referee::event::{Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::games::draughts::parse_pdn;
use referee::referee::replay;

fn games() -> Vec<Vec<Event>> {
    let path = shared("xiangqi/ccpd/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("manifest json");
    let games = manifest.as_array().expect("a list of games");
    games
        .iter()
        .map(|g| events(g["moves_iccs"].as_str().expect("moves_iccs")))
        .collect()
}

fn events(moves: &str) -> Vec<Event> {
    let sq = |s: &str| Square::parse_text(Variant::Xiangqi, s).expect("square");
    moves
        .split_whitespace()
        .zip([Side::First, Side::Second].into_iter().cycle())
        .map(|(m, side)| Event {
            side,
            ts_ms: None,
            kind: EventKind::Move {
                from: sq(&m[0..2]),
                to: sq(&m[2..4]),
                promotion: None,
                captures: None,
            },
        })
        .collect()
}

/// `shared/data/RELATIVE` in the nearest directory above the repository that has it.
fn shared(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("shared/data").join(relative))
        .find(|path| path.exists())
        .unwrap_or_else(|| panic!("shared/data/{relative} above the repository"))
}

/// The 171 draughts games as logs, with the events that give their results.
fn draughts_games() -> Vec<(Header, Vec<Event>)> {
    let dir = shared("draughts/fmjd_pdn_standard/games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("games directory")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        for game in parse_pdn(&text).expect("pdn") {
            let log = log_from_pdn(&game, "bench").expect("import");
            out.push((log.header, log.events));
        }
    }
    out
}

/// Best of five replays of every game, each cut where the referee ends it.
fn measure(name: &str, games: &[(Header, Vec<Event>)]) {
    let games: Vec<(&Header, &[Event])> = games
        .iter()
        .map(|(header, events)| {
            let end = replay(header, events).expect("replay").ending();
            let judged = end.map_or(events.len(), |e| usize::try_from(e.at).expect("seq"));
            (header, &events[..judged])
        })
        .collect();
    let is_move = |e: &&Event| matches!(e.kind, EventKind::Move { .. });
    let moves: usize = games
        .iter()
        .map(|(_, ev)| ev.iter().filter(is_move).count())
        .sum();
    let mut best = f64::MAX;
    let mut rulings = 0;
    for _ in 0..5 {
        let start = Instant::now();
        rulings = 0;
        for (header, events) in &games {
            rulings += replay(header, events).expect("replay").rulings().len();
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{name} replay: {} games, {moves} moves, {rulings} rulings, best of 5: {best:.3} s = {:.0} moves/s",
        games.len(),
        moves as f64 / best
    );
}

fn main() {
    measure("draughts", &draughts_games());
    let header = Header::new(Variant::Xiangqi, "bench");
    let xiangqi: Vec<(Header, Vec<Event>)> = games()
        .into_iter()
        .map(|events| (header.clone(), events))
        .collect();
    // Each game is cut where the referee ends it (a cycle verdict, the move limit, mate), so
    // only moves that are really judged are counted.
    measure("xiangqi", &xiangqi);
}
