//! Issue 18 item 4a: two `referee serve --store postgres://...` processes on one database, 32
//! boards spread over both, and one instance killed with kill -9 under load. The boards of the
//! dead instance reconnect to the other and resend their unacknowledged event by id. Every
//! acknowledged event must then be stored exactly once, in order, each game's rulings as the
//! surviving instance gives them must equal a replay of its log, and a replay must give the
//! rulings its fixture was written with.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use referee::event::event_to_json;
use referee::log::{Log, PgLog};
use referee::service::proto::referee_client::RefereeClient;
use referee::service::{header_to_proto, proto};
use referee::stored::load_log;
use serde_json::Value;
use tonic::transport::Channel;

use crate::common::postgres::Cluster;
use crate::common::process::ServeProcess;
use crate::fixtures::{Fixture, fixtures, proto_event, proto_value, pure};

/// Boards in the hall, each playing one of the longest fixtures as its game.
const BOARDS: usize = 32;
/// The instance is killed once this share of all events has been acknowledged.
const KILL_AT: f64 = 0.3;
/// Pause between two events of a board: a hall, not a flood, so the kill lands mid-game.
const PACE: Duration = Duration::from_millis(5);
/// Wait before resending after a failed append or connection.
const RESEND_AFTER: Duration = Duration::from_millis(50);
/// An append or connection that has not answered by then counts as failed.
const CALL_LIMIT: Duration = Duration::from_secs(5);

/// What a board saw.
#[derive(Default)]
struct Board {
    acked: usize,
    resends: u32,
    /// Resent events the dead instance had stored before dying: acknowledged as duplicates.
    duplicates: u32,
    /// Whether it moved to the other instance after the kill.
    moved: bool,
}

