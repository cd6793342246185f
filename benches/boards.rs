//! Electronic boards: `cargo bench --bench boards`. Each game's recorded moves are turned
//! into the reports a sensor board sends (the mover's piece lifted, then put down, then the
//! clock press that commits the move), and the pure fold derives the moves back from the
//! reports alone. Printed per game: the cost per board report and per derived move (best and
//! median of five runs), beside the same games replayed from `move` events. Games: the 500
//! CCPD xiangqi master games, the 171 FMJD draughts games, 300 seeded random chess_gjq games,
//! 300 seeded random renju games. `long` streams one repetitive xiangqi game at 4,000 and
//! 16,000 plies: the cost per report must not grow with the game. `-- NAME` runs one.

use std::time::Instant;

use referee::event::{Event, EventKind, Header, Side};
use referee::games::Variant;
use referee::games::sensor;
use referee::referee::{Referee, RulingKind, replay};

#[path = "common/games.rs"]
mod games;

use games::{Lcg, chess_gjq_games, draughts_games, events};

const RUNS: usize = 5;

/// The board part of the referee's position, as a board reports it.
fn placement(referee: &Referee) -> String {
    let fen = referee.fen();
    match referee.header().variant {
        Variant::Draughts => fen.split_once(':').map_or("", |(_, l)| l).to_string(),
        _ => fen.split_whitespace().next().unwrap_or("").to_string(),
    }
}

fn report(placement: String, ts: u64) -> Event {
    Event {
        side: Side::Board,
        ts_ms: Some(ts),
        kind: EventKind::Board {
            placement,
            device: Some("bench".into()),
        },
    }
}

/// The board's stream for a game's moves (its `move`, stone and `reveal` events): the start
/// placement, then per ply the mover's piece lifted (a placement with its square empty), the
/// placement after the ply, and the mover's clock press. Returns the stream and the plies.
fn stream(header: &Header, moves: &[Event]) -> (Vec<Event>, usize) {
    let mut referee = Referee::new(header).expect("referee");
    let mut out = vec![report(placement(&referee), 0)];
    let mut ts = 0;
    let mut plies = 0;
    let mut seq = 0;
    let mut i = 0;
    while i < moves.len() {
        // A ply: the move and the reveal that completes it.
        let mut ply = vec![&moves[i]];
        if moves
            .get(i + 1)
            .is_some_and(|e| matches!(e.kind, EventKind::Reveal { .. }))
        {
            ply.push(&moves[i + 1]);
        }
        i += ply.len();
        let before = placement(&referee);
        let mut ended = false;
        for e in &ply {
            seq += 1;
            ended |= referee
                .apply(seq, e)
                .iter()
                .any(|r| r.result.is_some() || r.kind == RulingKind::IllegalMove);
        }
        if ended {
            break;
        }
        let after = placement(&referee);
        if let EventKind::Move { .. } = &ply[0].kind {
            ts += 400;
            out.push(report(lifted(header.variant, &before, &after), ts));
        }
        ts += 400;
        out.push(report(after, ts));
        ts += 300;
        out.push(Event {
            side: ply[0].side,
            ts_ms: Some(ts),
            kind: EventKind::Clock {
                first_ms: None,
                second_ms: None,
            },
        });
        plies += 1;
    }
    (out, plies)
}

/// The mover's piece in the hand: `before` with every square that the ply changes and
/// `before` filled emptied (the piece that leaves, and one it takes).
fn lifted(variant: Variant, before: &str, after: &str) -> String {
    let (Ok(b), Ok(a)) = (sensor::read(variant, before), sensor::read(variant, after)) else {
        return before.to_string();
    };
    let mut hand = b.clone();
    for (i, (x, y)) in b.cells().iter().zip(a.cells()).enumerate() {
        if x.is_some() && x != y {
            hand.set(i, None);
        }
    }
    sensor::write(variant, &hand)
}

/// Replays `streams` RUNS times: the best and median seconds, and the rulings of one run.
fn time(header_streams: &[(Header, Vec<Event>)]) -> (f64, f64, usize) {
    let mut times = Vec::new();
    let mut derived = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        derived = 0;
        for (header, events) in header_streams {
            let referee = replay(header, events).expect("replay");
            derived += referee
                .rulings()
                .iter()
                .filter(|r| r.kind == RulingKind::BoardMove)
                .count();
        }
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[0], times[RUNS / 2], derived)
}

