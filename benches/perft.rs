//! Perft speed per variant, and side by side with independent engines in the same run:
//!
//! ```text
//! cargo bench --bench perft                          # every variant, then side by side
//! cargo bench --bench perft -- side-by-side          # only the side-by-side table
//! cargo bench --bench perft -- VARIANT DEPTH [FEN]   # one count
//! ```
//!
//! Side by side: chess_gjq against shakmaty 0.30.1 (a dev-dependency, in this process) at
//! perft 6 from the ordinary start, and draughts against dame-rs 0.2.0 (PyPI, a Rust engine
//! driven from Python: `tests/tools/dame_perft.py`, run with `$VENV/bin/python` when `VENV`
//! is set, else `python3`) at perft 9 from the start. Xiangqi against Fairy-Stockfish
//! (built from source outside the project by `tests/tools/build-fairy-stockfish.sh`; `FSF`
//! names the binary) at perft 5 from the start: the bench drives it over UCI
//! (`setoption name UCI_Variant value xiangqi`, `position startpos`, `go perft 5`) and times
//! from sending `go perft` to its `Nodes searched` line. Without `VENV`'s dame-rs or `FSF`,
//! the bench says how to get the engine and prints our row alone.
//!
//! All engines count the last ply in bulk: ours from the move list without playing it,
//! shakmaty and dame-rs from the length of their move lists, and Fairy-Stockfish's
//! `perft<Root>` (src/search.cpp) adds `MoveList<LEGAL>(pos).size()` at depth 2 instead of
//! playing the last ply. Each engine runs three times, alternating, and its best time counts;
//! the counts of each pair are compared, never a number written here.

// A module beside this file would be found by cargo as a bench of its own.
#[path = "perft/fairy_stockfish.rs"]
mod fairy_stockfish;

use std::process::Command;
use std::time::Instant;

use referee::games::{self, Variant};

use fairy_stockfish::FairyStockfish;

const ROUNDS: usize = 3;

/// One timed count: nodes and seconds.
#[derive(Clone, Copy)]
struct Run {
    nodes: u64,
    secs: f64,
}

impl Run {
    fn rate(self) -> f64 {
        self.nodes as f64 / self.secs / 1e6
    }
}

fn timed(count: impl FnOnce() -> u64) -> Run {
    let start = Instant::now();
    let nodes = count();
    Run {
        nodes,
        secs: start.elapsed().as_secs_f64(),
    }
}

fn referee(variant: Variant, fen: Option<&str>, depth: u32) -> Run {
    timed(|| games::perft(variant, fen, depth).expect("perft"))
}

fn measure(variant: Variant, fen: Option<&str>, depth: u32) {
    let run = referee(variant, fen, depth);
    let at = fen.unwrap_or("start");
    println!(
        "{variant:<9} depth {depth} from {at}: {} nodes in {:.2} s = {:.1} M nodes/s",
        run.nodes,
        run.secs,
        run.rate()
    );
}

/// Ordinary chess perft by shakmaty (an independent, well-kept chess crate): chess_gjq
/// without hidden pieces is ordinary chess.
fn shakmaty(fen: &str, depth: u32) -> Run {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};
    let pos: Chess = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("position");
    timed(|| shakmaty::perft(&pos, depth))
}

fn shakmaty_side_by_side(fen: &str, depth: u32) {
    let run = shakmaty(fen, depth);
    println!(
        "shakmaty  depth {depth} from {fen}: {} nodes in {:.2} s = {:.1} M nodes/s",
        run.nodes,
        run.secs,
        run.rate()
    );
}

