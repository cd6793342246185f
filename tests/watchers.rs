//! Consoles that stop reading cannot exhaust the server's memory (issue 20): each watcher's
//! buffer is bounded, a watcher that leaves it full longer than `--watcher-lag-ms` is ended
//! with ABORTED and the seq to resume from, and a console that reads gets every event.

use std::time::{Duration, Instant};

use referee::log::SledLog;
use referee::service::proto::watch_game_response::Item;
use referee::service::proto::{self, referee_client::RefereeClient};
use referee::service::{RESUME_FROM_SEQ, Service, serve_on};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};

use crate::common::process::ServeProcess;

/// The finding of issue 20: 100 consoles that never read, over 1,500 events of ~4 KB.
const WATCHERS: usize = 100;
const EVENTS: u64 = 1500;
const TEXT_BYTES: usize = 4000;
/// Short, so the test does not wait long for the stalled watchers to be ended.
const LAG_MS: u64 = 2000;
/// The bound on the server's peak resident memory (VmHWM) in this test. Measured (debug
/// build, 2 busy cores): 166 MiB peak, 33 MiB with the same appends and no stalled watcher,
/// and 852 MiB for the server before watchers were bounded. The bound leaves ~2x for allocator
/// and machine variance, and still fails that server.
const PEAK_RSS_BOUND_MIB: u64 = 300;
/// RSS may tick up a little while the streams are read and closed (allocator bookkeeping).
const AFTER_CLOSE_SLACK_MIB: u64 = 8;

/// Events appended per request: a commit (and an fdatasync) per event would make the test
/// slow on a busy machine without changing what the watchers see.
const BATCH: u64 = 10;

/// The arbiter's warnings `first..first + count`, each with a ~4 KB text.
fn warnings(first: u64, count: u64) -> proto::AppendEventsRequest {
    let warning = |seq: u64| {
        let text = format!("{seq:05} {}", "w".repeat(TEXT_BYTES));
        crate::common::arbiter_warning(format!("warn-{seq}"), text)
    };
    proto::AppendEventsRequest {
        game: "w".into(),
        expected_seq: first,
        events: (first..first + count).map(warning).collect(),
    }
}

async fn watch(client: &mut RefereeClient<Channel>) -> Streaming<proto::WatchGameResponse> {
    let request = proto::WatchGameRequest {
        game: "w".into(),
        from_seq: 0,
    };
    client
        .watch_game(request)
        .await
        .expect("watch")
        .into_inner()
}

/// What a console saw on its stream.
#[derive(Debug, Default)]
struct Seen {
    events: Vec<u64>,
    rulings: u64,
    /// The status the stream ended with, if it ended with one.
    end: Option<Status>,
}

/// Reads `stream` until `enough` says so, or it ends (with a status, or cleanly).
async fn read(
    stream: &mut Streaming<proto::WatchGameResponse>,
    enough: impl Fn(&Seen) -> bool,
) -> Seen {
    let mut seen = Seen::default();
    while !enough(&seen) {
        match stream.next().await {
            Some(Ok(response)) => match response.item.expect("an item") {
                Item::Event(e) => seen.events.push(e.seq),
                Item::Ruling(_) => seen.rulings += 1,
                Item::Header(_) | Item::Board(_) => {}
            },
            Some(Err(status)) => {
                seen.end = Some(status);
                break;
            }
            None => break,
        }
    }
    seen
}

/// The seq a fell-behind status says to resume from, checked against its message.
fn resume_seq(status: &Status) -> u64 {
    assert_eq!(status.code(), Code::Aborted, "{status:?}");
    let resume: u64 = status
        .metadata()
        .get(RESUME_FROM_SEQ)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {RESUME_FROM_SEQ} trailer: {status:?}"));
    let expected = format!("watcher fell behind at seq {resume}");
    assert!(status.message().contains(&expected), "{}", status.message());
    assert!(
        status.message().contains(&format!("from_seq {resume}")),
        "{}",
        status.message()
    );
    resume
}

fn mib(kib: u64) -> u64 {
    kib / 1024
}

/// `count` consoles watching the game from its start over one new connection, not reading.
/// Sharing a connection is the worst case for the server: once the connection's flow-control
/// window is full, everything else for them waits in the server.
async fn stalled_consoles(url: &str, count: usize) -> Vec<Streaming<proto::WatchGameResponse>> {
    let consoles = Channel::from_shared(url.to_owned())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut stalled = Vec::new();
    for _ in 0..count {
        stalled.push(watch(&mut RefereeClient::new(consoles.clone())).await);
    }
    stalled
}

