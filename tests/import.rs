//! ImportGame: a record imported through the running service (no second opening of the
//! store), to the same games as `referee import`; bad records refused naming the line and
//! the move, with nothing stored; access control as for CreateGame.

use std::process::Command;

use referee::log::Log;
use referee::records;
use referee::referee::replay;
use referee::service::proto;
use tonic::{Code, Request};

use crate::common::issue;
use crate::common::{TestServer, repo_path};

fn original(name: &str) -> Vec<u8> {
    std::fs::read(repo_path("tests/data/xiangqi/ccpd/original").join(name)).expect("record")
}

fn request(name: &str, record: Vec<u8>) -> proto::ImportGameRequest {
    proto::ImportGameRequest {
        record,
        name: name.into(),
        ..Default::default()
    }
}

async fn game_ids(server: &TestServer) -> Vec<String> {
    let mut client = server.client().await;
    let listed = client
        .list_games(proto::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner();
    listed.games.into_iter().map(|g| g.game).collect()
}

#[tokio::test]
async fn a_big5_record_imports_while_the_server_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(dir.path()).await;
    let mut client = server.client().await;
    let name = "world_mind_sports_games_00000056.pgn";
    let bytes = original(name);
    let reply = client
        .import_game(request(name, bytes.clone()))
        .await
        .expect("import")
        .into_inner();
    let id = "world_mind_sports_games_00000056";
    assert_eq!(reply.games, [id]);
    // The same games as the CLI's path, replayed alike by the service.
    let expected = records::read(name, &bytes, None, None).expect("read");
    let folded = replay(&expected[0].header, &expected[0].events).expect("replay");
    let state = client
        .get_game(proto::GetGameRequest { game: id.into() })
        .await
        .expect("get")
        .into_inner();
    assert_eq!(state.seq, u64::try_from(expected[0].events.len()).unwrap());
    assert_eq!(state.fen, folded.fen());
    assert_eq!(state.result.as_deref(), Some("0-1"));
    assert_eq!(state.rulings.len(), folded.rulings().len());
    let header = state.header.expect("header");
    assert!(
        header
            .tags
            .iter()
            .any(|t| t.name == "Red" && t.value == "俄羅斯 得民．阿")
    );
    // A second import of the same record is refused: the game exists.
    let again = client
        .import_game(request(name, bytes))
        .await
        .expect_err("exists");
    assert_eq!(again.code(), Code::AlreadyExists, "{again:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_bad_record_is_refused_at_its_line_and_nothing_is_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(dir.path()).await;
    let mut client = server.client().await;
    // Two games: the first reads, the second's fourth move is no legal move.
    let record = "[Game \"Chinese Chess\"]\n1. 炮二平五 马8进7 *\n\n\
                  [Game \"Chinese Chess\"]\n1. 炮二平五 马8进7\n2. 马二进三 车9平8\n\
                  3. 车一平二 车8进10 *\n";
    let refused = client
        .import_game(request("two.pgn", record.as_bytes().to_vec()))
        .await
        .expect_err("bad move");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(
        refused.message(),
        "two.pgn: line 7: \"车8进10\" is not a move, move number or result"
    );
    let illegal = "[Game \"Chinese Chess\"]\n1. 炮二平五 马8进7 *\n\n\
                   [Game \"Chinese Chess\"]\n1. 炮二平五 马8进7\n2. 马二进四 *\n";
    let refused = client
        .import_game(request("two.pgn", illegal.as_bytes().to_vec()))
        .await
        .expect_err("illegal move");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(
        refused.message(),
        "two.pgn: line 6: move 2 of red, \"马二进四\": illegal: horse h0 to f1 is blocked at g0"
    );
    let bad_format = proto::ImportGameRequest {
        format: "sgf".into(),
        ..request("two.pgn", illegal.as_bytes().to_vec())
    };
    let refused = client.import_game(bad_format).await.expect_err("format");
    assert_eq!(
        refused.message(),
        "format: \"sgf\" is not log, pdn, pgn or renju"
    );
    assert!(game_ids(&server).await.is_empty(), "nothing stored");
    // The same file with only its first game.
    let first = proto::ImportGameRequest {
        game: 1,
        ..request("two.pgn", illegal.as_bytes().to_vec())
    };
    let reply = client.import_game(first).await.expect("first game");
    assert_eq!(reply.into_inner().games, ["two-1"]);
    assert_eq!(game_ids(&server).await, ["two-1"]);
    server.stop().await;
}

fn with<T>(token: &str, message: T) -> Request<T> {
    let mut r = Request::new(message);
    let value = format!("Bearer {token}").parse().expect("ascii");
    r.metadata_mut().insert("authorization", value);
    r
}

#[tokio::test]
async fn importing_needs_the_right_to_create_the_games() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let arbiter = issue(
        d,
        &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
    );
    let board = issue(
        d,
        &[
            "--id", "b1", "--role", "board", "--game", "open-r1", "--side", "both",
        ],
    );
    let server = TestServer::start_with_tokens(d).await;
    let mut client = server.client().await;
    let record = original("world_mind_sports_games_00000056.pgn");
    for (token, name) in [(&board, "open-r1.pgn"), (&arbiter, "other-r1.pgn")] {
        let refused = client
            .import_game(with(token, request(name, record.clone())))
            .await
            .expect_err("not allowed");
        assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    }
    let refused = client
        .import_game(request("open-r1.pgn", record.clone()))
        .await
        .expect_err("no token");
    assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
    let reply = client
        .import_game(with(&arbiter, request("open-r1.pgn", record)))
        .await
        .expect("the arbiter of the tournament imports");
    assert_eq!(reply.into_inner().games, ["open-r1"]);
    let stored = server
        .log
        .read("open-r1", 1, Some(1))
        .await
        .expect("read")
        .expect("game");
    assert_eq!(stored[0].writer, "token arb");
    server.stop().await;
}

