//! SIGTERM stops `referee serve` within seconds whatever is open (issue 20): boards' Play
//! streams, consoles that read, consoles that stopped reading, idle connections; a second
//! signal stops it at once.

use std::time::{Duration, Instant};

use referee::service::proto::{self, referee_client::RefereeClient};
use tokio_stream::StreamExt;
use tonic::Streaming;
use tonic::transport::Channel;

use crate::common::process::ServeProcess;

/// The grace the tests give, so that they need not wait the default 5 s.
const GRACE_MS: u64 = 2000;

fn word(seq: u64, text: &str) -> proto::NewEvent {
    crate::common::arbiter_warning(format!("w{seq}"), text.into())
}

async fn client(url: &str) -> RefereeClient<Channel> {
    RefereeClient::connect(url.to_owned())
        .await
        .expect("connect")
}

async fn watch(url: &str, game: &str) -> Streaming<proto::WatchGameResponse> {
    let request = proto::WatchGameRequest {
        game: game.into(),
        from_seq: 0,
    };
    client(url)
        .await
        .watch_game(request)
        .await
        .expect("watch")
        .into_inner()
}

/// What stays open across the signal.
struct Open {
    _play: (
        tokio::sync::mpsc::Sender<proto::PlayRequest>,
        Streaming<proto::PlayResponse>,
    ),
    _watching: Streaming<proto::WatchGameResponse>,
    _idle: RefereeClient<Channel>,
    _stalled: Option<Streaming<proto::WatchGameResponse>>,
}

