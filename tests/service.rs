//! The gRPC service as a board and a console use it: appends, streams, watches, replays,
//! and bad input, which must get the right status and leave the log unchanged.

use std::time::Duration;

use referee::log::Log;
use referee::service::proto::{self, event::Kind};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::common::TestServer;

fn header(id: &str) -> proto::GameHeader {
    proto::GameHeader {
        variant: "xiangqi".into(),
        id: id.into(),
        ..Default::default()
    }
}

fn mv(side: &str, from: &str, to: &str) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(Kind::Move(proto::Move {
            from: from.into(),
            to: to.into(),
            ..Default::default()
        })),
    }
}

fn new(id: &str, event: proto::Event) -> proto::NewEvent {
    proto::NewEvent {
        event_id: id.into(),
        event: Some(event),
    }
}

fn append(
    game: &str,
    expected_seq: u64,
    events: Vec<proto::NewEvent>,
) -> proto::AppendEventsRequest {
    proto::AppendEventsRequest {
        game: game.into(),
        expected_seq,
        events,
    }
}

/// `server` with a game `game` of two moves.
async fn setup<L: Log>(server: TestServer<L>, game: &str) -> TestServer<L> {
    let mut c = server.client().await;
    c.create_game(proto::CreateGameRequest {
        header: Some(header(game)),
    })
    .await
    .expect("create");
    let events = vec![
        new("a", mv("red", "h2", "e2")),
        new("b", mv("black", "h9", "g7")),
    ];
    c.append_events(append(game, 1, events))
        .await
        .expect("append");
    server
}

/// Streams `messages` to `Play` and collects every outcome until the server ends the stream.
async fn play_all(
    c: &mut proto::referee_client::RefereeClient<tonic::transport::Channel>,
    messages: Vec<proto::PlayRequest>,
) -> Vec<proto::play_response::Outcome> {
    let mut replies = c
        .play(tokio_stream::iter(messages))
        .await
        .expect("play")
        .into_inner();
    let mut outcomes = Vec::new();
    while let Some(reply) = replies.next().await {
        outcomes.push(reply.expect("reply").outcome.expect("outcome"));
    }
    outcomes
}

/// (last seq, head hash) of a game, to show a refused request changed nothing.
async fn snapshot<L: Log>(server: &TestServer<L>, game: &str) -> (u64, [u8; 32]) {
    let info = server
        .log
        .info(game)
        .await
        .expect("info")
        .expect("game exists");
    (info.last_seq, info.head_hash)
}

/// Each service test below runs twice: over sled in a temporary directory, and over PostgreSQL
/// in a cluster of its own (issue 18: the same tests against both backends; loudly skipped
/// without PostgreSQL).
macro_rules! on_both_logs {
    ($($name:ident),* $(,)?) => {
        mod on_sled {
            $(
                #[tokio::test]
                async fn $name() {
                    let dir = tempfile::tempdir().expect("tempdir");
                    super::$name(crate::common::TestServer::start(dir.path()).await).await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let test = concat!("service::on_postgres::", stringify!($name));
                    let Some(cluster) = crate::common::postgres::Cluster::start(test) else {
                        return;
                    };
                    let url = cluster.url();
                    super::$name(crate::common::TestServer::start_postgres(&url).await).await;
                }
            )*
        }
    };
}

on_both_logs!(
    bad_requests_get_the_right_status_and_change_nothing,
    a_retried_append_is_acknowledged_again_not_duplicated,
    a_board_stream_acks_each_message_and_survives_a_refusal,
    a_play_stream_refuses_a_message_naming_another_game,
    watchers_catch_up_then_follow_live,
    replay_to_any_seq_and_list_games,
    a_long_bad_value_is_quoted_short_and_the_field_still_named,
    malformed_protobuf_is_invalid_argument,
    a_malformed_message_in_a_play_stream_ends_it_with_invalid_argument,
    tags_are_kept_with_the_header_and_checked,
    a_renju_game_streams_through_play_and_a_claimed_double_three_loses,
    the_arbiters_word_must_name_a_ruling_in_force_and_a_game_going_on,
);

fn word(decision: &str, ruling: Option<u64>, result: Option<&str>) -> proto::Event {
    proto::Event {
        side: "arbiter".into(),
        ts_ms: None,
        kind: Some(Kind::Arbiter(proto::ArbiterWord {
            decision: decision.into(),
            ruling,
            result: result.map(Into::into),
            ..Default::default()
        })),
    }
}

