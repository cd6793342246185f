//! Limits per token: open streams and request rate. Each refusal is RESOURCE_EXHAUSTED naming
//! the limit, other tokens are unaffected, and nothing already written is lost.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use referee::log::Log;
use referee::service::Limits;
use referee::service::proto::{self, event::Kind, play_response::Outcome};
use tokio_stream::StreamExt;
use tonic::{Code, Request};

use crate::common::TestServer;
use crate::common::issue;

fn with<T>(token: &str, message: T) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    r
}

/// White's and black's knight moves out and back: legal forever in xiangqi.
fn shuffle_move(seq: u64) -> proto::NewEvent {
    let (side, from, to) = match seq % 4 {
        1 => ("red", "b0", "c2"),
        2 => ("black", "b9", "c7"),
        3 => ("red", "c2", "b0"),
        _ => ("black", "c7", "b9"),
    };
    proto::NewEvent {
        event_id: format!("e{seq}"),
        event: Some(proto::Event {
            side: side.into(),
            ts_ms: None,
            kind: Some(Kind::Move(proto::Move {
                from: from.into(),
                to: to.into(),
                ..Default::default()
            })),
        }),
    }
}

fn append(game: &str, seq: u64) -> proto::AppendEventsRequest {
    proto::AppendEventsRequest {
        game: game.into(),
        expected_seq: seq,
        events: vec![shuffle_move(seq)],
    }
}

struct Setup {
    arbiter: String,
    board: String,
    other_board: String,
}

fn setup(d: &Path) -> Setup {
    Setup {
        arbiter: issue(
            d,
            &["--id", "arb", "--role", "arbiter", "--tournament", "lim-"],
        ),
        board: issue(
            d,
            &[
                "--id", "b1", "--role", "board", "--game", "lim-1", "--side", "both",
            ],
        ),
        other_board: issue(
            d,
            &[
                "--id", "b2", "--role", "board", "--game", "lim-2", "--side", "both",
            ],
        ),
    }
}

async fn create(server: &TestServer, token: &str, game: &str) {
    let header = proto::GameHeader {
        variant: "xiangqi".into(),
        id: game.into(),
        ..Default::default()
    };
    server
        .client()
        .await
        .create_game(with(
            token,
            proto::CreateGameRequest {
                header: Some(header),
            },
        ))
        .await
        .expect("create");
}

#[tokio::test]
async fn a_token_over_its_request_rate_is_refused_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = setup(dir.path());
    let limits = Limits {
        max_streams_per_token: 8,
        rate_per_token: 0.5,
        burst_per_token: 5,
    };
    let server = TestServer::start_with_limits(dir.path(), limits).await;
    create(&server, &t.arbiter, "lim-1").await;
    create(&server, &t.arbiter, "lim-2").await;
    let mut c = server.client().await;
    for seq in 1..=5 {
        c.append_events(with(&t.board, append("lim-1", seq)))
            .await
            .expect("within the burst");
    }
    let refused = c
        .append_events(with(&t.board, append("lim-1", 6)))
        .await
        .expect_err("over the rate");
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert!(
        refused.message().contains("request rate limit") && refused.message().contains("\"b1\""),
        "{}",
        refused.message()
    );
    let info = server.log.info("lim-1").await.expect("info").expect("game");
    assert_eq!(
        info.last_seq, 5,
        "every acknowledged event stays, nothing more is added"
    );
    let events = server
        .log
        .read("lim-1", 1, None)
        .await
        .expect("read")
        .expect("game");
    assert_eq!(events.len(), 5);
    c.append_events(with(&t.other_board, append("lim-2", 1)))
        .await
        .expect("another token has its own bucket");

    // In a Play stream an over-rate message is refused and the stream stays open.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut acks = c
        .play(with(
            &t.other_board,
            tokio_stream::wrappers::ReceiverStream::new(rx),
        ))
        .await
        .expect("stream")
        .into_inner();
    let mut outcomes = Vec::new();
    for seq in 2..=6 {
        tx.send(proto::PlayRequest {
            game: "lim-2".into(),
            expected_seq: seq,
            events: vec![shuffle_move(seq)],
        })
        .await
        .expect("send");
        let reply = acks.next().await.expect("reply").expect("ok");
        outcomes.push(reply.outcome.expect("outcome"));
    }
    let refusals: Vec<&proto::Refusal> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Refusal(r) => Some(r),
            Outcome::Ack(_) => None,
        })
        .collect();
    assert!(
        !refusals.is_empty(),
        "the burst of 5 is spent by now: {outcomes:?}"
    );
    assert!(
        refusals.iter().all(|r| r.code == "RESOURCE_EXHAUSTED"),
        "{refusals:?}"
    );
    let acked = outcomes.len() - refusals.len();
    let info = server.log.info("lim-2").await.expect("info").expect("game");
    assert_eq!(
        info.last_seq,
        1 + u64::try_from(acked).expect("small"),
        "exactly the acknowledged events are stored"
    );
    drop(tx);
    server.stop().await;
}

#[tokio::test]
async fn a_token_may_hold_only_so_many_streams() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = setup(dir.path());
    let limits = Limits {
        max_streams_per_token: 2,
        ..Limits::NONE
    };
    let server = TestServer::start_with_limits(dir.path(), limits).await;
    create(&server, &t.arbiter, "lim-1").await;
    let mut c = server.client().await;
    let watch = |token: &str| {
        with(
            token,
            proto::WatchGameRequest {
                game: "lim-1".into(),
                from_seq: 0,
            },
        )
    };
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut play = c
        .play(with(
            &t.board,
            tokio_stream::wrappers::ReceiverStream::new(rx),
        ))
        .await
        .expect("first stream")
        .into_inner();
    tx.send(proto::PlayRequest {
        game: "lim-1".into(),
        expected_seq: 1,
        events: vec![shuffle_move(1)],
    })
    .await
    .expect("send");
    assert!(matches!(
        play.next().await.expect("ack").expect("ok").outcome,
        Some(Outcome::Ack(_))
    ));
    let second = c.watch_game(watch(&t.board)).await.expect("second stream");
    let refused = c
        .watch_game(watch(&t.board))
        .await
        .expect_err("a third stream");
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert!(
        refused.message().contains("max-streams-per-token"),
        "{}",
        refused.message()
    );
    c.watch_game(watch(&t.arbiter))
        .await
        .expect("another token is not affected");

    // Closing a stream frees its place.
    drop(second);
    let mut reopened = None;
    for _ in 0..50 {
        match c.watch_game(watch(&t.board)).await {
            Ok(s) => {
                reopened = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(reopened.is_some(), "a closed stream's place is given back");
    let info = server.log.info("lim-1").await.expect("info").expect("game");
    assert_eq!(info.last_seq, 1, "the acknowledged event is kept");
    drop(tx);
    server.stop().await;
}

#[test]
fn serve_refuses_limits_that_would_let_a_token_do_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    for flag in [
        "--rate-per-token",
        "--burst-per-token",
        "--max-streams-per-token",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data"])
            .arg(dir.path())
            .args([flag, "0"])
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} 0: {stderr}");
        assert!(stderr.contains("must be positive"), "{stderr}");
    }
}
