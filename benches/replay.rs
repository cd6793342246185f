//! Replay throughput: `cargo bench --bench replay`. Replays the 500 CCPD master games
//! (../shared/data/xiangqi/ccpd/manifest.json; Yu-Han Tseng (2026), Chinese Chess Practical
//! Dataset, CC BY 4.0) and the 171 real draughts games of the FMJD PDN standard's test set
//! (../shared/data/draughts/fmjd_pdn_standard/games, imported from PDN) through the pure fold,
//! rulings included, and 500 seeded random chess_gjq games with their reveals (no chess_gjq
//! records exist), and reports moves per second: best and median of seven runs, against the
//! mark of issue 17 item 4 (a million judged moves a second). `long` replays one repetitive
//! xiangqi game of 4,000 to 32,000 plies (horses out and back, every drawn cycle judged and
//! reported claimable) and prints the cost per ply at each length: it must not grow with the
//! game. `-- NAME` runs one only: `long`, or one of the games of `NAMES` (renju, which has no
//! records to replay, has its own bench: benches/renju.rs). The data are the
//! copies in `tests/data`.

use std::time::Instant;

use referee::event::{Event, EventKind, Header};
use referee::games::Variant;
use referee::referee::replay;

#[path = "common/games.rs"]
mod games;

use games::{chess_gjq_games, draughts_games, events, games};

/// How many times each game's set is replayed; the best and the median are printed.
const RUNS: usize = 7;

/// The mark of issue 17 item 4: judged moves per second, each game.
const TARGET_MOVES_PER_SECOND: f64 = 1_000_000.0;

/// Best of seven replays of every game, each cut where the referee ends it.
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
    let mut times = Vec::with_capacity(RUNS);
    let mut rulings = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        rulings = 0;
        for (header, events) in &games {
            rulings += replay(header, events).expect("replay").rulings().len();
        }
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let (best, median) = (times[0], times[RUNS / 2]);
    let rate = moves as f64 / best;
    let verdict = if rate >= TARGET_MOVES_PER_SECOND {
        "MET"
    } else {
        "NOT MET"
    };
    println!(
        "{name} replay: {} games, {moves} moves, {rulings} rulings, best of {RUNS}: {best:.4} s \
         = {rate:.0} moves/s (median {median:.4} s = {:.0} moves/s); target >= {:.0} moves/s: \
         {verdict}",
        games.len(),
        moves as f64 / median,
        TARGET_MOVES_PER_SECOND
    );
}

/// The games named after `--` (`cargo bench --bench replay -- draughts`); all three when
/// none is named. Cargo's own `--bench` flag is not a name.
fn chosen() -> Vec<String> {
    // games-listed: partial (renju is measured by benches/renju.rs).
    const NAMES: [&str; 4] = ["xiangqi", "chess_gjq", "draughts", "long"];
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for name in &named {
        assert!(
            NAMES.contains(&name.as_str()),
            "unknown game {name:?}: one of {NAMES:?}"
        );
    }
    if named.is_empty() {
        NAMES.iter().map(|n| n.to_string()).collect()
    } else {
        named
    }
}

fn main() {
    let chosen = chosen();
    let runs = |name: &str| chosen.iter().any(|c| c == name);
    if runs("draughts") {
        measure("draughts", &draughts_games());
    }
    if runs("xiangqi") {
        let header = Header::new(Variant::Xiangqi, "bench");
        let xiangqi: Vec<(Header, Vec<Event>)> = games()
            .into_iter()
            .map(|events| (header.clone(), events))
            .collect();
        // Each game is cut where the referee ends it (a cycle verdict, the move limit, mate),
        // so only moves that are really judged are counted.
        measure("xiangqi", &xiangqi);
    }
    if runs("chess_gjq") {
        let header = Header::new(Variant::ChessGjq, "bench");
        let chess_gjq: Vec<(Header, Vec<Event>)> = chess_gjq_games(500, 160)
            .into_iter()
            .map(|events| (header.clone(), events))
            .collect();
        measure("chess_gjq", &chess_gjq);
    }
    if runs("long") {
        long_game();
    }
}

/// Plies of the longest repetitive game, and the shortest it is compared with.
const LONG_PLIES: usize = 32_000;
const SHORT_PLIES: usize = 4_000;

/// Replays the repetitive game at 4k, 8k, 16k and 32k plies (best of the runs each) and
/// compares the cost per ply of the longest with the shortest: a referee that compares each
/// position with every earlier occurrence grows linearly here.
fn long_game() {
    let header = Header::new(Variant::Xiangqi, "bench");
    let loop_of_four = "h0g2 h9g7 g2h0 g7h9 ";
    let all = events(&loop_of_four.repeat(LONG_PLIES / 4));
    let mut per_ply = Vec::new();
    let mut plies = SHORT_PLIES;
    while plies <= LONG_PLIES {
        let game = &all[..plies];
        let mut best = f64::INFINITY;
        let mut rulings = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let referee = replay(&header, game).expect("replay");
            best = best.min(start.elapsed().as_secs_f64());
            rulings = referee.rulings().len();
            assert!(
                referee.ending().is_none(),
                "the repetitive game must go on to its last ply"
            );
        }
        let ns = best * 1e9 / plies as f64;
        println!(
            "long xiangqi game: {plies} plies, {rulings} rulings, best of {RUNS}: {best:.4} s = \
             {ns:.0} ns per ply"
        );
        per_ply.push(ns);
        plies *= 2;
    }
    let growth = per_ply[per_ply.len() - 1] / per_ply[0];
    let verdict = if growth < MAX_GROWTH {
        "MET"
    } else {
        "NOT MET"
    };
    println!(
        "long xiangqi game: cost per ply at {LONG_PLIES} plies is {growth:.2}x that at \
         {SHORT_PLIES}; target: not growing with the game (< {MAX_GROWTH}x): {verdict}"
    );
}

/// How much more a ply of the longest game may cost than one of the shortest before the
/// cost is said to grow: timing noise on a shared machine stays well inside it, a cost
/// linear in the game's length would be 8x.
const MAX_GROWTH: f64 = 1.5;