/// The service refuses, writing nothing, an `uphold` or `overturn` of no ruling in force and
/// a `declare` once the game is over; an overturn of the ending reopens the game, in the same
/// batch too, and a retry of an accepted word is acknowledged again, not refused.
async fn the_arbiters_word_must_name_a_ruling_in_force_and_a_game_going_on<L: Log>(
    server: TestServer<L>,
) {
    let server = setup(server, "g").await;
    let mut c = server.client().await;
    let blocked = append("g", 3, vec![new("c", mv("red", "b0", "d1"))]);
    let ack = c.append_events(blocked).await.expect("move").into_inner();
    assert_eq!(ack.result.as_deref(), Some("0-1"), "the illegal move loses");
    let over = "the game is over (0-1 by the ruling at 3); overturn that ruling to declare \
                another result";
    let cases = [
        (
            "a ruling that never was",
            vec![new("w", word("uphold", Some(99), None))],
            "events[0].event.arbiter.ruling: no ruling in force at 99 (rulings in force: 3)"
                .to_string(),
        ),
        (
            "an event with no ruling",
            vec![new("w", word("overturn", Some(2), None))],
            "events[0].event.arbiter.ruling: no ruling in force at 2 (rulings in force: 3)"
                .to_string(),
        ),
        (
            "a declare after the end",
            vec![new("w", word("declare", None, Some("1/2-1/2")))],
            format!("events[0].event.arbiter.decision: {over}"),
        ),
        (
            "the second of a batch",
            vec![
                new("w1", word("warn", None, None)),
                new("w2", word("declare", None, Some("1-0"))),
            ],
            format!("events[1].event.arbiter.decision: {over}"),
        ),
    ];
    for (what, events, message) in cases {
        let status = c
            .append_events(append("g", 4, events))
            .await
            .expect_err(what);
        assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
        assert_eq!(status.message(), message, "{what}");
        assert_eq!(snapshot(&server, "g").await.0, 3, "{what} was written");
    }
    // On a Play stream, the refusal comes in band.
    let refused = play_all(
        &mut c,
        vec![proto::PlayRequest {
            game: "g".into(),
            expected_seq: 4,
            events: vec![new("p", word("uphold", Some(99), None))],
        }],
    )
    .await;
    match refused.as_slice() {
        [proto::play_response::Outcome::Refusal(r)] => {
            assert_eq!((r.code.as_str(), r.last_seq), ("INVALID_ARGUMENT", Some(3)));
            assert!(r.message.contains("no ruling in force at 99"), "{r:?}");
        }
        other => panic!("{other:?}"),
    }
    // An overturn of the ending, then a declare in the same batch.
    let reopened = || {
        append(
            "g",
            4,
            vec![
                new("o", word("overturn", Some(3), None)),
                new("d", word("declare", None, Some("1/2-1/2"))),
            ],
        )
    };
    let ack = c
        .append_events(reopened())
        .await
        .expect("overturn")
        .into_inner();
    assert_eq!(
        (ack.seqs, ack.result.as_deref()),
        (vec![4, 5], Some("1/2-1/2"))
    );
    let again = c
        .append_events(reopened())
        .await
        .expect("retry")
        .into_inner();
    assert!(
        again.duplicate,
        "a retry is acknowledged again, not refused"
    );
    let status = c
        .append_events(append(
            "g",
            6,
            vec![new("o2", word("overturn", Some(3), None))],
        ))
        .await
        .expect_err("overturned twice");
    assert_eq!(
        status.message(),
        "events[0].event.arbiter.ruling: no ruling in force at 3 (rulings in force: 4, 5)"
    );
    let upheld = append("g", 6, vec![new("u", word("uphold", Some(5), None))]);
    let ack = c.append_events(upheld).await.expect("uphold").into_inner();
    assert_eq!(ack.seqs, vec![6]);
    server.stop().await;
}

