//! Durable append throughput and ack latency over gRPC: `cargo bench --bench append
//! [-- SECONDS [ROUNDS]]`. An in-process server over a sled store in a temporary directory; N board
//! streams (1 and 64), each sending one event per message and waiting for its ack before the
//! next, as a board does. Every ack means the event was fdatasync'ed.
//!
//! Each configuration runs twice: with access control off, and with tokens (each board its own
//! board token, sent on every message; the games created by an arbiter token) and the per-token
//! limits counted but set too high to throttle — the cost of auth on the append path. Audit
//! signing is not on the append path (bundles are signed at export); the last line times the
//! export and Ed25519 signature of the longest game.

use std::time::{Duration, Instant};

use referee::access::{Grant, Role, SideScope, TokenStore};
use referee::log::SledLog;
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use referee::service::{Limits, Service, serve_on};
use tokio_stream::StreamExt;
use tonic::Request;

fn press(seq: u64) -> proto::NewEvent {
    let side = if seq % 2 == 1 { "red" } else { "black" };
    let event = proto::Event {
        side: side.into(),
        ts_ms: Some(seq * 1000),
        kind: Some(Kind::Clock(proto::ClockPress {
            first_ms: Some(seq),
            second_ms: Some(seq),
        })),
    };
    proto::NewEvent {
        event_id: format!("e{seq}"),
        event: Some(event),
    }
}

/// `message` with `authorization: Bearer <token>` when a token is given.
fn authorized<T>(token: Option<&str>, message: T) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(token) = token {
        let value = format!("Bearer {token}").parse().expect("ascii");
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// The secrets of one board: the arbiter's (to create the game) and the board's own.
#[derive(Clone, Default)]
struct Secrets {
    arbiter: Option<String>,
    board: Option<String>,
}

fn grant(id: String, role: Role, game: Option<String>, tournament: Option<String>) -> Grant {
    Grant {
        id,
        hash: String::new(),
        role,
        side: game.as_ref().map(|_| SideScope::Both),
        game,
        tournament,
        issued_ms: 0,
        expires_ms: None,
        revoked_ms: None,
    }
}

/// Issues an arbiter token for every game and a board token per game.
fn issue_tokens(store: &TokenStore, streams: usize) -> Vec<Secrets> {
    let arbiter = store
        .issue(grant("arb".into(), Role::Arbiter, None, Some("b".into())))
        .expect("issue")
        .secret;
    (0..streams)
        .map(|i| Secrets {
            arbiter: Some(arbiter.clone()),
            board: Some(
                store
                    .issue(grant(
                        format!("board{i}"),
                        Role::Board,
                        Some(format!("b{i}")),
                        None,
                    ))
                    .expect("issue")
                    .secret,
            ),
        })
        .collect()
}

/// One board: streams events to its game until `until`, returning each ack's latency.
async fn board(addr: String, game: String, until: Instant, secrets: Secrets) -> Vec<Duration> {
    let mut client = RefereeClient::connect(addr).await.expect("connect");
    let header = proto::GameHeader {
        variant: "xiangqi".into(),
        id: game.clone(),
        ..Default::default()
    };
    let create = proto::CreateGameRequest {
        header: Some(header),
    };
    client
        .create_game(authorized(secrets.arbiter.as_deref(), create))
        .await
        .expect("create");
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut acks = client
        .play(authorized(secrets.board.as_deref(), stream))
        .await
        .expect("play")
        .into_inner();
    let mut latencies = Vec::new();
    let mut seq = 1;
    while Instant::now() < until {
        let sent = Instant::now();
        let message = proto::PlayRequest {
            game: game.clone(),
            expected_seq: seq,
            events: vec![press(seq)],
        };
        tx.send(message).await.expect("send");
        let reply = acks.next().await.expect("reply").expect("ok");
        assert!(
            matches!(reply.outcome, Some(proto::play_response::Outcome::Ack(_))),
            "{reply:?}"
        );
        latencies.push(sent.elapsed());
        seq += 1;
    }
    latencies
}

/// The `per_mille`-th latency in milliseconds (nearest rank).
fn percentile(sorted: &[Duration], per_mille: usize) -> f64 {
    let i = (sorted.len() - 1) * per_mille / 1000;
    sorted[i].as_secs_f64() * 1e3
}

async fn run(streams: usize, seconds: u64, tokens: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = SledLog::open(dir.path()).expect("open");
    let (service, secrets) = if tokens {
        let store = TokenStore::new(dir.path());
        let secrets = issue_tokens(&store, streams);
        let limits = Limits {
            max_streams_per_token: 64,
            rate_per_token: 1e9,
            burst_per_token: u32::MAX,
        };
        let service = Service::with_tokens(log.clone(), store).with_limits(limits);
        (service, secrets)
    } else {
        (Service::new(log.clone()), vec![Secrets::default(); streams])
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_on(listener, service, async {
        let _ = stopped.await;
    }));
    let until = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let tasks: Vec<_> = secrets
        .into_iter()
        .enumerate()
        .map(|(i, s)| tokio::spawn(board(addr.clone(), format!("b{i}"), until, s)))
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("board"));
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    let stats = log.stats();
    let auth = if tokens { "tokens" } else { "no auth" };
    println!(
        "{streams:>2} streams, {auth:>7}: {} durable events in {secs:.2} s = {:.0} events/s; ack p50 {:.2} ms, p99 {:.2} ms; {} fdatasyncs ({:.1} events per sync)",
        all.len(),
        all.len() as f64 / secs,
        percentile(&all, 500),
        percentile(&all, 990),
        stats.syncs,
        all.len() as f64 / stats.syncs.max(1) as f64,
    );
    let _ = stop.send(());
    let _ = server.await;
    if streams == 1 {
        time_export(&log, dir.path());
    }
}

/// Export and sign the bundle of the one game: the cost of audit signing, off the append path.
fn time_export(log: &SledLog, data: &std::path::Path) {
    let key = referee::audit::load_or_create_key(data).expect("key");
    let start = Instant::now();
    let bundle = referee::audit::export(log, "b0", &key, 0).expect("export");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "   export + Ed25519 signature of game b0 ({} lines, {} bytes): {:.1} ms",
        bundle.lines().count(),
        bundle.len(),
        secs * 1e3
    );
}

fn main() {
    let seconds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let rounds: usize = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .nth(1)
        .unwrap_or(1);
    // Alternate which goes first in each round: on a shared machine the order matters.
    for streams in [1, 64] {
        for round in 0..rounds {
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for tokens in order {
                runtime.block_on(run(streams, seconds, tokens));
            }
        }
    }
}
