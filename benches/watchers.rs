//! The cost per event of consoles watching a game: `cargo bench --bench watchers [-- EVENTS
//! [BATCH]]`.
//!
//! An in-process server over a sled store in a temporary directory; one xiangqi game; 0, 1 and
//! 16 `WatchGame` consoles (each on its own connection, reading everything from seq 0) while a
//! board appends EVENTS clock presses (default 20,000) in requests of BATCH events (default 100;
//! 1 measures the per-request path as a board uses it). Each run ends
//! when every console has been sent the last event. It prints the wall time and the process's
//! CPU time (user + system, from /proc/self/stat: the server and its in-process consoles,
//! gRPC decoding included) per event, and per event and watcher beyond the run without any.

use std::time::{Duration, Instant};

use referee::log::SledLog;
use referee::service::proto::watch_game_response::Item;
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use referee::service::{Service, serve_on};
use tokio_stream::StreamExt;

/// Events per append: enough that the fdatasync per request does not dominate.
const BATCH: u64 = 100;

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

/// CPU time this process has used (user + system), from /proc/self/stat (clock ticks of
/// 10 ms: runs are long enough for that to be fine).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    let ticks = |i: usize| fields[i].parse::<u64>().expect("ticks");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// A console reading the game from seq 0 until it has been sent event `last`.
async fn console(addr: String, last: u64) {
    let mut client = RefereeClient::connect(addr).await.expect("connect");
    let request = proto::WatchGameRequest {
        game: "w".into(),
        from_seq: 0,
    };
    let mut stream = client
        .watch_game(request)
        .await
        .expect("watch")
        .into_inner();
    while let Some(item) = stream.next().await {
        if let Some(Item::Event(e)) = item.expect("item").item
            && e.seq == last
        {
            return;
        }
    }
    panic!("the stream ended before event {last}");
}

async fn run(watchers: usize, events: u64, batch: u64) -> (Duration, Duration) {
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
    let mut board = RefereeClient::connect(addr.clone()).await.expect("connect");
    let header = proto::GameHeader {
        variant: "xiangqi".into(),
        id: "w".into(),
        ..Default::default()
    };
    board
        .create_game(proto::CreateGameRequest {
            header: Some(header),
        })
        .await
        .expect("create");
    let consoles: Vec<_> = (0..watchers)
        .map(|_| tokio::spawn(console(addr.clone(), events)))
        .collect();
    // Let the consoles subscribe before the clock starts.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (start, cpu) = (Instant::now(), cpu_time());
    for first in (1..=events).step_by(usize::try_from(batch).expect("small")) {
        let request = proto::AppendEventsRequest {
            game: "w".into(),
            expected_seq: first,
            events: (first..(first + batch).min(events + 1))
                .map(press)
                .collect(),
        };
        board.append_events(request).await.expect("append");
    }
    for c in consoles {
        c.await.expect("console");
    }
    let took = (start.elapsed(), cpu_time() - cpu);
    let _ = stop.send(());
    let _ = server.await;
    took
}

fn micros_per(d: Duration, n: f64) -> f64 {
    d.as_secs_f64() * 1e6 / n
}

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let events = numbers.first().copied().unwrap_or(20_000);
    let batch = numbers.get(1).copied().unwrap_or(BATCH).max(1);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut alone = None;
    for watchers in [0, 1, 16] {
        let (wall, cpu) = runtime.block_on(run(watchers, events, batch));
        let n = events as f64;
        let beyond = alone.map_or(String::new(), |base: Duration| {
            let extra = cpu.saturating_sub(base);
            format!(
                "; {:.2} us CPU per event and watcher beyond none",
                micros_per(extra, n * watchers as f64)
            )
        });
        println!(
            "{watchers:>2} watchers: {events} events in {:.2} s wall = {:.1} us/event; CPU {:.2} s = {:.1} us/event{beyond}",
            wall.as_secs_f64(),
            micros_per(wall, n),
            cpu.as_secs_f64(),
            micros_per(cpu, n),
        );
        alone.get_or_insert(cpu);
    }
}
