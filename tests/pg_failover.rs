//! Issue 18 item 4b: the log on a highly available PostgreSQL (pg_auto_failover: a monitor and
//! two nodes, one synchronous standby) loses nothing acknowledged when the primary's machine
//! dies. Boards append through two `PgLog` instances on the multi-host connection string
//! (`target_session_attrs=read-write`); the primary's node is killed with kill -9 under load;
//! the monitor promotes the standby; the instances' connections fail, are replaced, and reach
//! the new primary; each board resends its unacknowledged event by id until it is
//! acknowledged. On the new primary every acknowledged event must be present exactly once, at
//! the seq its ack gave, and every game's chain must verify from header to head.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use referee::log::{Error, Log, NewEvent, PgLog, Rejection, Writable};

use crate::common::pg_ha::Formation;

/// Boards, each appending to its own game, spread over two instances.
const BOARDS: usize = 16;
/// Load before the kill and after the new primary is reported: long enough for thousands of
/// appends and for every board to be acknowledged again, short enough for CI.
const LOAD_BEFORE: Duration = Duration::from_secs(2);
const LOAD_AFTER: Duration = Duration::from_secs(3);
/// An append that has not answered by then is in doubt: resent by id.
const APPEND_LIMIT: Duration = Duration::from_secs(5);
/// Wait before resending after a failed append.
const RESEND_AFTER: Duration = Duration::from_millis(100);

/// What one board saw: the seq of each event acknowledged, in order (event `e{n}` is the
/// n-th), how often it had to resend, and when it was first acknowledged after the kill.
#[derive(Default)]
struct Board {
    game: String,
    acked: Vec<u64>,
    resends: u32,
    resumed: Option<Instant>,
    /// Errors that were not `Unavailable` (a client would have been told INTERNAL or worse
    /// instead of UNAVAILABLE, and its retry policy would not retry).
    not_unavailable: Vec<String>,
}

/// What health saw on one instance: each change of `Log::writable`, with when it came.
struct Health {
    changes: Vec<(Duration, Writable)>,
}

