//! Access control over gRPC: tokens issued by the CLI; unauthenticated and out-of-scope calls
//! are refused and change nothing; every event records the token that wrote it.

use std::process::Command;

use referee::log::Log;
use referee::service::proto::{self, event::Kind, referee_client::RefereeClient};
use tonic::transport::Channel;
use tonic::{Code, Request};

use crate::common::TestServer;
use crate::common::issue;

/// Runs `referee token ARGS --data DATA`.
fn token(data: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .arg("token")
        .args(args)
        .args(["--data", data.to_str().expect("utf-8")])
        .output()
        .expect("run")
}

fn header(id: &str) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        header: Some(proto::GameHeader {
            variant: "xiangqi".into(),
            id: id.into(),
            ..Default::default()
        }),
    }
}

fn with<T>(token: &str, message: T) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    r
}

fn append(side: &str, seq: u64, from: &str, to: &str) -> proto::AppendEventsRequest {
    let event = proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(Kind::Move(proto::Move {
            from: from.into(),
            to: to.into(),
            ..Default::default()
        })),
    };
    proto::AppendEventsRequest {
        game: "open-r1-b1".into(),
        expected_seq: seq,
        events: vec![proto::NewEvent {
            event_id: format!("e{seq}"),
            event: Some(event),
        }],
    }
}

async fn code<T: std::fmt::Debug>(r: Result<tonic::Response<T>, tonic::Status>) -> Code {
    r.map_or_else(|s| s.code(), |_| Code::Ok)
}

#[tokio::test]
async fn tokens_confine_boards_arbiters_and_auditors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let arbiter = issue(
        d,
        &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
    );
    let red = issue(
        d,
        &[
            "--id",
            "board1-red",
            "--role",
            "board",
            "--game",
            "open-r1-b1",
            "--side",
            "red",
        ],
    );
    let auditor = issue(d, &["--id", "fed", "--role", "auditor"]);
    let server = TestServer::start_with_tokens(d).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    let header = |id: &str| proto::CreateGameRequest {
        header: Some(proto::GameHeader {
            variant: "xiangqi".into(),
            id: id.into(),
            ..Default::default()
        }),
    };

    assert_eq!(
        code(c.create_game(header("open-r1-b1")).await).await,
        Code::Unauthenticated
    );
    assert_eq!(
        code(
            c.create_game(with("rt_nobody_00", header("open-r1-b1")))
                .await
        )
        .await,
        Code::Unauthenticated
    );
    assert_eq!(
        code(c.create_game(with(&red, header("open-r1-b1"))).await).await,
        Code::PermissionDenied
    );
    assert_eq!(
        code(c.create_game(with(&arbiter, header("elsewhere-1"))).await).await,
        Code::PermissionDenied
    );
    assert_eq!(
        code(c.create_game(with(&arbiter, header("open-r1-b1"))).await).await,
        Code::Ok
    );

    assert_eq!(
        code(c.append_events(append("red", 1, "h2", "e2")).await).await,
        Code::Unauthenticated
    );
    assert_eq!(
        code(
            c.append_events(with(&red, append("black", 1, "h9", "g7")))
                .await
        )
        .await,
        Code::PermissionDenied
    );
    assert_eq!(
        code(
            c.append_events(with(&auditor, append("red", 1, "h2", "e2")))
                .await
        )
        .await,
        Code::PermissionDenied
    );
    assert_eq!(
        code(
            c.append_events(with(&arbiter, append("red", 1, "h2", "e2")))
                .await
        )
        .await,
        Code::PermissionDenied
    );
    assert_eq!(
        server
            .log
            .info("open-r1-b1")
            .await
            .expect("info")
            .expect("game")
            .last_seq,
        0,
        "refused calls wrote nothing"
    );
    assert_eq!(
        code(
            c.append_events(with(&red, append("red", 1, "h2", "e2")))
                .await
        )
        .await,
        Code::Ok
    );

    let get = || proto::GetGameRequest {
        game: "open-r1-b1".into(),
    };
    assert_eq!(code(c.get_game(get()).await).await, Code::Unauthenticated);
    assert_eq!(
        code(c.get_game(with(&auditor, get())).await).await,
        Code::Ok
    );
    let listed = c
        .list_games(with(&auditor, proto::ListGamesRequest::default()))
        .await
        .expect("list")
        .into_inner();
    assert_eq!(listed.games.len(), 1);
    let record = &server
        .log
        .read("open-r1-b1", 1, Some(1))
        .await
        .expect("read")
        .expect("game")[0];
    assert_eq!(
        record.writer, "token board1-red",
        "each event records the token that wrote it"
    );
    server.stop().await;
}

