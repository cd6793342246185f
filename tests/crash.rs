//! kill -9 while boards append: after reopening, every acknowledged event is there exactly
//! once, every chain verifies, and every game replays.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use referee::log::{Log, SledLog};
use referee::referee::replay;
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use referee::stored::load_log;

/// Concurrent board streams, one game each (issue: 64 concurrent boards).
const GAMES: usize = 64;

fn clock_press(side: &str, ms: u64) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: Some(ms),
        kind: Some(Kind::Clock(proto::ClockPress {
            first_ms: Some(ms),
            second_ms: Some(ms),
        })),
    }
}

/// Appends to one game until the server dies; records what was acknowledged.
async fn board(addr: String, game: String, acked: Arc<Mutex<Vec<(String, u64, String)>>>) {
    let Ok(mut client) = RefereeClient::connect(addr).await else {
        return;
    };
    for seq in 1u64.. {
        let id = format!("{game}-{seq}");
        let side = if seq % 2 == 1 { "red" } else { "black" };
        let request = proto::AppendEventsRequest {
            game: game.clone(),
            expected_seq: seq,
            events: vec![proto::NewEvent {
                event_id: id.clone(),
                event: Some(clock_press(side, seq)),
            }],
        };
        match client.append_events(request).await {
            Ok(ack) => {
                assert_eq!(ack.into_inner().seqs, vec![seq]);
                acked.lock().expect("lock").push((game.clone(), seq, id));
            }
            Err(_) => return,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_events_survive_kill_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start referee serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    let addr = format!(
        "http://{}",
        line.trim().rsplit(' ').next().expect("address")
    );
    let mut client = RefereeClient::connect(addr.clone()).await.expect("connect");
    for g in 0..GAMES {
        crate::common::create_xiangqi(&mut client, &format!("crash-{g}")).await;
    }
    let acked = Arc::new(Mutex::new(Vec::new()));
    let boards: Vec<_> = (0..GAMES)
        .map(|g| tokio::spawn(board(addr.clone(), format!("crash-{g}"), acked.clone())))
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    child.kill().expect("SIGKILL"); // Child::kill sends SIGKILL on Unix
    child.wait().expect("reaped");
    for b in boards {
        b.await.expect("board task");
    }
    let acked = acked.lock().expect("lock").clone();
    assert!(
        acked.len() > GAMES * 5,
        "too few appends before the kill to prove anything: {}",
        acked.len()
    );

    let log = SledLog::open(dir.path()).expect("reopen after kill -9");
    log.verify_all().expect("every chain verifies");
    for (game, seq, id) in &acked {
        let records = log
            .read(game, *seq, Some(*seq))
            .await
            .expect("read")
            .expect("game");
        assert_eq!(
            records.len(),
            1,
            "{game} seq {seq} acknowledged but missing"
        );
        assert_eq!(&records[0].event_id, id, "{game} seq {seq}");
    }
    for g in 0..GAMES {
        let game = format!("crash-{g}");
        let loaded = load_log(&log, &game, None).await.expect("load");
        let ids: std::collections::HashSet<_> = loaded
            .events
            .iter()
            .map(|(r, _)| r.event_id.clone())
            .collect();
        assert_eq!(
            ids.len(),
            loaded.events.len(),
            "{game}: an event id stored twice"
        );
        let events: Vec<_> = loaded.events.into_iter().map(|(_, e)| e).collect();
        let referee = replay(&loaded.header, &events).expect("replay");
        assert_eq!(
            referee.last_seq(),
            u64::try_from(events.len()).expect("len")
        );
    }
}