/// A board's Play stream (one move acknowledged, the stream left open), a console watching
/// the game, an idle connection. With `stalled`, more is appended than the consoles' HTTP/2
/// flow-control windows take, and they do not read: HTTP/2 cannot finish their streams.
async fn open_streams(url: &str, stalled: bool) -> Open {
    let mut admin = client(url).await;
    crate::common::create_xiangqi(&mut admin, "g").await;
    let watching = watch(url, "g").await;
    let stalled = if stalled {
        let stream = watch(url, "g").await;
        let text = "s".repeat(8000);
        let events: Vec<_> = (1..=400).map(|seq| word(seq, &text)).collect();
        for (batch, chunk) in events.chunks(40).enumerate() {
            let request = proto::AppendEventsRequest {
                game: "g".into(),
                expected_seq: u64::try_from(batch * 40 + 1).expect("seq"),
                events: chunk.to_vec(),
            };
            admin.append_events(request).await.expect("append");
        }
        Some(stream)
    } else {
        None
    };
    let (moves, incoming) = tokio::sync::mpsc::channel(4);
    let next = admin.get_game(proto::GetGameRequest { game: "g".into() });
    let seq = next.await.expect("state").into_inner().seq + 1;
    moves
        .send(proto::PlayRequest {
            game: "g".into(),
            expected_seq: seq,
            events: vec![word(seq, "play")],
        })
        .await
        .expect("queue a move");
    let mut play = client(url)
        .await
        .play(tokio_stream::wrappers::ReceiverStream::new(incoming))
        .await
        .expect("play")
        .into_inner();
    let ack = play.next().await.expect("a reply").expect("ok");
    assert!(matches!(
        ack.outcome,
        Some(proto::play_response::Outcome::Ack(_))
    ));
    Open {
        _play: (moves, play),
        _watching: watching,
        _idle: client(url).await,
        _stalled: stalled,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_within_seconds_with_streams_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let grace = GRACE_MS.to_string();
    let mut server = ServeProcess::start(dir.path(), &["--shutdown-grace-ms", &grace]);
    let _open = open_streams(&server.url, false).await;
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server.wait_for_exit(Duration::from_secs(10));
    let took = signalled.elapsed();
    println!("exit {status:?} {took:?} after SIGTERM (Play, WatchGame, idle connection open)");
    let status = status.expect("exited within 10 s");
    assert!(status.success(), "{status:?}: {}", server.stderr());
    assert!(
        took < Duration::from_millis(GRACE_MS),
        "streams that can end held graceful shutdown for {took:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_that_does_not_read_holds_shutdown_only_for_the_grace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let grace = GRACE_MS.to_string();
    let mut server = ServeProcess::start(dir.path(), &["--shutdown-grace-ms", &grace]);
    let _open = open_streams(&server.url, true).await;
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server.wait_for_exit(Duration::from_secs(10));
    let took = signalled.elapsed();
    println!("exit {status:?} {took:?} after SIGTERM (and a console that does not read)");
    status.expect("exited within 10 s");
    assert!(took >= Duration::from_millis(GRACE_MS), "{took:?}");
    let said = server.stderr();
    assert!(
        said.contains("connections still open after the shutdown grace"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_exits_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut server = ServeProcess::start(dir.path(), &["--shutdown-grace-ms", "30000"]);
    let _open = open_streams(&server.url, true).await;
    server.signal("TERM");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = Instant::now();
    server.signal("INT");
    let status = server.wait_for_exit(Duration::from_secs(5));
    let took = second.elapsed();
    println!("exit {status:?} {took:?} after the second signal");
    let status = status.expect("exited soon after the second signal");
    assert!(!status.success(), "a forced exit is not a clean one");
    assert!(
        server.stderr().contains("second stop signal"),
        "{}",
        server.stderr()
    );
}

/// A full disk, from outside: needs a small file system the test may fill, e.g. as root
/// `mkdir -p /tmp/full/data && mount -t tmpfs -o size=8m tmpfs /tmp/full/data`, then
/// `REFEREE_FULL_DISK=/tmp/full cargo test --test tests -- --ignored full_disk --nocapture`.
/// Health turns NOT_SERVING once the writer stops, and SIGTERM still exits within seconds
/// (sled's flush on close waits forever on a full disk: the exit deadline ends it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a small file system to fill: set REFEREE_FULL_DISK (see the doc comment)"]
async fn on_a_full_disk_health_says_so_and_sigterm_still_exits() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;

    let dir = std::env::var("REFEREE_FULL_DISK").expect("REFEREE_FULL_DISK: see the doc comment");
    let mut server = ServeProcess::start(std::path::Path::new(&dir), &[]);
    let mut admin = client(&server.url).await;
    crate::common::create_xiangqi(&mut admin, "g").await;
    let text = "f".repeat(16_000);
    let mut failure = None;
    for batch in 0u64..10_000 {
        let request = proto::AppendEventsRequest {
            game: "g".into(),
            expected_seq: batch * 20 + 1,
            events: (batch * 20 + 1..=batch * 20 + 20)
                .map(|seq| word(seq, &text))
                .collect(),
        };
        if let Err(status) = admin.append_events(request).await {
            failure = Some(status);
            break;
        }
    }
    let failure = failure.expect("the file system filled up");
    println!("append failed: {:?} {}", failure.code(), failure.message());
    let channel = Channel::from_shared(server.url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut health = HealthClient::new(channel);
    let failed_at = Instant::now();
    let not_serving = ServingStatus::NotServing as i32;
    loop {
        let request = HealthCheckRequest {
            service: "referee.v1.Referee".into(),
        };
        let status = health
            .check(request)
            .await
            .expect("check")
            .into_inner()
            .status;
        if status == not_serving {
            break;
        }
        assert!(
            failed_at.elapsed() < Duration::from_secs(5),
            "still SERVING"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!(
        "health NOT_SERVING {:?} after the failed append",
        failed_at.elapsed()
    );
    let signalled = Instant::now();
    server.signal("TERM");
    let status = server.wait_for_exit(Duration::from_secs(10));
    println!(
        "exit {status:?} {:?} after SIGTERM on a full disk",
        signalled.elapsed()
    );
    println!("server said:\n{}", server.stderr());
    status.expect("exited within 10 s");
}

/// SIGTERM ends an open Play stream with UNAVAILABLE, not OK, naming the last seq
/// acknowledged on it (message and trailer) with a retry delay: a board whose last message
/// got no answer cannot mistake the end of the stream for its acknowledgement (issue 33).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_a_play_stream_unavailable_naming_the_last_acknowledged_seq() {
    let dir = tempfile::tempdir().expect("tempdir");
    let grace = GRACE_MS.to_string();
    let mut server = ServeProcess::start(dir.path(), &["--shutdown-grace-ms", &grace]);
    let open = open_streams(&server.url, false).await;
    let (_moves, mut play) = open._play;
    server.signal("TERM");
    let ended = tokio::time::timeout(Duration::from_secs(10), play.next())
        .await
        .expect("the stream ends within 10 s");
    let status = match ended {
        Some(Err(status)) => status,
        other => panic!("the Play stream must end with a status, not {other:?}"),
    };
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    let message = status.message();
    assert!(
        message.contains("shutting down")
            && message.contains("the last event acknowledged on this stream is seq 1")
            && message.contains("resend"),
        "{message}"
    );
    let trailer = |name: &str| {
        status
            .metadata()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(trailer("referee-last-acked-seq").as_deref(), Some("1"));
    assert_eq!(trailer("grpc-retry-pushback-ms").as_deref(), Some("1000"));
    let status = server.wait_for_exit(Duration::from_secs(10));
    assert!(status.expect("exited").success(), "{}", server.stderr());
}