fn measure(name: &str, games: Vec<(Header, Vec<Event>)>) {
    let mut streams = Vec::new();
    let mut moves_only = Vec::new();
    let mut plies = 0;
    for (header, events) in &games {
        let moves: Vec<Event> = events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Move { .. } | EventKind::Place { .. } | EventKind::Reveal { .. }
                )
            })
            .cloned()
            .collect();
        let (s, p) = stream(header, &moves);
        plies += p;
        streams.push((header.clone(), s));
        moves_only.push((header.clone(), moves));
    }
    let reports: usize = streams
        .iter()
        .map(|(_, s)| {
            s.iter()
                .filter(|e| matches!(e.kind, EventKind::Board { .. }))
                .count()
        })
        .sum();
    let events: usize = streams.iter().map(|(_, s)| s.len()).sum();
    let (best, median, derived) = time(&streams);
    let (plain, _, _) = time(&moves_only);
    println!(
        "{name} boards: {} games, {events} events ({reports} board reports, {plies} plies), \
         {derived} moves derived; best of {RUNS}: {best:.3} s (median {median:.3} s) = {:.2} \
         us per event, {:.2} us per board report, {:.2} us per derived move; the same moves \
         as move events: {plain:.3} s = {:.2} us per move",
        games.len(),
        best * 1e6 / events as f64,
        best * 1e6 / reports as f64,
        best * 1e6 / derived.max(1) as f64,
        plain * 1e6 / plies.max(1) as f64,
    );
}

fn xiangqi_games() -> Vec<(Header, Vec<Event>)> {
    games::games()
        .into_iter()
        .map(|e| (Header::new(Variant::Xiangqi, "bench"), e))
        .collect()
}

fn gjq_games() -> Vec<(Header, Vec<Event>)> {
    chess_gjq_games(300, 120)
        .into_iter()
        .map(|e| (Header::new(Variant::ChessGjq, "bench"), e))
        .collect()
}

/// Seeded random renju games: black on h8, then stones on random empty points, up to 80.
fn renju_games() -> Vec<(Header, Vec<Event>)> {
    use referee::games::Game;
    use referee::games::renju::Board;
    let mut rng = Lcg(0x0BAD_5EED);
    (0..300)
        .map(|_| {
            let mut board = Board::startpos();
            let mut events = Vec::new();
            for n in 0..80 {
                let points = board.legal_moves();
                if points.is_empty() || board.outcome().is_some() {
                    break;
                }
                // Black opens on the centre (seed 002's rules).
                let centre = referee::games::renju::Point::parse("h8").expect("h8");
                let p = if n == 0 {
                    centre
                } else {
                    points[rng.below(points.len())]
                };
                board.play_move(&p);
                let side = if n % 2 == 0 {
                    Side::First
                } else {
                    Side::Second
                };
                events.push(Event {
                    side,
                    ts_ms: None,
                    kind: EventKind::Place { to: p.into() },
                });
            }
            (Header::new(Variant::Renju, "bench"), events)
        })
        .collect()
}

/// The repetitive xiangqi game (horses out and back) as a board stream at 4,000 and 16,000
/// plies: the cost per report at the longer must not exceed 1.5x the shorter.
fn long_game() {
    let header = Header::new(Variant::Xiangqi, "bench");
    let mut per_report = Vec::new();
    for plies in [4_000usize, 16_000] {
        let moves = events(&"h0g2 h9g7 g2h0 g7h9 ".repeat(plies / 4));
        let (s, _) = stream(&header, &moves);
        let reports = s
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Board { .. }))
            .count();
        let (best, _, derived) = time(&[(header.clone(), s)]);
        let us = best * 1e6 / reports as f64;
        println!(
            "long xiangqi board stream: {plies} plies, {reports} reports, {derived} moves \
             derived, best of {RUNS}: {best:.3} s = {us:.2} us per report"
        );
        per_report.push(us);
    }
    let growth = per_report[1] / per_report[0];
    let verdict = if growth < 1.5 { "MET" } else { "NOT MET" };
    println!(
        "long xiangqi board stream: cost per report at 16,000 plies is {growth:.2}x that at \
         4,000; target: not growing with the game (< 1.5x): {verdict}"
    );
}

/// Boards in the hall run, and how often each sends an event (a report or a press).
const HALL_BOARDS: usize = 150;
const HALL_INTERVAL_MS: u64 = 1000;
const HALL_SECONDS: u64 = 30;