async fn bad_requests_get_the_right_status_and_change_nothing<L: Log>(server: TestServer<L>) {
    let server = setup(server, "g1").await;
    let mut c = server.client().await;
    let before = snapshot(&server, "g1").await;
    let huge_text = "x".repeat(2 * 1024 * 1024);
    let word = proto::Event {
        side: "arbiter".into(),
        ts_ms: None,
        kind: Some(Kind::Arbiter(proto::ArbiterWord {
            decision: "warn".into(),
            text: Some(huge_text),
            ..Default::default()
        })),
    };
    let too_many: Vec<_> = (0..2001)
        .map(|i| new(&format!("m{i}"), mv("red", "b0", "c2")))
        .collect();
    let cases: Vec<(&str, proto::AppendEventsRequest, Code, &str)> = vec![
        (
            "impossible square",
            append("g1", 3, vec![new("c", mv("red", "j4", "e2"))]),
            Code::InvalidArgument,
            "events[0].event.move.from: square \"j4\" does not exist",
        ),
        (
            "unknown side",
            append("g1", 3, vec![new("c", mv("white", "b0", "c2"))]),
            Code::InvalidArgument,
            "events[0].event.side: unknown side \"white\"",
        ),
        (
            "a board placement the game cannot hold",
            append(
                "g1",
                3,
                vec![new(
                    "c",
                    proto::Event {
                        side: String::new(),
                        ts_ms: Some(5),
                        kind: Some(Kind::Board(proto::BoardReport {
                            placement: "9/9/9".into(),
                            device: None,
                        })),
                    },
                )],
            ),
            Code::InvalidArgument,
            "events[0].event.board.placement: the placement has 3 rows, expected 10",
        ),
        (
            "no kind",
            append(
                "g1",
                3,
                vec![new(
                    "c",
                    proto::Event {
                        side: "red".into(),
                        ts_ms: None,
                        kind: None,
                    },
                )],
            ),
            Code::InvalidArgument,
            "events[0].event",
        ),
        (
            "empty event id",
            append("g1", 3, vec![new("", mv("red", "b0", "c2"))]),
            Code::InvalidArgument,
            "events[0].event_id",
        ),
        (
            "seq out of order",
            append("g1", 5, vec![new("c", mv("red", "b0", "c2"))]),
            Code::FailedPrecondition,
            "expected seq 5 but game \"g1\" is at seq 2",
        ),
        (
            "seq already taken",
            append("g1", 2, vec![new("c", mv("red", "b0", "c2"))]),
            Code::FailedPrecondition,
            "is at seq 2",
        ),
        (
            "unknown game",
            append("nope", 1, vec![new("c", mv("red", "b0", "c2"))]),
            Code::NotFound,
            "unknown game",
        ),
        (
            "event id reused for another event",
            append("g1", 3, vec![new("a", mv("red", "b0", "c2"))]),
            Code::AlreadyExists,
            "event id \"a\"",
        ),
        (
            "no events",
            append("g1", 3, vec![]),
            Code::InvalidArgument,
            "no events",
        ),
        (
            "too many events",
            append("g1", 3, too_many),
            Code::ResourceExhausted,
            "at most 2000",
        ),
        (
            "oversized message",
            append("g1", 3, vec![new("c", word)]),
            Code::OutOfRange,
            "",
        ),
    ];
    for (what, request, code, message) in cases {
        let status = c.append_events(request).await.expect_err(what);
        assert_eq!(status.code(), code, "{what}: {status:?}");
        assert!(
            status.message().contains(message),
            "{what}: message {:?} lacks {message:?}",
            status.message()
        );
        assert_eq!(
            snapshot(&server, "g1").await,
            before,
            "{what} changed the log"
        );
    }
    let status = c
        .create_game(proto::CreateGameRequest {
            header: Some(header("g1")),
        })
        .await
        .expect_err("exists");
    assert_eq!(status.code(), Code::AlreadyExists);
    let mut bad = header("g2");
    bad.variant = "go".into();
    let status = c
        .create_game(proto::CreateGameRequest { header: Some(bad) })
        .await
        .expect_err("variant");
    assert_eq!(
        (
            status.code(),
            status.message().starts_with("header.variant")
        ),
        (Code::InvalidArgument, true)
    );
    let mut bad = header("g3");
    bad.start = "rnbakabnr/9/9 w".into();
    let status = c
        .create_game(proto::CreateGameRequest { header: Some(bad) })
        .await
        .expect_err("fen");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        server.log.info("g3").await.expect("info").is_none(),
        "a refused header must not be stored"
    );
    server.stop().await;
}

async fn a_retried_append_is_acknowledged_again_not_duplicated<L: Log>(server: TestServer<L>) {
    let server = setup(server, "g").await;
    let mut c = server.client().await;
    let request = || append("g", 3, vec![new("c", mv("red", "b0", "d1"))]);
    let first = c
        .append_events(request())
        .await
        .expect("first")
        .into_inner();
    let again = c
        .append_events(request())
        .await
        .expect("retry")
        .into_inner();
    assert_eq!((first.seqs.clone(), first.duplicate), (vec![3], false));
    assert_eq!((again.seqs, again.duplicate), (vec![3], true));
    assert_eq!(
        again.rulings, first.rulings,
        "the retry's ack repeats the rulings"
    );
    assert_eq!(first.rulings.len(), 1, "b0-d1 is blocked at c0");
    assert_eq!(snapshot(&server, "g").await.0, 3);
    server.stop().await;
}

async fn a_board_stream_acks_each_message_and_survives_a_refusal<L: Log>(server: TestServer<L>) {
    let mut c = server.client().await;
    c.create_game(proto::CreateGameRequest {
        header: Some(header("s")),
    })
    .await
    .expect("create");
    let messages = vec![
        proto::PlayRequest {
            game: "s".into(),
            expected_seq: 1,
            events: vec![new("1", mv("red", "h2", "e2"))],
        },
        proto::PlayRequest {
            game: String::new(),
            expected_seq: 9,
            events: vec![new("2", mv("black", "h9", "g7"))],
        },
        proto::PlayRequest {
            game: String::new(),
            expected_seq: 2,
            events: vec![new("2", mv("black", "h9", "g7"))],
        },
    ];
    let outcomes = play_all(&mut c, messages).await;
    use proto::play_response::Outcome;
    assert!(matches!(&outcomes[0], Outcome::Ack(a) if a.seqs == vec![1]));
    assert!(
        matches!(&outcomes[1], Outcome::Refusal(r) if r.code == "FAILED_PRECONDITION" && r.last_seq == Some(1)),
        "{:?}",
        outcomes[1]
    );
    assert!(matches!(&outcomes[2], Outcome::Ack(a) if a.seqs == vec![2]));
    server.stop().await;
}