/// Reads every stalled console to its end, all at once (on a shared connection, a stream
/// read alone could wait for window the unread ones hold); checks each was told to resume
/// from the first seq it was not sent, and returns those seqs.
async fn told_to_resume(stalled: Vec<Streaming<proto::WatchGameResponse>>) -> Vec<u64> {
    let reads: Vec<_> = stalled
        .into_iter()
        .map(|mut stream| tokio::spawn(async move { read(&mut stream, |_| false).await }))
        .collect();
    let mut resumes = Vec::new();
    for reading in reads {
        let seen = tokio::time::timeout(Duration::from_secs(10), reading)
            .await
            .expect("a stalled console, once it reads, is told it fell behind")
            .expect("read task");
        let status = seen.end.expect("the stream ends with a status");
        let resume = resume_seq(&status);
        assert!(resume <= EVENTS, "it fell behind before the end: {resume}");
        assert_eq!(
            seen.events,
            (1..resume).collect::<Vec<_>>(),
            "sent everything before the resume seq, and nothing from it on"
        );
        assert_eq!(
            seen.rulings,
            resume.saturating_sub(1),
            "with the rulings of every event sent"
        );
        resumes.push(resume);
    }
    resumes
}

/// The finding's two rounds: 100 consoles that stop reading while 1,500 events of ~4 KB are
/// appended, then 100 more that open on the whole game and stop reading at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_that_do_not_read_hold_bounded_memory_and_learn_where_to_resume() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--watcher-lag-ms", &LAG_MS.to_string()]);
    let mut board = RefereeClient::connect(server.url.clone())
        .await
        .expect("connect");
    crate::common::create_xiangqi(&mut board, "w").await;
    let started = server.rss_kib();

    let mut stalled = stalled_consoles(&server.url, WATCHERS).await;
    let mut reader = watch(&mut RefereeClient::connect(server.url.clone()).await.expect("c")).await;
    let reading = tokio::spawn(async move {
        let seen = read(&mut reader, |s| s.rulings == EVENTS).await;
        (seen, reader)
    });
    let appending = Instant::now();
    for first in (1..=EVENTS).step_by(usize::try_from(BATCH).expect("small")) {
        let request = warnings(first, BATCH.min(EVENTS + 1 - first));
        board.append_events(request).await.expect("append");
    }
    let appended_in = appending.elapsed();
    let (seen, reader) = tokio::time::timeout(Duration::from_secs(30), reading)
        .await
        .expect("the reading console keeps up")
        .expect("reader task");
    assert_eq!(seen.end.as_ref().map(Status::code), None, "{:?}", seen.end);
    assert_eq!(
        seen.events,
        (1..=EVENTS).collect::<Vec<_>>(),
        "every event, in order"
    );
    assert_eq!(seen.rulings, EVENTS, "one ruling per arbiter's word");
    // Every stalled console has by now left its buffer full for longer than the lag.
    tokio::time::sleep(Duration::from_millis(LAG_MS + 1000)).await;
    let first_round = server.rss_kib();

    stalled.extend(stalled_consoles(&server.url, WATCHERS).await);
    tokio::time::sleep(Duration::from_millis(LAG_MS + 1000)).await;
    let (loaded, peak) = (server.rss_kib(), server.peak_rss_kib());
    println!(
        "server RSS, {WATCHERS} stalled watchers while {EVENTS} events of {TEXT_BYTES} B were \
         appended (in {appended_in:?}), then {WATCHERS} more on the whole game: start {} MiB, \
         after round 1 {} MiB, after round 2 {} MiB, peak {} MiB (bound {} MiB)",
        mib(started),
        mib(first_round),
        mib(loaded),
        mib(peak),
        PEAK_RSS_BOUND_MIB
    );
    assert!(
        mib(peak) < PEAK_RSS_BOUND_MIB,
        "peak RSS {} MiB is over the bound of {PEAK_RSS_BOUND_MIB} MiB",
        mib(peak)
    );

    let resumes = told_to_resume(stalled).await;
    let (first, last) = (resumes.iter().min(), resumes.iter().max());
    println!("stalled watchers told to resume from seq {first:?} to {last:?}");
    drop(reader);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let closed = server.rss_kib();
    println!(
        "server RSS after the streams closed: {} MiB (was {} MiB)",
        mib(closed),
        mib(loaded)
    );
    assert!(
        mib(closed) <= mib(loaded) + AFTER_CLOSE_SLACK_MIB,
        "RSS grew after the streams closed: {} -> {} MiB",
        mib(loaded),
        mib(closed)
    );
}