/// Runs `referee ARGS` off the test's runtime (the server under test shares it), with
/// `REFEREE_TOKEN` set to `token` or unset.
async fn referee_cli(args: Vec<String>, token: Option<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_referee"));
        command.args(&args).env_remove("REFEREE_TOKEN");
        if let Some(token) = token {
            command.env("REFEREE_TOKEN", token);
        }
        command.output().expect("run referee")
    })
    .await
    .expect("join")
}

/// `referee import --server URL` sends the file to the running server's ImportGame: the
/// token from --token-file or REFEREE_TOKEN, the server's refusals as the CLI's errors.
#[tokio::test]
async fn the_cli_imports_through_a_running_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let arbiter = issue(
        d,
        &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
    );
    let server = TestServer::start_with_tokens(d).await;
    let url = format!("http://{}", server.addr);
    let file = d.join("open-r1.pgn");
    std::fs::write(&file, original("world_mind_sports_games_00000056.pgn")).expect("write");
    let token_file = d.join("token");
    std::fs::write(&token_file, format!("{arbiter}\n")).expect("write");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();

    let out = referee_cli(
        vec!["import".into(), path(&file), "--server".into(), url.clone()],
        None,
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Unauthenticated"),
        "{out:?}"
    );

    let out = referee_cli(
        vec![
            "import".into(),
            path(&file),
            "--server".into(),
            url.clone(),
            "--token-file".into(),
            path(&token_file),
        ],
        None,
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "open-r1\n");
    let stored = server
        .log
        .info("open-r1")
        .await
        .expect("info")
        .expect("stored");
    let record = original("world_mind_sports_games_00000056.pgn");
    let expected = records::read("open-r1.pgn", &record, None, None).expect("read");
    assert_eq!(
        stored.last_seq,
        u64::try_from(expected[0].events.len()).unwrap(),
        "every event stored"
    );

    let bad = d.join("open-r2.pgn");
    std::fs::write(
        &bad,
        "[Game \"Chinese Chess\"]\n1. 炮二平五 炮8平5\n2. 馬二進四 *\n",
    )
    .expect("write");
    let out = referee_cli(
        vec!["import".into(), path(&bad), "--server".into(), url.clone()],
        Some(arbiter.clone()),
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("open-r2.pgn: line 3") && message.contains("馬二進四"),
        "{message}"
    );
    assert!(server.log.info("open-r2").await.expect("info").is_none());

    let https = format!("https://{}", server.addr);
    let out = referee_cli(
        vec!["import".into(), path(&bad), "--server".into(), https],
        Some(arbiter),
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--ca-cert"),
        "{out:?}"
    );
    server.stop().await;
}