/// Waits until a running server looks at its token files again: a change made by another
/// process (`referee token`, an operator's editor) is read within `SERVER_RECHECK`.
async fn recheck() {
    tokio::time::sleep(referee::access::SERVER_RECHECK + std::time::Duration::from_millis(20))
        .await;
}

/// Every call the test makes without a token, or with the revoked arbiter token, refused as
/// unauthenticated with a message saying what to do.
async fn refused_as_revoked(c: &mut RefereeClient<Channel>, arbiter: &str) {
    let calls = [
        c.create_game(header("open-r1-b2")).await.map(drop),
        c.create_game(with(arbiter, header("open-r1-b2")))
            .await
            .map(drop),
        c.append_events(append("red", 1, "h2", "e2"))
            .await
            .map(drop),
        c.append_events(with(arbiter, append("red", 1, "h2", "e2")))
            .await
            .map(drop),
    ];
    for call in calls {
        let status = call.expect_err("refused");
        assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
        assert!(
            status.message().contains("holds no token")
                && status.message().contains("`referee token off`"),
            "{status:?}"
        );
    }
}

#[tokio::test]
async fn an_emptied_or_deleted_token_file_refuses_every_call_until_token_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let tokens = d.join(referee::access::TOKEN_FILE);
    let arbiter = issue(
        d,
        &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
    );
    let server = TestServer::start_with_tokens(d).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    assert_eq!(
        code(c.create_game(with(&arbiter, header("open-r1-b1"))).await).await,
        Code::Ok
    );
    for how in ["emptied", "deleted"] {
        match how {
            "emptied" => std::fs::write(&tokens, "").expect("empty"),
            _ => std::fs::remove_file(&tokens).expect("delete"),
        }
        recheck().await;
        refused_as_revoked(&mut c, &arbiter).await;
        let info = async |game: &str| server.log.info(game).await.expect("info");
        assert!(info("open-r1-b2").await.is_none(), "{how}: no game created");
        let last_seq = info("open-r1-b1").await.expect("game").last_seq;
        assert_eq!(last_seq, 0, "{how}: no event appended");
    }

    issue(d, &["--id", "fed", "--role", "auditor"]);
    let refused = token(d, &["off"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("(fed)") && stderr.contains("revoke them first"),
        "{stderr}"
    );
    assert_eq!(
        code(c.create_game(header("open-r1-b2")).await).await,
        Code::Unauthenticated,
        "a refused `token off` leaves access control on"
    );

    std::fs::write(&tokens, "").expect("empty");
    let off = token(d, &["off"]);
    assert!(
        off.status.success(),
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
    recheck().await;
    assert_eq!(
        code(c.create_game(header("open-r1-b2")).await).await,
        Code::Ok
    );
    assert_eq!(
        code(c.append_events(append("red", 1, "h2", "e2")).await).await,
        Code::Ok
    );
    server.stop().await;
}

#[tokio::test]
async fn a_server_with_no_token_ever_issued_needs_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start_with_tokens(dir.path()).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    assert_eq!(
        code(c.create_game(header("open-r1-b1")).await).await,
        Code::Ok
    );
    assert_eq!(
        code(c.append_events(append("red", 1, "h2", "e2")).await).await,
        Code::Ok
    );
    assert!(
        !dir.path().join(referee::access::MARKER_FILE).exists(),
        "no token issued, so access control was never turned on"
    );
    server.stop().await;
}

/// `request` with `authorization` set to exactly `value`.
fn authorized<T>(value: &str, message: T) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut()
        .insert("authorization", value.parse().expect("ascii"));
    r
}