/// Draughts perft by dame-rs through `tests/tools/dame_perft.py`; `Err` says why it could
/// not run.
fn dame(depth: u32) -> Result<Run, String> {
    let python = match std::env::var("VENV") {
        Ok(venv) => format!("{venv}/bin/python"),
        Err(_) => "python3".to_string(),
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools/dame_perft.py");
    let out = Command::new(&python)
        .args([script, &depth.to_string()])
        .output()
        .map_err(|e| format!("{python}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .ok_or_else(|| String::from_utf8_lossy(&out.stderr).trim().to_string())?;
    let mut fields = result.split_whitespace();
    let nodes = fields.next().and_then(|n| n.parse().ok());
    let secs = fields.next().and_then(|s| s.parse().ok());
    match (nodes, secs) {
        (Some(nodes), Some(secs)) => Ok(Run { nodes, secs }),
        _ => Err(format!("unreadable dame_perft.py output: {result}")),
    }
}

/// The best of `ROUNDS` runs of each engine, alternating; why the other engine could not
/// run, if it could not.
fn best_of(
    mut ours: impl FnMut() -> Run,
    mut theirs: impl FnMut() -> Result<Run, String>,
) -> (Run, Result<Run, String>) {
    let faster = |a: Run, b: Run| if b.secs < a.secs { b } else { a };
    let mut best_ours = ours();
    let mut best_theirs = theirs();
    for _ in 1..ROUNDS {
        best_ours = faster(best_ours, ours());
        if let Ok(best) = best_theirs {
            best_theirs = theirs().map(|run| faster(best, run));
        }
    }
    (best_ours, best_theirs)
}

fn row(engine: &str, position: &str, depth: u32, run: Run) {
    println!(
        "| {engine} | {position} | {depth} | {} | {:.3} s | {:.1} M nodes/s |",
        run.nodes,
        run.secs,
        run.rate()
    );
}

/// What our rate must reach beside the other engine's (issue 17 item 5).
#[derive(Clone, Copy)]
enum Target {
    /// At least this ratio.
    AtLeast(f64),
    /// Strictly faster: a ratio above 1.
    Ahead,
}

impl Target {
    fn met(self, ratio: f64) -> bool {
        match self {
            Target::AtLeast(least) => ratio >= least,
            Target::Ahead => ratio > 1.0,
        }
    }

    fn wording(self) -> String {
        match self {
            Target::AtLeast(least) => format!("target {least}x"),
            Target::Ahead => "must stay ahead (> 1x)".to_string(),
        }
    }
}

fn pair(
    (ours_name, theirs_name): (&str, &str),
    position: &str,
    depth: u32,
    (ours, theirs): (Run, Result<Run, String>),
    target: Target,
) {
    row(ours_name, position, depth, ours);
    let theirs = match theirs {
        Ok(run) => run,
        Err(why) => {
            println!("| {theirs_name} | {position} | {depth} | not run | | |");
            println!("({theirs_name} did not run: {why})");
            return;
        }
    };
    row(theirs_name, position, depth, theirs);
    let ratio = ours.rate() / theirs.rate();
    let same = if ours.nodes == theirs.nodes {
        "same count"
    } else {
        "COUNTS DIFFER"
    };
    let verdict = if target.met(ratio) { "met" } else { "NOT met" };
    let target = target.wording();
    println!("ratio {ours_name} / {theirs_name}: {ratio:.2}x ({same}; {target}: {verdict})");
}

fn side_by_side() {
    println!("Side by side, same run (best of {ROUNDS} each, alternating):");
    println!("| engine | position | depth | nodes | time | rate |");
    println!("|---|---|---|---|---|---|");
    let chess = best_of(
        || referee(Variant::ChessGjq, Some(CHESS_START), 6),
        || Ok(shakmaty(CHESS_START, 6)),
    );
    pair(
        ("referee chess_gjq", "shakmaty 0.30.1"),
        "ordinary start",
        6,
        chess,
        Target::AtLeast(0.5),
    );
    let draughts = best_of(|| referee(Variant::Draughts, None, 9), || dame(9));
    pair(
        ("referee draughts", "dame-rs 0.2.0"),
        "start",
        9,
        draughts,
        Target::AtLeast(1.5),
    );
    xiangqi_side_by_side();
}

/// Xiangqi perft 5 beside Fairy-Stockfish, one engine process for all rounds.
fn xiangqi_side_by_side() {
    let mut engine = FairyStockfish::from_env("xiangqi");
    let theirs_name = match &engine {
        Ok(engine) => format!("Fairy-Stockfish ({})", engine.name),
        Err(_) => "Fairy-Stockfish".to_string(),
    };
    let xiangqi = best_of(
        || referee(Variant::Xiangqi, None, 5),
        || match &mut engine {
            Ok(engine) => engine.perft(5),
            Err(why) => Err(why.clone()),
        },
    );
    pair(
        ("referee xiangqi", &theirs_name),
        "start",
        5,
        xiangqi,
        Target::Ahead,
    );
}

const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [mode] if mode == "side-by-side" => {
            side_by_side();
            return;
        }
        [variant, depth, rest @ ..] => {
            let variant = Variant::parse_named(variant).unwrap_or_else(|e| panic!("{e}"));
            measure(
                variant,
                rest.first().map(String::as_str),
                depth.parse().expect("depth"),
            );
            return;
        }
        _ => {}
    }
    measure(Variant::Xiangqi, None, 5);
    measure(Variant::ChessGjq, None, 5);
    measure(Variant::ChessGjq, Some(CHESS_START), 5);
    shakmaty_side_by_side(CHESS_START, 5);
    measure(Variant::ChessGjq, Some(KIWIPETE), 4);
    shakmaty_side_by_side(KIWIPETE, 4);
    measure(Variant::Draughts, None, 8);
    println!();
    side_by_side();
}
