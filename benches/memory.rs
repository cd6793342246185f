//! Memory of live games and of a long-running server: `cargo bench --bench memory [-- GAMES
//! [EVENTS]]`.
//!
//! `referee serve` runs as a child process (as an operator runs it, its resident memory read
//! from /proc/PID/status) over a store in a temporary directory, and 64 boards play real
//! xiangqi games through gRPC: the first 40 moves of the 451 CCPD master games of 40 plies or
//! more (tests/data/xiangqi/ccpd/manifest.json; Yu-Han Tseng (2026), Chinese Chess Practical
//! Dataset, CC BY 4.0), each used as often as needed under new game ids.
//!
//! 1. RSS per live game, by difference: GAMES games (default 2,000) played one move per append
//!    on a server keeping them all live (`--live-games GAMES+16`), then the same on a fresh
//!    server keeping 16; the difference in RSS over the difference in live games. Both hold
//!    the same stored games, so what the log keeps per stored game cancels out.
//! 2. RSS after EVENTS appended events (default 1,000,000: 25,000 games of 40 moves, 8 moves
//!    per append) on a server with the default cache, and after that server is restarted on
//!    its store (what it keeps per stored game with nothing played since).
//!
//! It prints each figure beside its target (issue 17: at most 8 KB per live 40-move game,
//! under 150 MB after a million events) and the rulings the acks carried.

#[path = "../tests/common/process.rs"]
#[allow(dead_code)] // the tests' helper; the bench uses only its start and RSS
mod process;

use std::path::Path;
use std::time::Instant;

use referee::service::proto::{self, referee_client::RefereeClient};
use tonic::transport::Channel;

use process::ServeProcess;

/// Moves per game.
const PLIES: usize = 40;
/// Boards playing at once, each on its own stream of the one connection.
const BOARDS: usize = 64;
/// Live games on the server that keeps few.
const FEW: usize = 16;
/// Targets of issue 17 item 3.
const PER_LIVE_GAME_TARGET_BYTES: f64 = 8_000.0;
const MILLION_TARGET_BYTES: f64 = 150e6;

/// The first [`PLIES`] moves of each CCPD game that has as many, as the events a board sends.
fn openings() -> Vec<Vec<proto::Event>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xiangqi/ccpd/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("manifest json");
    let games = manifest.as_array().expect("a list of games");
    games
        .iter()
        .map(|g| g["moves_iccs"].as_str().expect("moves_iccs"))
        .map(|moves| moves.split_whitespace().take(PLIES).collect::<Vec<_>>())
        .filter(|moves| moves.len() == PLIES)
        .map(|moves| {
            moves
                .iter()
                .enumerate()
                .map(|(i, m)| movement(i, m))
                .collect()
        })
        .collect()
}

fn movement(ply: usize, iccs: &str) -> proto::Event {
    proto::Event {
        side: if ply.is_multiple_of(2) {
            "red"
        } else {
            "black"
        }
        .into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::Move(proto::Move {
            from: iccs[0..2].into(),
            to: iccs[2..4].into(),
            ..Default::default()
        })),
    }
}

/// Plays games `prefix-0..prefix-{count}` on the server at `channel`, `per_append` moves per
/// append, [`BOARDS`] games at a time; returns the rulings the acks carried.
async fn play(
    channel: &Channel,
    openings: &[Vec<proto::Event>],
    prefix: &str,
    count: usize,
    per_append: usize,
) -> usize {
    let boards: Vec<_> = (0..BOARDS)
        .map(|board| {
            let mut client = RefereeClient::new(channel.clone());
            let games: Vec<(String, Vec<proto::Event>)> = (board..count)
                .step_by(BOARDS)
                .map(|g| {
                    (
                        format!("{prefix}-{g}"),
                        openings[g % openings.len()].clone(),
                    )
                })
                .collect();
            tokio::spawn(async move {
                let mut rulings = 0;
                for (game, moves) in games {
                    rulings += play_game(&mut client, &game, moves, per_append).await;
                }
                rulings
            })
        })
        .collect();
    let mut rulings = 0;
    for board in boards {
        rulings += board.await.expect("board task");
    }
    rulings
}