/// The scheme in any case (RFC 9110 11.1: auth schemes are case-insensitive), then exactly
/// one space and the token.
#[tokio::test]
async fn only_bearer_one_space_token_is_accepted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let auditor = issue(dir.path(), &["--id", "fed", "--role", "auditor"]);
    let server = TestServer::start_with_tokens(dir.path()).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    let list = proto::ListGamesRequest::default;
    for good in [
        format!("Bearer {auditor}"),
        format!("bearer {auditor}"),
        format!("BEARER {auditor}"),
    ] {
        let answer = c.list_games(authorized(&good, list())).await;
        assert!(answer.is_ok(), "{good:?}: {answer:?}");
    }
    for bad in [
        auditor.clone(),
        format!("Bearer  {auditor}"),
        format!("Bearer {auditor} "),
        format!("Bearerx{auditor}"),
        format!("Bearer\t{auditor}"),
        format!("Basic {auditor}"),
    ] {
        let status = c
            .list_games(authorized(&bad, list()))
            .await
            .expect_err(&format!("{bad:?} must be refused"));
        assert_eq!(status.code(), Code::Unauthenticated, "{bad:?}");
        assert!(
            status
                .message()
                .contains("send exactly \"authorization: Bearer <token>\""),
            "{bad:?}: {}",
            status.message()
        );
    }
    server.stop().await;
}

#[test]
fn the_console_parses_its_authorization_header_the_same_way() {
    use crate::common::http::request;
    use crate::common::process::ServeProcess;

    let dir = tempfile::tempdir().expect("tempdir");
    let auditor = issue(
        &dir.path().join("data"),
        &["--id", "fed", "--role", "auditor"],
    );
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let get = |value: &str| {
        request(
            &console,
            "GET",
            "/api/games",
            &[("Authorization", value)],
            "",
        )
        .expect("console answers")
    };
    assert_eq!(get(&format!("Bearer {auditor}")).status, 200);
    assert_eq!(get(&format!("bearer {auditor}")).status, 200);
    for bad in [auditor.clone(), format!("Bearer  {auditor}")] {
        let answer = get(&bad);
        assert_eq!(answer.status, 401, "{bad:?}: {}", answer.body);
        assert!(answer.body.contains("Bearer <token>"), "{}", answer.body);
    }
}

