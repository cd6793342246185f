//! Durable append throughput and ack latency over gRPC: `cargo bench --bench append
//! [-- SECONDS]`. An in-process server over a sled store in a temporary directory; N board
//! streams (1 and 64), each sending one event per message and waiting for its ack before the
//! next, as a board does. Every ack means the event was fdatasync'ed.

use std::time::{Duration, Instant};

use referee::log::SledLog;
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use referee::service::{Service, serve_on};
use tokio_stream::StreamExt;

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

/// One board: streams events to its game until `until`, returning each ack's latency.
async fn board(addr: String, game: String, until: Instant) -> Vec<Duration> {
    let mut client = RefereeClient::connect(addr).await.expect("connect");
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

async fn run(streams: usize, seconds: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = SledLog::open(dir.path()).expect("open");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_on(listener, Service::new(log.clone()), async {
        let _ = stopped.await;
    }));
    let until = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let tasks: Vec<_> = (0..streams)
        .map(|i| tokio::spawn(board(addr.clone(), format!("b{i}"), until)))
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("board"));
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    let stats = log.stats();
    println!(
        "{streams:>2} streams: {} durable events in {secs:.2} s = {:.0} events/s; ack p50 {:.2} ms, p99 {:.2} ms; {} fdatasyncs ({:.1} events per sync)",
        all.len(),
        all.len() as f64 / secs,
        percentile(&all, 500),
        percentile(&all, 990),
        stats.syncs,
        all.len() as f64 / stats.syncs.max(1) as f64,
    );
    let _ = stop.send(());
    let _ = server.await;
}

fn main() {
    let seconds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    for streams in [1, 64] {
        runtime.block_on(run(streams, seconds));
    }
}