/// In process: a stalled watcher's task (and its referee and buffer) ends after the lag,
/// and a reading watcher's as soon as its console hangs up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watchers_task_ends_when_it_is_cut_or_its_console_hangs_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = SledLog::open(dir.path()).expect("open");
    let service = Service::new(log).with_watcher_lag(Duration::from_millis(300));
    let watchers = service.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_on(listener, service, async {
        let _ = stopped.await;
    }));
    let mut board = RefereeClient::connect(url.clone()).await.expect("connect");
    crate::common::create_xiangqi(&mut board, "w").await;
    let mut stalled = watch(&mut RefereeClient::connect(url.clone()).await.expect("c")).await;
    let mut reader = watch(&mut RefereeClient::connect(url.clone()).await.expect("c")).await;
    assert_eq!(watchers.open_watchers(), 2);
    // Enough to fill the stalled console's flow-control windows (2 MiB) and its buffer.
    for first in (1..=400).step_by(usize::try_from(BATCH).expect("small")) {
        board
            .append_events(warnings(first, BATCH))
            .await
            .expect("append");
        read(&mut reader, |s| s.rulings == BATCH).await;
    }
    let cut = wait_until(|| watchers.open_watchers() == 1).await;
    assert!(cut, "the stalled watcher's task ended after the lag");
    let seen = read(&mut stalled, |_| false).await;
    let resume = resume_seq(&seen.end.expect("a status"));
    assert_eq!(seen.events, (1..resume).collect::<Vec<_>>());
    drop(reader);
    let hung_up = wait_until(|| watchers.open_watchers() == 0).await;
    assert!(
        hung_up,
        "the reading watcher's task ended when its console hung up"
    );
    drop(stalled);
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), server).await;
}

/// Polls `done` for up to 5 s.
async fn wait_until(done: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// A console that pauses while more is appended than its buffer, its connection's windows and
/// the live feed hold together, then reads again, gets every event and ruling exactly once and
/// in order: it catches up from the store where it fell off the feed, then follows live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_that_pauses_then_reads_misses_nothing_and_repeats_nothing() {
    const PAUSED_EVENTS: u64 = 1000;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = SledLog::open(dir.path()).expect("open");
    let service = Service::new(log).with_watcher_lag(Duration::from_secs(60));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_on(listener, service, async {
        let _ = stopped.await;
    }));
    let mut board = RefereeClient::connect(url.clone()).await.expect("connect");
    crate::common::create_xiangqi(&mut board, "w").await;
    let mut console = watch(&mut RefereeClient::connect(url.clone()).await.expect("c")).await;
    // Paused: 1,000 events of ~4 KB is over the 2 MiB of windows, the 1 MiB outbox and the
    // 256 records of the feed.
    for first in (1..=PAUSED_EVENTS).step_by(usize::try_from(BATCH).expect("small")) {
        board
            .append_events(warnings(first, BATCH))
            .await
            .expect("append");
    }
    let reading =
        tokio::spawn(
            async move { read(&mut console, |s| s.rulings == PAUSED_EVENTS + BATCH).await },
        );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let live = warnings(PAUSED_EVENTS + 1, BATCH);
    board.append_events(live).await.expect("append live");
    let seen = tokio::time::timeout(Duration::from_secs(30), reading)
        .await
        .expect("the console catches up")
        .expect("read task");
    assert_eq!(seen.end.as_ref().map(Status::code), None, "{:?}", seen.end);
    assert_eq!(
        seen.events,
        (1..=PAUSED_EVENTS + BATCH).collect::<Vec<_>>(),
        "every event once, in order"
    );
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), server).await;
}

/// Many stalled consoles with access control off (no per-token stream limit): what they
/// hold together is capped by `--watchers-memory-mb`, beyond 64 KiB each (issue 33: 300
/// stalled watchers held 490 MB before). Returns the server's peak RSS in MiB.
async fn peak_with_stalled_consoles(consoles: usize, budget_mib: usize) -> u64 {
    let dir = tempfile::tempdir().expect("tempdir");
    // A lag longer than the test: no stalled console is cut while memory is measured.
    let server = ServeProcess::start(
        dir.path(),
        &[
            "--watcher-lag-ms",
            "60000",
            "--watchers-memory-mb",
            &budget_mib.to_string(),
        ],
    );
    let mut board = RefereeClient::connect(server.url.clone())
        .await
        .expect("connect");
    crate::common::create_xiangqi(&mut board, "w").await;
    let started = server.rss_kib();
    let stalled = stalled_consoles(&server.url, consoles).await;
    for first in (1..=EVENTS).step_by(usize::try_from(BATCH).expect("small")) {
        let request = warnings(first, BATCH.min(EVENTS + 1 - first));
        board.append_events(request).await.expect("append");
    }
    // The feeders fill what they may, then wait for room.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (now, peak) = (server.rss_kib(), server.peak_rss_kib());
    println!(
        "{consoles} stalled consoles, --watchers-memory-mb {budget_mib}, {EVENTS} events of \
         {TEXT_BYTES} B: server RSS start {} MiB, now {} MiB, peak {} MiB",
        mib(started),
        mib(now),
        mib(peak)
    );
    drop(stalled);
    mib(peak)
}