#[test]
fn kill_9_of_one_instance_loses_no_acknowledged_event() {
    let test = "instance_failover::kill_9_of_one_instance_loses_no_acknowledged_event";
    let Some(cluster) = Cluster::start(test) else {
        return;
    };
    let url = cluster.url();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut servers: Vec<ServeProcess> = dirs
        .iter()
        .map(|dir| ServeProcess::start(dir.path(), &["--store", &url]))
        .collect();
    let addrs: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
    let games = longest(fixtures(), BOARDS);
    let total: usize = games.iter().map(|f| f.log.events.len()).sum();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let acked = Arc::new(AtomicUsize::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let games = Arc::new(games);
    let boards: Vec<_> = (0..games.len())
        .map(|i| {
            let (games, addrs) = (Arc::clone(&games), addrs.clone());
            let (acked, killed) = (Arc::clone(&acked), Arc::clone(&killed));
            rt.spawn(async move { play(&games[i], i, &addrs, &acked, &killed).await })
        })
        .collect();
    let start = Instant::now();
    while (acked.load(Ordering::SeqCst) as f64) < KILL_AT * total as f64 {
        assert!(start.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    servers[0].signal("KILL");
    let kill = Instant::now();
    killed.store(true, Ordering::SeqCst);
    let at_kill = acked.load(Ordering::SeqCst);
    let boards: Vec<Board> = rt.block_on(async {
        let mut all = Vec::new();
        for board in boards {
            all.push(board.await.expect("board"));
        }
        all
    });
    let finished = kill.elapsed();
    let survivor = &servers[1].url;
    rt.block_on(check(&url, survivor, &games));
    let resends: u32 = boards.iter().map(|b| b.resends).sum();
    let moved = boards.iter().filter(|b| b.moved).count();
    let duplicates: u32 = boards.iter().map(|b| b.duplicates).sum();
    let acknowledged: usize = boards.iter().map(|b| b.acked).sum();
    let summary = format!(
        "instance_failover: {BOARDS} boards on 2 instances, {total} events; instance A killed \
         (kill -9) after {at_kill} acks; {moved} boards moved to B and resent {resends} times by \
         event id ({duplicates} of them stored by A before it died, acknowledged by B as \
         duplicates); all {acknowledged} acknowledged events stored exactly once, in order; every \
         game's rulings on B equal a replay of its log and its fixture; the hall finished {:.1} s \
         after the kill",
        finished.as_secs_f64()
    );
    crate::common::report::say("instance_failover", &summary);
    assert_eq!(acknowledged, total);
    assert!(moved > 0, "no board was on the killed instance");
    drop(servers.remove(0));
}

/// The `n` fixtures with the most events.
fn longest(mut all: Vec<Fixture>, n: usize) -> Vec<Fixture> {
    all.sort_by_key(|f| std::cmp::Reverse(f.log.events.len()));
    all.truncate(n);
    all
}

/// Plays fixture `f` as board `i` on instance `i % 2`; after a failure it resends the same
/// event (same id, same expected seq) to the other instance, as a board's firmware would.
async fn play(
    f: &Fixture,
    i: usize,
    addrs: &[String],
    acked: &AtomicUsize,
    killed: &AtomicBool,
) -> Board {
    let mut board = Board::default();
    let mut at = i % addrs.len();
    let mut client = connect(&addrs[at]).await;
    let game = format!("board-{i:02}");
    let mut header = f.log.header.clone();
    header.id = game.clone();
    let created = client
        .create_game(proto::CreateGameRequest {
            header: Some(header_to_proto(&header)),
        })
        .await;
    created.unwrap_or_else(|e| panic!("{game}: create: {e}"));
    for (seq, event) in (1u64..).zip(&f.log.events) {
        let event = proto_event(&event_to_json(event, header.variant), header.variant);
        let request = proto::AppendEventsRequest {
            game: game.clone(),
            expected_seq: seq,
            events: vec![proto::NewEvent {
                event_id: format!("e{seq}"),
                event: Some(event),
            }],
        };
        loop {
            let sent = tokio::time::timeout(CALL_LIMIT, client.append_events(request.clone()));
            match sent.await {
                Ok(Ok(ack)) => {
                    let ack = ack.into_inner();
                    assert_eq!(ack.seqs, [seq], "{game}: e{seq}");
                    board.duplicates += u32::from(ack.duplicate);
                    break;
                }
                Ok(Err(status)) if !lost_connection(&status) => {
                    panic!("{game}: e{seq}: {status}")
                }
                Ok(Err(_)) | Err(_) => {
                    board.resends += 1;
                    if killed.load(Ordering::SeqCst) && at == 0 {
                        at = 1;
                        board.moved = true;
                    }
                    tokio::time::sleep(RESEND_AFTER).await;
                    client = connect(&addrs[at]).await;
                }
            }
        }
        board.acked += 1;
        acked.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(PACE).await;
    }
    board
}

/// The instance's server went away (or is going), as opposed to a refusal of the event.
fn lost_connection(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
    )
}

/// A client of `addr`; the connection itself is made lazily, so a dead server shows up as a
/// failed call, resent.
async fn connect(addr: &str) -> RefereeClient<Channel> {
    let channel = Channel::from_shared(addr.to_owned())
        .expect("address")
        .connect_timeout(CALL_LIMIT)
        .connect_lazy();
    RefereeClient::new(channel)
}

/// Each game as stored (read through a fresh instance) and as the surviving server rules it:
/// the fixture's events exactly once each in order, its rulings equal to a replay's and to
/// the fixture's.
async fn check(url: &str, survivor: &str, games: &[Fixture]) {
    let log = PgLog::open(url).await.expect("open the log");
    log.verify_all().await.expect("every chain verifies");
    let mut client = connect(survivor).await;
    for (i, f) in games.iter().enumerate() {
        let game = format!("board-{i:02}");
        let loaded = load_log(&log, &game, None).await.expect("load");
        let events: Vec<_> = loaded.events.iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(events, f.log.events, "{game} ({}): stored events", f.name);
        let ids: Vec<String> = log
            .read(&game, 1, None)
            .await
            .unwrap()
            .unwrap()
            .iter()
            .map(|r| r.event_id.clone())
            .collect();
        let expected: Vec<String> = (1..=events.len()).map(|n| format!("e{n}")).collect();
        assert_eq!(ids, expected, "{game}: event ids");
        let replayed = referee::referee::replay(&loaded.header, &events).expect("replay");
        let replayed: Vec<Value> = replayed
            .rulings()
            .iter()
            .map(|r| r.to_value(loaded.header.variant))
            .collect();
        let state = client
            .get_game(proto::GetGameRequest { game: game.clone() })
            .await
            .unwrap_or_else(|e| panic!("{game}: GetGame on the survivor: {e}"))
            .into_inner();
        let served: Vec<Value> = state.rulings.iter().map(proto_value).collect();
        assert_eq!(
            served, replayed,
            "{game} ({}): the survivor's rulings",
            f.name
        );
        assert_eq!(
            replayed,
            pure(f),
            "{game} ({}): rulings against the fixture",
            f.name
        );
    }
}