async fn a_play_stream_refuses_a_message_naming_another_game<L: Log>(server: TestServer<L>) {
    let mut c = server.client().await;
    for id in ["a", "b"] {
        c.create_game(proto::CreateGameRequest {
            header: Some(header(id)),
        })
        .await
        .expect("create");
    }
    let play = |game: &str, seq: u64, id: &str, event: proto::Event| proto::PlayRequest {
        game: game.into(),
        expected_seq: seq,
        events: vec![new(id, event)],
    };
    let messages = vec![
        play("a", 1, "1", mv("red", "h2", "e2")),
        // Valid for game b as it stands: only the stream's game makes it wrong.
        play("b", 1, "b1", mv("red", "b2", "e2")),
        play("a", 2, "2", mv("black", "h9", "g7")),
    ];
    let outcomes = play_all(&mut c, messages).await;
    use proto::play_response::Outcome;
    assert!(matches!(&outcomes[0], Outcome::Ack(a) if a.seqs == vec![1]));
    match &outcomes[1] {
        Outcome::Refusal(r) => {
            assert_eq!(r.code, "INVALID_ARGUMENT");
            assert!(
                r.message
                    .starts_with(r#"game: this stream plays "a"; a message named "b""#),
                "{}",
                r.message
            );
            assert_eq!(r.last_seq, Some(1), "the stream's game, unchanged");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(matches!(&outcomes[2], Outcome::Ack(a) if a.seqs == vec![2]));
    assert_eq!(snapshot(&server, "a").await.0, 2);
    assert_eq!(
        snapshot(&server, "b").await.0,
        0,
        "nothing written to the other game"
    );
    server.stop().await;
}

async fn watchers_catch_up_then_follow_live<L: Log>(server: TestServer<L>) {
    let server = setup(server, "w").await;
    let mut c = server.client().await;
    let watch = |from_seq| proto::WatchGameRequest {
        game: "w".into(),
        from_seq,
    };
    let mut from_start = c.watch_game(watch(0)).await.expect("watch").into_inner();
    let mut from_two = server
        .client()
        .await
        .watch_game(watch(2))
        .await
        .expect("watch")
        .into_inner();
    c.append_events(append("w", 3, vec![new("c", mv("red", "b0", "d1"))]))
        .await
        .expect("append");
    use proto::watch_game_response::Item;
    // The next item that is not a board (each event's board follows its rulings).
    let next = async |s: &mut tonic::Streaming<proto::WatchGameResponse>| loop {
        let item = tokio::time::timeout(Duration::from_secs(5), s.next())
            .await
            .expect("in time")
            .expect("item")
            .expect("ok")
            .item
            .expect("item");
        if !matches!(item, Item::Board(_)) {
            break item;
        }
    };
    assert!(matches!(next(&mut from_start).await, Item::Header(h) if h.id == "w"));
    for seq in 1..=3 {
        assert!(matches!(next(&mut from_start).await, Item::Event(e) if e.seq == seq));
    }
    assert!(
        matches!(next(&mut from_start).await, Item::Ruling(r) if r.at == 3 && r.kind == "illegal_move")
    );
    assert!(matches!(next(&mut from_two).await, Item::Event(e) if e.seq == 2));
    assert!(matches!(next(&mut from_two).await, Item::Event(e) if e.seq == 3));
    assert!(matches!(next(&mut from_two).await, Item::Ruling(r) if r.at == 3));
    // From the next event to come is a watch; from further on is no seq the game has
    // reached, and would wait forever: OUT_OF_RANGE, naming the field and the range.
    assert!(c.watch_game(watch(4)).await.is_ok());
    for beyond in [5, u64::MAX] {
        let status = c.watch_game(watch(beyond)).await.expect_err("beyond");
        assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
        assert!(
            status
                .message()
                .starts_with("from_seq: game \"w\" has 3 events")
                && status.message().contains("up to 4"),
            "{}",
            status.message()
        );
    }
    let unknown = c
        .watch_game(proto::WatchGameRequest {
            game: "none".into(),
            from_seq: 0,
        })
        .await;
    assert_eq!(unknown.expect_err("unknown").code(), Code::NotFound);
    server.stop().await;
}

async fn replay_to_any_seq_and_list_games<L: Log>(server: TestServer<L>) {
    let server = setup(server, "r").await;
    let mut c = server.client().await;
    c.append_events(append("r", 3, vec![new("c", mv("red", "b0", "d1"))]))
        .await
        .expect("append");
    let at = |up_to_seq| proto::ReplayGameRequest {
        game: "r".into(),
        up_to_seq,
    };
    let start = c.replay_game(at(0)).await.expect("replay").into_inner();
    assert_eq!(
        start.fen,
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    );
    let two = c.replay_game(at(2)).await.expect("replay").into_inner();
    assert_eq!(
        (two.seq, two.side_to_move.as_str(), two.rulings.len()),
        (2, "red", 0)
    );
    let three = c.replay_game(at(3)).await.expect("replay").into_inner();
    assert_eq!(
        (three.result.as_deref(), three.rulings.len()),
        (Some("0-1"), 1)
    );
    let now = c
        .get_game(proto::GetGameRequest { game: "r".into() })
        .await
        .expect("get")
        .into_inner();
    assert_eq!(
        (now.head_hash.clone(), now.rulings.clone()),
        (three.head_hash.clone(), three.rulings.clone())
    );
    let status = c.replay_game(at(4)).await.expect_err("beyond the log");
    assert_eq!(status.code(), Code::InvalidArgument);
    let games = c
        .list_games(proto::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games;
    assert_eq!(games.len(), 1);
    assert_eq!(
        (
            games[0].game.as_str(),
            games[0].last_seq,
            games[0].result.as_deref()
        ),
        ("r", 3, Some("0-1"))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_corrupted_record_is_reported_as_data_loss_never_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = setup(TestServer::start(dir.path()).await, "c").await;
    server.stop().await;
    {
        // Flip one byte in the value of seq 1 of the only game, behind the log's back.
        // The server's connection tasks may still hold the log for a moment after `stop`.
        crate::common::released(dir.path());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let db = loop {
            match sled::open(dir.path()) {
                Ok(db) => break db,
                Err(e) if std::time::Instant::now() < deadline => {
                    eprintln!("raw sled open failed, trying again: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("raw sled: {e}"),
            }
        };
        let (key, value) = db
            .iter()
            .filter_map(Result::ok)
            .filter(|(k, _)| k.first() == Some(&b'e'))
            .find(|(k, _)| k.ends_with(&1u64.to_be_bytes()))
            .expect("record of seq 1");
        let mut bad = value.to_vec();
        let middle = bad.len() / 2;
        bad[middle] ^= 0x01;
        db.insert(key, bad).expect("write");
        db.flush().expect("flush");
    }
    let server = TestServer::start(dir.path()).await;
    let mut c = server.client().await;
    let status = c
        .get_game(proto::GetGameRequest { game: "c".into() })
        .await
        .expect_err("corrupt");
    assert_eq!(status.code(), Code::DataLoss, "{status:?}");
    assert!(status.message().contains("seq 1"), "{}", status.message());
    let status = c
        .replay_game(proto::ReplayGameRequest {
            game: "c".into(),
            up_to_seq: 2,
        })
        .await
        .expect_err("corrupt");
    assert_eq!(status.code(), Code::DataLoss);
    // Damage found at start-up refuses the watch at once; damage found on reading ends the
    // stream with DATA_LOSS. Either way seq 1 is never served.
    let watch = c
        .watch_game(proto::WatchGameRequest {
            game: "c".into(),
            from_seq: 0,
        })
        .await;
    let mut watch = match watch {
        Ok(watch) => watch.into_inner(),
        Err(status) => {
            assert_eq!(status.code(), Code::DataLoss, "{status:?}");
            server.stop().await;
            return;
        }
    };
    let mut served_seq_1 = false;
    while let Some(item) = watch.next().await {
        match item {
            Ok(proto::WatchGameResponse {
                item: Some(proto::watch_game_response::Item::Event(e)),
            }) => served_seq_1 |= e.seq == 1,
            Ok(_) => {}
            Err(status) => {
                assert_eq!(status.code(), Code::DataLoss);
                break;
            }
        }
    }
    assert!(!served_seq_1, "a corrupted record must never be served");
    server.stop().await;
}

async fn a_long_bad_value_is_quoted_short_and_the_field_still_named<L: Log>(server: TestServer<L>) {
    let server = setup(server, "g1").await;
    let mut c = server.client().await;
    let long = "x".repeat(64 * 1024);
    let claim = proto::Event {
        side: "red".into(),
        ts_ms: None,
        kind: Some(Kind::Claim(proto::Claim {
            claim: long.clone(),
        })),
    };
    let status = c
        .append_events(append("g1", 3, vec![new("c", claim)]))
        .await
        .expect_err("claim");
    let shown = format!("\"{}…\" (65536 bytes)", "x".repeat(40));
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(
        status.message(),
        format!("events[0].event.claim.claim: unknown claim {shown}")
    );
    let mut variant = header("g2");
    variant.variant = long.clone();
    let mut start = header("g3");
    start.start =
        format!("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 {long}");
    for (field, header) in [("header.variant", variant), ("header", start)] {
        let status = c
            .create_game(proto::CreateGameRequest {
                header: Some(header),
            })
            .await
            .expect_err(field);
        let message = status.message();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(
            message.len() < 300 && message.starts_with(&format!("{field}: ")),
            "{} bytes: {message}",
            message.len()
        );
    }
    // The log echoes an unknown game's id whole; the status message stays bounded.
    let status = c
        .get_game(proto::GetGameRequest { game: long })
        .await
        .expect_err("unknown game");
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    assert!(status.message().len() < 1100, "{}", status.message().len());
    server.stop().await;
}

/// A gRPC client that sends whatever bytes it is given (with [`RawCodec`]).
async fn raw_client(addr: std::net::SocketAddr) -> tonic::client::Grpc<tonic::transport::Channel> {
    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    tonic::client::Grpc::new(channel)
}

/// Sends bytes as they are, so the server decodes what no generated client would send; `D` is
/// the response it reads.
struct RawCodec<D>(std::marker::PhantomData<D>);

impl<D> RawCodec<D> {
    fn new() -> Self {
        RawCodec(std::marker::PhantomData)
    }
}

struct RawEncoder;

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(
        &mut self,
        item: Vec<u8>,
        buf: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl<D: prost::Message + Default + Send + 'static> tonic::codec::Codec for RawCodec<D> {
    type Encode = Vec<u8>;
    type Decode = D;
    type Encoder = RawEncoder;
    type Decoder = tonic_prost::ProstDecoder<D>;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        tonic_prost::ProstDecoder::default()
    }
}

async fn malformed_protobuf_is_invalid_argument<L: Log>(server: TestServer<L>) {
    let mut grpc = raw_client(server.addr).await;
    let path = "/referee.v1.Referee/CreateGame";
    // Wire type 7 does not exist; field 1 claims 5 bytes and carries 3.
    for bytes in [vec![0x0f], b"\x0a\x05abc".to_vec()] {
        grpc.ready().await.expect("ready");
        let status = grpc
            .unary(
                tonic::Request::new(bytes.clone()),
                tonic::codegen::http::uri::PathAndQuery::from_static(path),
                RawCodec::<proto::CreateGameResponse>::new(),
            )
            .await
            .expect_err("malformed");
        assert_eq!(
            status.code(),
            Code::InvalidArgument,
            "{bytes:?}: {status:?}"
        );
        assert!(
            status.message().starts_with("malformed request: "),
            "{status:?}"
        );
    }
    assert!(server.log.games().await.expect("games").is_empty());
    server.stop().await;
}

async fn a_malformed_message_in_a_play_stream_ends_it_with_invalid_argument<L: Log>(
    server: TestServer<L>,
) {
    let server = setup(server, "m").await;
    let mut grpc = raw_client(server.addr).await;
    let last = server
        .log
        .info("m")
        .await
        .expect("io")
        .expect("game")
        .last_seq;
    let good = proto::PlayRequest {
        game: "m".into(),
        expected_seq: last + 1,
        events: vec![proto::NewEvent {
            event_id: "m-offer".into(),
            event: Some(proto::Event {
                side: "red".into(),
                ts_ms: None,
                kind: Some(proto::event::Kind::DrawOffer(proto::DrawOffer {})),
            }),
        }],
    };
    let messages = vec![prost::Message::encode_to_vec(&good), vec![0x0f]];
    grpc.ready().await.expect("ready");
    let mut replies = grpc
        .streaming(
            tonic::Request::new(tokio_stream::iter(messages)),
            tonic::codegen::http::uri::PathAndQuery::from_static("/referee.v1.Referee/Play"),
            RawCodec::<proto::PlayResponse>::new(),
        )
        .await
        .expect("stream opens")
        .into_inner();
    let first = replies.next().await.expect("a reply").expect("acked");
    assert!(
        matches!(first.outcome, Some(proto::play_response::Outcome::Ack(_))),
        "{first:?}"
    );
    let status = replies
        .next()
        .await
        .expect("the stream ends with a status")
        .expect_err("malformed");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().starts_with("malformed request"),
        "{status:?}"
    );
    assert_eq!(
        server
            .log
            .info("m")
            .await
            .expect("io")
            .expect("game")
            .last_seq,
        last + 1,
        "the good message was stored, the bad one nothing"
    );
    server.stop().await;
}

/// The live cache holds at most its bound of games, but never drops one a console watches
/// (its console keeps being fed by it); a dropped game is replayed from the log when used
/// again, to the same state; ListGames reads summaries without loading games.
#[tokio::test]
async fn the_live_cache_drops_idle_games_but_not_watched_ones() {
    use referee::service::proto::referee_server::Referee as _;
    use referee::service::{CacheLimits, Service};
    use tonic::Request;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = referee::log::SledLog::open(dir.path()).expect("open");
    let limits = CacheLimits {
        max_games: 1,
        idle: Duration::from_secs(3600),
    };
    let service = Service::new(log).with_cache_limits(limits);
    for game in ["a", "b"] {
        let create = proto::CreateGameRequest {
            header: Some(header(game)),
        };
        service
            .create_game(Request::new(create))
            .await
            .expect("create");
    }
    let get = async |game: &str| {
        let request = Request::new(proto::GetGameRequest { game: game.into() });
        service.get_game(request).await.expect("get").into_inner()
    };
    let watch = proto::WatchGameRequest {
        game: "a".into(),
        from_seq: 0,
    };
    let mut console = service
        .watch_game(Request::new(watch))
        .await
        .expect("watch")
        .into_inner();
    let first = tokio::time::timeout(Duration::from_secs(5), console.next()).await;
    assert!(matches!(first, Ok(Some(Ok(_)))), "the header: {first:?}");
    get("b").await;
    assert_eq!(
        service.live_games(),
        2,
        "a is watched: kept beyond the bound"
    );
    let request = append("a", 1, vec![new("a1", mv("red", "h2", "e2"))]);
    service
        .append_events(Request::new(request))
        .await
        .expect("append");
    let event = tokio::time::timeout(Duration::from_secs(5), console.next()).await;
    let event = event.expect("in time").expect("item").expect("ok").item;
    assert!(matches!(event, Some(proto::watch_game_response::Item::Event(e)) if e.seq == 1));
    let before = get("a").await;
    drop(console);
    for _ in 0..100 {
        if service.open_watchers() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    get("b").await;
    assert_eq!(service.live_games(), 1, "a is no longer watched: dropped");
    let list = service
        .list_games(Request::new(proto::ListGamesRequest::default()))
        .await;
    let games = list.expect("list").into_inner().games;
    let a = games.iter().find(|g| g.game == "a").expect("a listed");
    assert_eq!(
        (a.last_seq, a.head_hash.as_str()),
        (1, before.head_hash.as_str())
    );
    assert_eq!(service.live_games(), 1, "listing loads no game");
    assert_eq!(
        get("a").await,
        before,
        "replayed from the log to the same state"
    );
}

/// A game left unused longer than the cache's idle time is dropped (looked for at most once a
/// second), and replayed when used again.
#[tokio::test]
async fn the_live_cache_drops_games_left_idle() {
    use referee::service::proto::referee_server::Referee as _;
    use referee::service::{CacheLimits, Service};
    use tonic::Request;
    let dir = tempfile::tempdir().expect("tempdir");
    let log = referee::log::SledLog::open(dir.path()).expect("open");
    let limits = CacheLimits {
        max_games: 10,
        idle: Duration::from_millis(500),
    };
    let service = Service::new(log).with_cache_limits(limits);
    for game in ["a", "b"] {
        let create = proto::CreateGameRequest {
            header: Some(header(game)),
        };
        service
            .create_game(Request::new(create))
            .await
            .expect("create");
    }
    let get = async |game: &str| {
        let request = Request::new(proto::GetGameRequest { game: game.into() });
        service.get_game(request).await.expect("get").into_inner()
    };
    let before = get("a").await;
    get("b").await;
    assert_eq!(service.live_games(), 2);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    get("b").await;
    assert_eq!(
        service.live_games(),
        1,
        "a, idle for over 500 ms, was dropped"
    );
    assert_eq!(get("a").await, before);
}

/// Tags given to CreateGame are stored with the header, come back from GetGame in their
/// order, and bad ones are refused naming `header.tags` with nothing stored.
async fn tags_are_kept_with_the_header_and_checked<L: Log>(server: TestServer<L>) {
    let mut c = server.client().await;
    let tag = |name: &str, value: &str| proto::Tag {
        name: name.into(),
        value: value.into(),
    };
    let mut tagged = header("t1");
    tagged.tags = vec![
        tag("Event", "2026 national championship"),
        tag("Round", "3"),
        tag("Red", "Hu Ronghua"),
        tag("Black", "Xu Yinchuan"),
    ];
    c.create_game(proto::CreateGameRequest {
        header: Some(tagged.clone()),
    })
    .await
    .expect("create");
    let state = c
        .get_game(proto::GetGameRequest { game: "t1".into() })
        .await
        .expect("get")
        .into_inner();
    assert_eq!(state.header.expect("header").tags, tagged.tags);
    let stored = server
        .log
        .read("t1", 0, Some(0))
        .await
        .expect("read")
        .expect("game");
    assert!(
        stored[0]
            .body
            .contains(r#""tags":{"Event":"2026 national championship","Round":"3","Red":"Hu Ronghua","Black":"Xu Yinchuan"}"#),
        "{}",
        stored[0].body
    );
    for (tags, expected) in [
        (vec![tag("Red", "a"), tag("Red", "b")], "given twice"),
        (vec![tag("Red Player", "a")], "tag name"),
        (vec![tag("Event", "a\nb")], "control character"),
    ] {
        let mut bad = header("t2");
        bad.tags = tags;
        let status = c
            .create_game(proto::CreateGameRequest { header: Some(bad) })
            .await
            .expect_err("bad tags");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(
            status.message().starts_with("header.tags") && status.message().contains(expected),
            "{}",
            status.message()
        );
        assert!(server.log.info("t2").await.expect("info").is_none());
    }
    server.stop().await;
}

/// Both reflection services (v1 for current clients, v1alpha for grpcurl 1.8) list every
/// service the server offers, each other included.
#[tokio::test]
async fn reflection_v1_and_v1alpha_both_list_every_service() {
    use tonic_reflection::pb::{v1, v1alpha};
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(dir.path()).await;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", server.addr))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    let expected = [
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
        "referee.v1.Referee",
    ];

    let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("v1 reflection")
        .into_inner();
    let answer = answers.next().await.expect("an answer").expect("ok");
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("v1: not a service list: {answer:?}");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(names, expected, "v1");

    let mut client = v1alpha::server_reflection_client::ServerReflectionClient::new(channel);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("v1alpha reflection")
        .into_inner();
    let answer = answers.next().await.expect("an answer").expect("ok");
    let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("v1alpha: not a service list: {answer:?}");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(names, expected, "v1alpha");
    server.stop().await;
}

/// The sled log, except that reading one game fails as a failing disk would.
#[derive(Clone)]
struct OneGameUnreadable {
    inner: referee::log::SledLog,
    broken: &'static str,
}

impl referee::log::Log for OneGameUnreadable {
    async fn create(
        &self,
        game: &str,
        header: String,
        writer: &str,
    ) -> Result<Result<referee::log::Record, referee::log::Rejection>, referee::log::Error> {
        self.inner.create(game, header, writer).await
    }

    async fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<referee::log::NewEvent>,
    ) -> Result<Result<referee::log::Appended, referee::log::Rejection>, referee::log::Error> {
        self.inner.append(game, expected_seq, events).await
    }

    async fn read(
        &self,
        game: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<Result<Vec<referee::log::Record>, referee::log::Rejection>, referee::log::Error>
    {
        if game == self.broken {
            return Err(referee::log::Error::Storage(
                "Input/output error (os error 5)".into(),
            ));
        }
        self.inner.read(game, from, to).await
    }

    async fn info(
        &self,
        game: &str,
    ) -> Result<Option<referee::log::GameInfo>, referee::log::Error> {
        self.inner.info(game).await
    }

    async fn games(&self) -> Result<Vec<referee::log::GameInfo>, referee::log::Error> {
        self.inner.games().await
    }

    async fn writable(&self) -> referee::log::Writable {
        self.inner.writable().await
    }

    async fn watch(
        &self,
        game: &str,
        from: u64,
    ) -> Result<
        Result<
            impl tokio_stream::Stream<Item = Result<referee::log::Record, referee::log::Error>>
            + Send
            + 'static,
            referee::log::Rejection,
        >,
        referee::log::Error,
    > {
        self.inner.watch(game, from).await
    }
}

#[tokio::test]
async fn list_games_lists_every_game_when_one_cannot_be_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = OneGameUnreadable {
        inner: referee::log::SledLog::open(dir.path()).expect("open"),
        broken: "b",
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let service = referee::service::Service::new(log);
    let server = tokio::spawn(referee::service::serve_on(listener, service, async {
        let _ = stopped.await;
    }));
    let mut c = proto::referee_client::RefereeClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    for id in ["a", "b", "c"] {
        c.create_game(proto::CreateGameRequest {
            header: Some(header(id)),
        })
        .await
        .expect("create");
    }
    let listed = c
        .list_games(proto::ListGamesRequest::default())
        .await
        .expect("one unreadable game does not fail the list")
        .into_inner();
    let damage: Vec<(&str, Option<&str>)> = listed
        .games
        .iter()
        .map(|g| (g.game.as_str(), g.damage.as_deref()))
        .collect();
    assert_eq!(
        damage,
        [
            ("a", None),
            ("b", Some("storage: Input/output error (os error 5)")),
            ("c", None)
        ]
    );
    let served = c
        .get_game(proto::GetGameRequest { game: "c".into() })
        .await
        .expect("the other games are served");
    assert_eq!(served.into_inner().seq, 0);
    let _ = stop.send(());
    server.await.expect("join").expect("serve");
}

fn stone(side: &str, to: &str) -> proto::Event {
    mv(side, "", to)
}

/// Issue 19's "done when": a renju game streams through `Play`, a board's stone with a
/// `from` is refused naming the field, and black's double-three claimed by white in time is
/// ruled a loss with the shape named.
async fn a_renju_game_streams_through_play_and_a_claimed_double_three_loses<L: Log>(
    server: TestServer<L>,
) {
    let mut c = server.client().await;
    let header = proto::GameHeader {
        variant: "renju".into(),
        id: "r".into(),
        ..Default::default()
    };
    c.create_game(proto::CreateGameRequest {
        header: Some(header),
    })
    .await
    .expect("create");
    let mut messages: Vec<proto::PlayRequest> = crate::common::RENJU_DOUBLE_THREE
        .iter()
        .zip(1u64..)
        .map(|(&(side, to), seq)| proto::PlayRequest {
            game: if seq == 1 { "r".into() } else { String::new() },
            expected_seq: seq,
            events: vec![new(&format!("e{seq}"), stone(side, to))],
        })
        .collect();
    let moved = proto::PlayRequest {
        game: String::new(),
        expected_seq: 10,
        events: vec![new("bad", mv("white", "a15", "b15"))],
    };
    let claim = proto::Event {
        side: "white".into(),
        ts_ms: None,
        kind: Some(Kind::Claim(proto::Claim {
            claim: "forbidden".into(),
        })),
    };
    messages.push(moved);
    messages.push(proto::PlayRequest {
        game: String::new(),
        expected_seq: 10,
        events: vec![new("e10", claim)],
    });
    let outcomes = play_all(&mut c, messages).await;
    use proto::play_response::Outcome;
    assert_eq!(outcomes.len(), 11);
    for (outcome, seq) in outcomes[..9].iter().zip(1u64..) {
        assert!(
            matches!(outcome, Outcome::Ack(a) if a.seqs == vec![seq]),
            "{outcome:?}"
        );
    }
    assert!(
        matches!(&outcomes[9], Outcome::Refusal(r) if r.code == "INVALID_ARGUMENT"
            && r.message.contains("move.from")
            && r.message.contains("no \"from\"")),
        "{:?}",
        outcomes[9]
    );
    assert!(matches!(&outcomes[10], Outcome::Ack(a) if a.seqs == vec![10]));
    let state = c
        .get_game(proto::GetGameRequest { game: "r".into() })
        .await
        .expect("get")
        .into_inner();
    assert_eq!(state.seq, 10, "the refused stone left nothing behind");
    assert_eq!(state.result.as_deref(), Some("0-1"));
    let kinds: Vec<(u64, &str, &str)> = state
        .rulings
        .iter()
        .map(|r| (r.at, r.kind.as_str(), r.effect.as_str()))
        .collect();
    assert_eq!(kinds, [(9, "forbidden", "none"), (10, "forbidden", "loss")]);
    let ruled = &state.rulings[1];
    assert_eq!(ruled.rule, "renju 3.1, 4.1");
    for words in [
        "double-three",
        "three f8 g8 h8",
        "three f8 g9 h10",
        "straight four at e8 or i8",
    ] {
        assert!(ruled.text.contains(words), "{words}: {}", ruled.text);
    }
    assert_eq!(ruled.evidence, [1, 3, 5, 7, 9, 10]);
    server.stop().await;
}