/// 150 boards streaming CCPD games' board reports into one in-process server (sled store in
/// a temporary directory, each board its own connection and `Play` stream, waiting for each
/// ack) at one event a second each: a move every three seconds per board, ten times a real
/// hall's pace. Prints the events acknowledged, ack latency and the CPU time of the process
/// (server and the in-process boards together: an upper bound for the server) per board.
fn hall() {
    use referee::log::SledLog;
    use referee::service::proto::{self, referee_client::RefereeClient};
    use referee::service::{Service, serve_on};
    use tokio_stream::StreamExt;
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = SledLog::open(dir.path()).expect("open");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = format!("http://{}", listener.local_addr().expect("addr"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve_on(listener, Service::new(log), async {
            let _ = stopped.await;
        }));
        let header = Header::new(Variant::Xiangqi, "hall");
        let streams: Vec<Vec<Event>> = games::games()
            .into_iter()
            .take(HALL_BOARDS)
            .map(|moves| stream(&header, &moves).0)
            .collect();
        let start_cpu = cpu_ticks();
        let start = Instant::now();
        let until = start + std::time::Duration::from_secs(HALL_SECONDS);
        let mut boards = Vec::new();
        for (i, events) in streams.into_iter().enumerate() {
            let addr = addr.clone();
            boards.push(tokio::spawn(async move {
                let mut client = RefereeClient::connect(addr).await.expect("connect");
                let game = format!("hall-{i}");
                let header = proto::GameHeader {
                    variant: "xiangqi".into(),
                    id: game.clone(),
                    ..Default::default()
                };
                client
                    .create_game(proto::CreateGameRequest {
                        header: Some(header),
                    })
                    .await
                    .expect("create");
                let (tx, rx) = tokio::sync::mpsc::channel(1);
                let mut acks = client
                    .play(tokio_stream::wrappers::ReceiverStream::new(rx))
                    .await
                    .expect("play")
                    .into_inner();
                let mut latencies = Vec::new();
                // Boards start spread over the first interval.
                let offset = HALL_INTERVAL_MS * i as u64 / HALL_BOARDS as u64;
                tokio::time::sleep(std::time::Duration::from_millis(offset)).await;
                let mut tick =
                    tokio::time::interval(std::time::Duration::from_millis(HALL_INTERVAL_MS));
                for (seq, event) in (1u64..).zip(&events) {
                    tick.tick().await;
                    if Instant::now() >= until {
                        break;
                    }
                    let sent = Instant::now();
                    let message = proto::PlayRequest {
                        game: game.clone(),
                        expected_seq: seq,
                        events: vec![proto::NewEvent {
                            event_id: format!("e{seq}"),
                            event: Some(referee::service::event_to_proto(event, Variant::Xiangqi)),
                        }],
                    };
                    tx.send(message).await.expect("send");
                    let reply = acks.next().await.expect("reply").expect("ok");
                    assert!(
                        matches!(reply.outcome, Some(proto::play_response::Outcome::Ack(_))),
                        "{reply:?}"
                    );
                    latencies.push(sent.elapsed());
                }
                latencies
            }));
        }
        let mut latencies = Vec::new();
        for b in boards {
            latencies.extend(b.await.expect("board"));
        }
        let wall = start.elapsed().as_secs_f64();
        let cpu = (cpu_ticks() - start_cpu) as f64 / 100.0;
        let _ = stop.send(());
        let _ = server.await;
        latencies.sort();
        let pick =
            |percent: usize| latencies[(latencies.len() - 1) * percent / 100].as_secs_f64() * 1e3;
        println!(
            "hall: {HALL_BOARDS} boards, one event each every {HALL_INTERVAL_MS} ms for \
             {HALL_SECONDS} s: {} events acknowledged ({:.0}/s), ack p50 {:.2} ms p99 {:.2} ms; \
             process CPU {cpu:.2} s over {wall:.1} s = {:.2}% of one core, {:.3}% of a core per \
             board (server and the in-process boards together)",
            latencies.len(),
            latencies.len() as f64 / wall,
            pick(50),
            pick(99),
            cpu / wall * 100.0,
            cpu / wall * 100.0 / HALL_BOARDS as f64,
        );
    });
}

/// User + system CPU ticks (10 ms) of this process so far, from `/proc/self/stat`.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("stat");
    let rest = &stat[stat.rfind(')').expect("comm") + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

fn main() {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |n: &str| named.is_empty() || named.iter().any(|a| a == n);
    if wants("xiangqi") {
        measure("xiangqi", xiangqi_games());
    }
    if wants("draughts") {
        measure("draughts", draughts_games());
    }
    if wants("chess_gjq") {
        measure("chess_gjq", gjq_games());
    }
    if wants("renju") {
        measure("renju", renju_games());
    }
    if wants("long") {
        long_game();
    }
    if wants("hall") {
        hall();
    }
}