/// Polls `log.writable()` as the service's health does, until `stop`, from `start` on.
async fn follow_health(log: PgLog, stop: Arc<AtomicBool>, start: Instant) -> Health {
    let mut health = Health {
        changes: Vec::new(),
    };
    let mut was = Writable::Yes;
    while !stop.load(Ordering::SeqCst) {
        let now = log.writable().await;
        if std::mem::discriminant(&now) != std::mem::discriminant(&was) {
            health.changes.push((start.elapsed(), now.clone()));
            was = now;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    health
}

#[test]
fn failover_of_the_database_loses_no_acknowledged_event() {
    let test = "pg_failover::failover_of_the_database_loses_no_acknowledged_event";
    let Some(mut formation) = Formation::start(test) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let url = formation.url();
    let instances = rt.block_on(async {
        let a = PgLog::open(&url).await.expect("instance A opens the log");
        let b = PgLog::open(&url).await.expect("instance B opens the log");
        [a, b]
    });
    let stop = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let boards: Vec<_> = (0..BOARDS)
        .map(|i| {
            let log = instances[i % 2].clone();
            let (stop, killed) = (stop.clone(), killed.clone());
            rt.spawn(play(log, format!("board-{i:02}"), stop, killed))
        })
        .collect();
    let started = Instant::now();
    let health = rt.spawn(follow_health(instances[0].clone(), stop.clone(), started));

    std::thread::sleep(LOAD_BEFORE);
    let kill = Instant::now();
    formation.kill_primary();
    killed.store(true, Ordering::SeqCst);
    let failover = formation.wait_for_new_primary(Duration::from_secs(40));
    std::thread::sleep(LOAD_AFTER);
    stop.store(true, Ordering::SeqCst);
    let boards: Vec<Board> = rt.block_on(async {
        let mut all = Vec::new();
        for board in boards {
            all.push(board.await.expect("board"));
        }
        all
    });
    let health = rt.block_on(health).expect("health");
    // Health follows the database back (it stayed NOT_SERVING until a restart before).
    let killed_at = kill - started;
    let down = health
        .changes
        .iter()
        .find(|(at, w)| *at >= killed_at && matches!(w, Writable::ForNow(_)));
    let back = health
        .changes
        .iter()
        .find(|(at, w)| *at >= killed_at && *w == Writable::Yes);
    println!(
        "pg_failover: health on instance A: {}",
        health
            .changes
            .iter()
            .map(|(at, w)| format!("{:.1} s {w:?}", at.as_secs_f64()))
            .collect::<Vec<_>>()
            .join("; ")
    );
    assert!(
        down.is_some(),
        "health never saw the database go: {:?}",
        health.changes
    );
    assert_eq!(
        health.changes.last().map(|(_, w)| w),
        Some(&Writable::Yes),
        "health did not come back to SERVING after the failover: {:?}",
        health.changes
    );
    assert!(back.is_some());
    let wrong: Vec<_> = boards.iter().flat_map(|b| &b.not_unavailable).collect();
    assert!(
        wrong.is_empty(),
        "failover errors not classed Unavailable (clients would see INTERNAL): {wrong:?}"
    );
    drop(instances);
    rt.block_on(check(&url, &boards, kill, failover));
}

/// Creates the board's game, then appends `e1`, `e2`, ... one at a time until `stop`,
/// resending the same event (same id, same expected seq) until it is acknowledged.
async fn play(log: PgLog, game: String, stop: Arc<AtomicBool>, killed: Arc<AtomicBool>) -> Board {
    let mut board = Board {
        game,
        ..Board::default()
    };
    let header = r#"{"game":"xiangqi"}"#.to_string();
    loop {
        match log.create(&board.game, header.clone(), "board").await {
            Ok(Ok(_) | Err(Rejection::GameExists { .. })) => break,
            Ok(Err(other)) => panic!("{}: create: {other}", board.game),
            Err(e) => {
                if !matches!(e, Error::Unavailable(_)) {
                    board.not_unavailable.push(format!("create: {e}"));
                }
                tokio::time::sleep(RESEND_AFTER).await;
            }
        }
    }
    let mut n: u64 = 1;
    while !stop.load(Ordering::SeqCst) {
        let event = NewEvent {
            event_id: format!("e{n}"),
            body: format!(r#"{{"n":{n}}}"#),
            writer: "board".into(),
        };
        let sent = tokio::time::timeout(APPEND_LIMIT, log.append(&board.game, n, vec![event]));
        match sent.await {
            Ok(Ok(Ok(appended))) => {
                assert_eq!(appended.records[0].seq, n, "{}: e{n}", board.game);
                board.acked.push(n);
                if killed.load(Ordering::SeqCst) && board.resumed.is_none() {
                    board.resumed = Some(Instant::now());
                }
                n += 1;
            }
            Ok(Ok(Err(rejection))) => panic!("{}: e{n}: {rejection}", board.game),
            // The database is gone or changing hands: the outcome is unknown, resend by id.
            Ok(Err(e)) => {
                if !matches!(e, Error::Unavailable(_)) {
                    board.not_unavailable.push(format!("e{n}: {e}"));
                }
                board.resends += 1;
                tokio::time::sleep(RESEND_AFTER).await;
            }
            Err(_) => {
                board.resends += 1;
                tokio::time::sleep(RESEND_AFTER).await;
            }
        }
    }
    board
}

/// Reads every game back through a fresh instance on the new primary and compares it with
/// what the boards were told; fails on anything acknowledged missing, moved or present twice.
async fn check(url: &str, boards: &[Board], kill: Instant, failover: Duration) {
    let log = PgLog::open(url)
        .await
        .expect("open the log on the new primary");
    log.verify_all().await.expect("every chain verifies");
    let (mut acknowledged, mut present, mut lost, mut in_doubt) = (0, 0, Vec::new(), 0);
    for board in boards {
        let records = log.read(&board.game, 1, None).await.unwrap().unwrap();
        // Event `e{n}` must be at seq n: no gap, no event twice.
        for (record, n) in records.iter().zip(1u64..) {
            assert_eq!(
                (record.seq, record.event_id.as_str()),
                (n, format!("e{n}").as_str()),
                "{}: the log is not e1, e2, ... in order",
                board.game
            );
        }
        let stored = u64::try_from(records.len()).expect("count");
        acknowledged += board.acked.len();
        present += records.len();
        lost.extend(
            board
                .acked
                .iter()
                .filter(|&&n| n > stored)
                .map(|n| format!("{} e{n}", board.game)),
        );
        // At most the one append in flight when the boards stopped.
        let last_acked = board.acked.last().copied().unwrap_or(0);
        in_doubt += stored.saturating_sub(last_acked);
        assert!(
            stored <= last_acked + 1,
            "{}: unsent events stored",
            board.game
        );
    }
    let resumed = boards
        .iter()
        .map(|b| b.resumed)
        .collect::<Option<Vec<_>>>()
        .and_then(|at| at.into_iter().max())
        .map(|at| at - kill);
    let resends: u32 = boards.iter().map(|b| b.resends).sum();
    let summary = format!(
        "pg_failover: {BOARDS} boards on 2 instances: acknowledged {acknowledged} events, present \
         {present} ({in_doubt} in flight at the stop, stored unacknowledged), lost {}, duplicated \
         0 (each e{{n}} at seq n); new primary reported {:.1} s after kill -9, every board \
         acknowledged again after {:.1} s, {resends} resends by event id; every chain verified",
        lost.len(),
        failover.as_secs_f64(),
        resumed.map_or(f64::NAN, |d| d.as_secs_f64()),
    );
    crate::common::report::say("pg_failover", &summary);
    assert!(lost.is_empty(), "acknowledged events lost: {lost:?}");
    assert!(
        resumed.is_some(),
        "a board was not acknowledged again after the failover"
    );
}