/// The finding's 300 consoles on one connection, with a budget of 8 MiB.
const STALLED_MANY: usize = 300;
const BUDGET_MIB: usize = 8;
/// 300 x 64 KiB reserves + 8 MiB of budget is ~27 MiB of outboxes; the server's own baseline
/// (14 MiB) and decoded copies come on top. Measured (debug build, 2 busy cores, 2026-12-07):
/// peak 83 MiB; with a budget of 4096 MiB (none, in effect) 398 MiB, which this bound fails.
const MANY_PEAK_BOUND_MIB: u64 = 150;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_consoles_together_hold_no_more_than_the_watchers_budget() {
    let peak = peak_with_stalled_consoles(STALLED_MANY, BUDGET_MIB).await;
    assert!(
        peak < MANY_PEAK_BOUND_MIB,
        "peak RSS {peak} MiB with {STALLED_MANY} stalled consoles is over {MANY_PEAK_BOUND_MIB} MiB"
    );
}

/// The same load without a budget to speak of, for comparison (ignored: it needs ~0.5 GB).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a comparison run: cargo test --test tests -- --ignored without_a_budget --nocapture"]
async fn stalled_consoles_without_a_budget_for_comparison() {
    peak_with_stalled_consoles(STALLED_MANY, 4096).await;
}

/// Issue 33: the hall's streams (`WatchGames`) are held to the watchers' budget and lag as a
/// game's are: hall consoles that stop reading are ended with ABORTED once they have left their
/// queue full for the lag (what waited for them dropped, their share of the budget freed),
/// while a hall console that reads sees every board to the last event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hall_consoles_that_do_not_read_are_ended_and_one_that_reads_sees_every_board() {
    const STALLED: usize = 20;
    const LAG_MS: u64 = 1000;
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--watcher-lag-ms", &LAG_MS.to_string()]);
    let mut board = RefereeClient::connect(server.url.clone())
        .await
        .expect("connect");
    crate::common::create_xiangqi(&mut board, "w").await;
    let connect = async || {
        Channel::from_shared(server.url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect")
    };
    let hall = async |channel: Channel| {
        RefereeClient::new(channel)
            .watch_games(proto::WatchGamesRequest {
                prefix: String::new(),
            })
            .await
            .expect("watch games")
            .into_inner()
    };
    // The stalled consoles share one connection (as in `stalled_consoles`).
    let shared = connect().await;
    let mut stalled = Vec::new();
    for _ in 0..STALLED {
        stalled.push(hall(shared.clone()).await);
    }
    let mut reading = hall(connect().await).await;
    let reader = tokio::spawn(async move {
        // Every frame's board, until the last event's.
        let mut last = 0;
        while let Some(frame) = reading.next().await {
            let frame = frame.expect("a reading hall console is never ended");
            last = frame.board.map_or(last, |b| b.seq);
            if last == EVENTS {
                break;
            }
        }
        last
    });
    for first in (1..=EVENTS).step_by(usize::try_from(BATCH).expect("small")) {
        let request = warnings(first, BATCH.min(EVENTS + 1 - first));
        board.append_events(request).await.expect("append");
    }
    let last = tokio::time::timeout(Duration::from_secs(60), reader)
        .await
        .expect("the reading console sees the last board within a minute")
        .expect("reader");
    assert_eq!(last, EVENTS);
    // Unread for longer than the lag: reading now would make them consoles that read.
    tokio::time::sleep(Duration::from_millis(2 * LAG_MS)).await;
    let ends = stalled.into_iter().map(|mut stream| async move {
        let mut frames = 0;
        loop {
            match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
                Ok(Some(Ok(_))) => frames += 1,
                Ok(Some(Err(status))) => return (frames, Some(status)),
                Ok(None) | Err(_) => return (frames, None),
            }
        }
    });
    for (frames, end) in futures_util::future::join_all(ends).await {
        let end =
            end.unwrap_or_else(|| panic!("a stalled hall stream was not ended ({frames} frames)"));
        assert_eq!(end.code(), Code::Aborted, "{end:?}");
        assert!(end.message().contains("fell behind"), "{}", end.message());
        assert!(frames < EVENTS, "{frames} frames reached a stalled console");
    }
}