/// The status of a ListGames call made with `token`.
async fn list_with(c: &mut RefereeClient<Channel>, token: &str) -> Result<(), tonic::Status> {
    c.list_games(with(token, proto::ListGamesRequest::default()))
        .await
        .map(drop)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn a_token_revoked_while_the_server_runs_is_refused_within_a_second() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let fed = issue(d, &["--id", "fed", "--role", "auditor"]);
    let other = issue(d, &["--id", "other", "--role", "auditor"]);
    let server = TestServer::start_with_tokens(d).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    list_with(&mut c, &fed).await.expect("valid before");

    let revoked = token(d, &["revoke", "fed"]);
    assert!(revoked.status.success(), "{}", stderr(&revoked));
    recheck().await;
    let status = list_with(&mut c, &fed).await.expect_err("revoked");
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert!(
        status
            .message()
            .starts_with("token \"fed\" was revoked on 20"),
        "{status:?}"
    );
    list_with(&mut c, &other).await.expect("others stay valid");

    let again = token(d, &["revoke", "fed"]);
    assert_eq!(again.status.code(), Some(0), "revoking twice is reported");
    assert!(
        stderr(&again).contains("was revoked already"),
        "{}",
        stderr(&again)
    );
    let unknown = token(d, &["revoke", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("no token with id \"nobody\" was issued"));
    server.stop().await;
}

#[tokio::test]
async fn an_expired_token_is_refused_by_a_running_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let now = std::time::SystemTime::now();
    let expires = now + std::time::Duration::from_secs(2);
    let secs = expires
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let stamp = referee::access::expiry::render(secs * 1000);
    let fed = issue(
        d,
        &["--id", "fed", "--role", "auditor", "--expires", &stamp],
    );
    let server = TestServer::start_with_tokens(d).await;
    let mut c: RefereeClient<Channel> = server.client().await;
    let before = list_with(&mut c, &fed).await;
    // Asserted only when the call certainly came before the expiry (a stalled machine may
    // take longer); the unit tests check both sides against a fixed clock.
    if std::time::SystemTime::now() + std::time::Duration::from_millis(500) < expires {
        before.expect("valid before its expiry");
    }
    while std::time::SystemTime::now() < expires + std::time::Duration::from_millis(1100) {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let status = list_with(&mut c, &fed).await.expect_err("expired");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert_eq!(
        status.message(),
        format!("token \"fed\" expired on {stamp}")
    );
    server.stop().await;
}

#[test]
fn token_list_shows_states_and_issue_refuses_a_bad_expiry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    issue(d, &["--id", "fed", "--role", "auditor"]);
    issue(
        d,
        &[
            "--id",
            "arb",
            "--role",
            "arbiter",
            "--tournament",
            "2026-ch-",
        ],
    );
    issue(
        d,
        &[
            "--id",
            "b1",
            "--role",
            "board",
            "--game",
            "2026-ch-r1-b1",
            "--side",
            "red",
            "--expires",
            "2099-12-31",
        ],
    );
    assert!(token(d, &["revoke", "arb"]).status.success());
    let listed = token(d, &["list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = String::from_utf8(listed.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    let words = |i: usize| lines[i].split_whitespace().collect::<Vec<_>>();
    assert_eq!(words(0), ["ID", "ROLE", "SCOPE", "SIDE", "STATE"]);
    assert_eq!(words(1), ["fed", "auditor", "all", "games", "-", "active"]);
    assert_eq!(words(2)[..5], ["arb", "arbiter", "games", "2026-ch-*", "-"]);
    assert!(lines[2].contains(" revoked 20"), "{text}");
    assert_eq!(
        words(3),
        [
            "b1",
            "board",
            "game",
            "2026-ch-r1-b1",
            "first",
            "active,",
            "expires",
            "2100-01-01T00:00:00Z"
        ]
    );

    for (expires, says) in [
        ("2020-01-01", "has passed already"),
        ("2026-02-30", "day 30 does not exist"),
        ("tomorrow", "is not a date"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["token", "issue", "--data", d.to_str().expect("utf-8")])
            .args(["--id", "late", "--role", "auditor", "--expires", expires])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{expires}");
        assert!(stderr(&out).contains(says), "{expires}: {}", stderr(&out));
    }
    let after = String::from_utf8(token(d, &["list"]).stdout).expect("utf-8");
    assert_eq!(after, text, "a refused issue changes nothing");
}

/// `referee token ARGS --data DATA` as `nobody` (uid 65534), as `sudo -u referee` would.
fn token_as_nobody(data: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_referee"))
        .arg("token")
        .args(args)
        .args(["--data", data.to_str().expect("utf-8")])
        .output()
        .expect("run setpriv")
}

#[test]
fn token_files_are_written_for_the_user_that_runs_the_server() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: needs root and setpriv to play the service user");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let service = dir.path().join("service");
    std::fs::create_dir(&service).expect("mkdir");
    std::os::unix::fs::chown(&service, Some(65_534), Some(65_534)).expect("chown");
    let data = service.join("data");

    // Root issues into the service user's directory: the files are given to that user, who
    // can then list (and so serve) them.
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "token", "issue", "--id", "fed", "--role", "auditor", "--data",
        ])
        .arg(&data)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("given to user \"nobody\""),
        "{}",
        stderr(&out)
    );
    let listed = token_as_nobody(&data, &["list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));

    // A token file left to root (an older version): the service user is told whose it is.
    let tokens = data.join(referee::access::TOKEN_FILE);
    std::os::unix::fs::chown(&tokens, Some(0), Some(0)).expect("chown");
    let refused = token_as_nobody(&data, &["list"]);
    assert_eq!(refused.status.code(), Some(1));
    let says = stderr(&refused);
    assert!(
        says.contains("belongs to root") && says.contains("sudo -u USER"),
        "{says}"
    );

    // Another user than the directory's owner is refused before anything is written.
    let roots = dir.path().join("roots");
    let refused = token_as_nobody(&roots, &["issue", "--id", "x", "--role", "auditor"]);
    assert_eq!(refused.status.code(), Some(2));
    let says = stderr(&refused);
    assert!(
        says.contains("belongs to root") && says.contains("runs as nobody"),
        "{says}"
    );
    assert!(!roots.exists());
}