async fn play_game(
    client: &mut RefereeClient<Channel>,
    game: &str,
    moves: Vec<proto::Event>,
    per_append: usize,
) -> usize {
    let header = proto::GameHeader {
        variant: "xiangqi".into(),
        id: game.into(),
        ..Default::default()
    };
    let header = Some(header);
    client
        .create_game(proto::CreateGameRequest { header })
        .await
        .expect("create");
    let mut rulings = 0;
    let mut seq = 1;
    for chunk in moves.chunks(per_append) {
        let events = chunk
            .iter()
            .zip(seq..)
            .map(|(event, s)| proto::NewEvent {
                event_id: format!("e{s}"),
                event: Some(event.clone()),
            })
            .collect();
        let request = proto::AppendEventsRequest {
            game: game.into(),
            expected_seq: seq,
            events,
        };
        let ack = client.append_events(request).await.expect("append");
        rulings += ack.into_inner().rulings.len();
        seq += u64::try_from(chunk.len()).expect("small");
    }
    rulings
}

/// A server keeping `live_games` referees, its RSS once `games` games have been played one
/// move per append, and the rulings given.
async fn played(openings: &[Vec<proto::Event>], live_games: usize, games: usize) -> (u64, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--live-games", &live_games.to_string()]);
    let channel = connect(&server).await;
    let rulings = play(&channel, openings, "live", games, 1).await;
    (server.rss_kib() * 1024, rulings)
}

async fn connect(server: &ServeProcess) -> Channel {
    Channel::from_shared(server.url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect")
}

fn verdict(met: bool) -> &'static str {
    if met { "MET" } else { "NOT MET" }
}

async fn per_live_game(openings: &[Vec<proto::Event>], games: usize) {
    let start = Instant::now();
    let (many, rulings_many) = played(openings, games + FEW, games).await;
    let (few, rulings_few) = played(openings, FEW, games).await;
    let per_game = (many as f64 - few as f64) / (games - FEW) as f64;
    println!(
        "{games} games of {PLIES} moves, one move per append: RSS {:.1} MB with all live, \
         {:.1} MB with {FEW} live ({:.1} s; rulings {rulings_many} and {rulings_few})",
        many as f64 / 1e6,
        few as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    println!(
        "RSS per live game of {PLIES} moves: {per_game:.0} B ({:.2} KiB); target <= {:.0} B: {}",
        per_game / 1024.0,
        PER_LIVE_GAME_TARGET_BYTES,
        verdict(per_game <= PER_LIVE_GAME_TARGET_BYTES)
    );
}

async fn million(openings: &[Vec<proto::Event>], events: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &[]);
    let channel = connect(&server).await;
    let started = server.rss_kib() * 1024;
    let start = Instant::now();
    let games = events.div_ceil(PLIES);
    let rulings = play(&channel, openings, "million", games, 8).await;
    let took = start.elapsed().as_secs_f64();
    let (rss, peak) = (server.rss_kib() * 1024, server.peak_rss_kib() * 1024);
    println!(
        "{} events ({games} games of {PLIES} moves, 8 per append, default cache) in {took:.1} s \
         = {:.0} events/s; rulings {rulings}",
        games * PLIES,
        (games * PLIES) as f64 / took
    );
    println!(
        "RSS at start {:.1} MB, after the events {:.1} MB (peak {:.1} MB); target < {:.0} MB: {}",
        started as f64 / 1e6,
        rss as f64 / 1e6,
        peak as f64 / 1e6,
        MILLION_TARGET_BYTES / 1e6,
        verdict((rss as f64) < MILLION_TARGET_BYTES)
    );
    println!(
        "RSS growth per stored game: {:.0} B",
        (rss - started) as f64 / games as f64
    );
    reopened(server, dir.path(), games);
}

/// What a server keeps of a store's games when none has been played since it started: the
/// stopped server's store opened again.
fn reopened(mut server: ServeProcess, dir: &Path, games: usize) {
    server.signal("TERM");
    let stopped = server.wait_for_exit(std::time::Duration::from_secs(60));
    assert!(stopped.is_some(), "the server did not stop within 60 s");
    let start = Instant::now();
    let again = ServeProcess::start(dir, &[]);
    let rss = again.rss_kib() * 1024;
    println!(
        "RSS after restarting on that store: {:.1} MB ({:.0} B per stored game; opened in {:.1} s)",
        rss as f64 / 1e6,
        rss as f64 / games as f64,
        start.elapsed().as_secs_f64()
    );
}

fn main() {
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let games = numbers.first().copied().unwrap_or(2_000).max(FEW * 2);
    let events = numbers.get(1).copied().unwrap_or(1_000_000);
    let openings = openings();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(per_live_game(&openings, games));
    runtime.block_on(million(&openings, events));
}
