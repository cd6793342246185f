//! Replay throughput: `cargo bench --bench replay`. Replays the 500 CCPD master games
//! (../shared/data/xiangqi/ccpd/manifest.json; Yu-Han Tseng (2026), Chinese Chess Practical
//! Dataset, CC BY 4.0) through the pure fold, rulings included, and reports moves per second.

use std::time::Instant;

use referee::event::{Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::referee::replay;

fn games() -> Vec<Vec<Event>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/xiangqi/ccpd/manifest.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
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

fn main() {
    let games = games();
    let header = Header::new(Variant::Xiangqi, "bench");
    // Cut each game where the referee ends it (a cycle verdict, the move limit, mate), so
    // only moves that are really judged are counted.
    let games: Vec<Vec<Event>> = games
        .into_iter()
        .map(|events| {
            let end = replay(&header, &events).expect("replay").ending();
            let judged = end.map_or(events.len(), |e| usize::try_from(e.at).expect("seq"));
            events[..judged].to_vec()
        })
        .collect();
    let moves: usize = games.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    let mut rulings = 0;
    for _ in 0..5 {
        let start = Instant::now();
        rulings = 0;
        for events in &games {
            rulings += replay(&header, events).expect("replay").rulings().len();
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "xiangqi replay: {} games, {moves} moves, {rulings} rulings, best of 5: {best:.3} s = {:.0} moves/s",
        games.len(),
        moves as f64 / best
    );
}
