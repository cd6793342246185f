//! The audit calls over gRPC and the tournament export: who may call them, and that they
//! give the same bundles, tables and reports as `referee audit`.

use std::path::Path;

use referee::audit;
use referee::service::proto::{self, referee_client::RefereeClient};
use tonic::transport::Channel;
use tonic::{Code, Request};

use crate::common::TestServer;
use crate::common::referee;

fn run_ok(args: &[&str]) -> String {
    let out = referee(args);
    assert!(
        out.status.success(),
        "referee {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Three games of the event `open-` (a decided xiangqi game, a drawn chess_gjq game, an
/// unfinished draughts game) and one game of another event, imported into `data`.
fn seed(data: &Path) {
    let logs = [
        (
            "open-r1-b1",
            r#"{"type":"game","variant":"xiangqi","id":"open-r1-b1"}
{"type":"move","side":"red","from":"h2","to":"e2"}
{"type":"resign","side":"black"}"#,
        ),
        (
            "open-r1-b2",
            r#"{"type":"game","variant":"chess_gjq","id":"open-r1-b2"}
{"type":"draw_offer","side":"white"}
{"type":"draw_reply","side":"black","accept":true}"#,
        ),
        (
            "open-r1-b3",
            r#"{"type":"game","variant":"draughts","id":"open-r1-b3"}
{"type":"move","side":"white","from":32,"to":28}"#,
        ),
        (
            "other-r1-b1",
            r#"{"type":"game","variant":"xiangqi","id":"other-r1-b1"}
{"type":"resign","side":"red"}"#,
        ),
    ];
    let d = data.to_str().expect("utf-8");
    for (name, text) in logs {
        let file = data.join(format!("{name}.jsonl"));
        std::fs::write(&file, format!("{text}\n")).expect("write log");
        run_ok(&["import", file.to_str().expect("utf-8"), "--data", d]);
    }
}

const PAIRINGS: &str = r#"{"game":"open-r1-b1","red":"Ann","black":"Bob"}
{"game":"open-r1-b2","white":"Cid","black":"Ann"}
{"game":"open-r1-b3","white":"Bob","black":"Cid"}
"#;

fn issue(data: &Path, args: &[&str]) -> String {
    let d = data.to_str().expect("utf-8");
    run_ok(&[&["token", "issue", "--data", d], args].concat())
        .trim()
        .to_string()
}

fn with<T>(token: &str, message: T) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    r
}

fn code<T>(r: Result<tonic::Response<T>, tonic::Status>) -> Code {
    r.map_or_else(|s| s.code(), |_| Code::Ok)
}

fn export(game: &str) -> proto::ExportAuditRequest {
    proto::ExportAuditRequest { game: game.into() }
}

fn verify_request(text: &str, key: &str) -> proto::VerifyAuditRequest {
    proto::VerifyAuditRequest {
        text: text.into(),
        key: key.into(),
    }
}

fn pairings() -> Vec<proto::Pairing> {
    let p = |game: &str, first: &str, second: &str| proto::Pairing {
        game: game.into(),
        first: first.into(),
        second: second.into(),
    };
    vec![
        p("open-r1-b1", "Ann", "Bob"),
        p("open-r1-b2", "Cid", "Ann"),
        p("open-r1-b3", "Bob", "Cid"),
    ]
}

struct Tokens {
    auditor: String,
    arbiter: String,
    other_arbiter: String,
    board: String,
}

fn tokens(d: &Path) -> Tokens {
    Tokens {
        auditor: issue(d, &["--id", "fed", "--role", "auditor"]),
        arbiter: issue(
            d,
            &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
        ),
        other_arbiter: issue(
            d,
            &[
                "--id",
                "arb2",
                "--role",
                "arbiter",
                "--tournament",
                "other-",
            ],
        ),
        board: issue(
            d,
            &[
                "--id",
                "b1",
                "--role",
                "board",
                "--game",
                "open-r1-b1",
                "--side",
                "both",
            ],
        ),
    }
}

#[tokio::test]
async fn audit_calls_are_for_auditors_and_arbiters_and_match_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    seed(d);
    let t = tokens(d);
    let cli_key = run_ok(&["audit", "key", "--data", d.to_str().expect("utf-8")])
        .trim()
        .to_string();
    let server = TestServer::start_with_tokens(d).await;
    let mut c: RefereeClient<Channel> = server.client().await;

    let key = c
        .get_audit_key(with(&t.auditor, proto::GetAuditKeyRequest {}))
        .await
        .expect("auditor reads the key")
        .into_inner()
        .public_key;
    assert_eq!(
        key, cli_key,
        "the server signs with its data directory's key"
    );
    assert_eq!(
        code(
            c.get_audit_key(with(&t.board, proto::GetAuditKeyRequest {}))
                .await
        ),
        Code::PermissionDenied
    );
    assert_eq!(
        code(c.get_audit_key(proto::GetAuditKeyRequest {}).await),
        Code::Unauthenticated
    );

    let bundle = c
        .export_audit(with(&t.arbiter, export("open-r1-b1")))
        .await
        .expect("an arbiter exports a game of its tournament")
        .into_inner();
    assert_eq!(bundle.public_key, key);
    let local = audit::verify(&bundle.text, Some(&key)).expect("readable");
    assert!(local.ok(), "{:?}", local.problems);
    assert!(
        bundle.text.contains("\"result\":\"1-0\""),
        "{}",
        bundle.text
    );
    assert_eq!(
        code(
            c.export_audit(with(&t.other_arbiter, export("open-r1-b1")))
                .await
        ),
        Code::PermissionDenied,
        "an arbiter of another event may not export this game"
    );
    assert_eq!(
        code(c.export_audit(with(&t.board, export("open-r1-b1"))).await),
        Code::PermissionDenied,
        "a board may not export even its own game"
    );
    assert_eq!(
        code(c.export_audit(with(&t.auditor, export("open-r9-b9"))).await),
        Code::NotFound
    );

    // The gRPC report is the CLI's report.
    let report = c
        .verify_audit(with(&t.auditor, verify_request(&bundle.text, &key)))
        .await
        .expect("verify")
        .into_inner();
    assert!(report.holds, "{:?}", report.problems);
    assert_eq!(report.held, local.held);
    let tampered = bundle
        .text
        .replacen("\"from\":\"h2\"", "\"from\":\"b2\"", 1);
    let report = c
        .verify_audit(with(&t.arbiter, verify_request(&tampered, &key)))
        .await
        .expect("verify")
        .into_inner();
    assert!(!report.holds);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("signature does not match")),
        "{:?}",
        report.problems
    );
    let report = c
        .verify_audit(with(
            &t.auditor,
            verify_request(&bundle.text, &"00".repeat(32)),
        ))
        .await
        .expect("verify")
        .into_inner();
    assert!(
        !report.holds,
        "a bundle signed by another key must not hold"
    );
    assert_eq!(
        code(
            c.verify_audit(with(&t.board, verify_request(&bundle.text, "")))
                .await
        ),
        Code::PermissionDenied
    );
    assert_eq!(
        code(
            c.verify_audit(with(&t.auditor, verify_request("not json", "")))
                .await
        ),
        Code::InvalidArgument
    );
    server.stop().await;
}

#[tokio::test]
async fn a_tournament_export_lists_the_events_games_and_scores_each_player() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    seed(d);
    let t = tokens(d);
    let server = TestServer::start_with_tokens(d).await;
    let mut c = server.client().await;
    let request = |token: &str, event: &str| {
        with(
            token,
            proto::ExportTournamentRequest {
                event: event.into(),
                pairings: pairings(),
            },
        )
    };
    let export = c
        .export_tournament(request(&t.arbiter, "open-"))
        .await
        .expect("export")
        .into_inner();
    let text = export.text;
    assert!(
        !text.contains("other-r1-b1"),
        "only the event's games: {text}"
    );
    for needle in [
        r#""game":"open-r1-b1","variant":"xiangqi","first":"Ann","second":"Bob","result":"1-0""#,
        r#""points":[2.0,0.0]"#,
        r#""game":"open-r1-b2","variant":"chess_gjq","first":"Cid","second":"Ann","result":"1/2-1/2""#,
        r#""points":[0.5,0.5]"#,
        r#""game":"open-r1-b3","variant":"draughts","first":"Bob","second":"Cid","result":null"#,
        r#"{"type":"standing","player":"Ann","games":2,"wins":1,"draws":1,"losses":0,"points":2.5}"#,
        r#"{"type":"standing","player":"Bob","games":1,"wins":0,"draws":0,"losses":1,"points":0.0}"#,
        r#"{"type":"standing","player":"Cid","games":1,"wins":0,"draws":1,"losses":0,"points":0.5}"#,
    ] {
        assert!(text.contains(needle), "missing {needle} in\n{text}");
    }
    let heads = c
        .list_games(with(&t.auditor, proto::ListGamesRequest::default()))
        .await
        .expect("list")
        .into_inner()
        .games;
    for game in heads.iter().filter(|g| g.game.starts_with("open-")) {
        assert!(
            text.contains(&format!(r#""head_hash":"{}""#, game.head_hash)),
            "the chain head of {} is in the export",
            game.game
        );
    }
    let report = c
        .verify_audit(with(&t.auditor, verify_request(&text, &export.public_key)))
        .await
        .expect("verify")
        .into_inner();
    assert!(report.holds, "{:?}", report.problems);
    assert!(report.held.iter().any(|h| h.contains("results table")));
    assert_eq!(
        code(
            c.export_tournament(request(&t.other_arbiter, "open-"))
                .await
        ),
        Code::PermissionDenied
    );
    assert_eq!(
        code(c.export_tournament(request(&t.board, "open-")).await),
        Code::PermissionDenied
    );
    server.stop().await;
}

/// Re-signs an edited export with `data`'s key, as a dishonest server could.
fn resign(text: &str, data: &Path) -> String {
    use ed25519_dalek::Signer;
    let key = audit::load_or_create_key(data).expect("key");
    let mut body: String = text
        .lines()
        .filter(|l| !l.contains("\"type\":\"signature\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let sig = key.sign(body.as_bytes());
    body.push_str(&format!(
        "{{\"type\":\"signature\",\"alg\":\"ed25519\",\"key\":\"{}\",\"signature\":\"{}\"}}\n",
        audit::public_key_hex(&key),
        hex::encode(sig.to_bytes())
    ));
    body
}

#[test]
fn referee_audit_tournament_writes_an_export_that_verify_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    seed(d);
    let ds = d.to_str().expect("utf-8");
    let pairings = d.join("pairings.jsonl");
    std::fs::write(&pairings, PAIRINGS).expect("write");
    let out = d.join("open.jsonl");
    let outs = out.to_str().expect("utf-8");
    run_ok(&[
        "audit",
        "tournament",
        "open-",
        "--data",
        ds,
        "--out",
        outs,
        "--pairings",
        pairings.to_str().expect("utf-8"),
    ]);
    let key = run_ok(&["audit", "key", "--data", ds]).trim().to_string();
    let stdout = run_ok(&["audit", "verify", outs, "--key", &key]);
    assert!(stdout.contains("results table: 3 games"), "{stdout}");
    let text = std::fs::read_to_string(&out).expect("read");

    // A table changed and re-signed: the signature holds, the sum does not.
    let inflated = resign(
        &text.replacen(
            r#""player":"Bob","games":1,"wins":0,"draws":0,"losses":1,"points":0.0"#,
            r#""player":"Bob","games":1,"wins":1,"draws":0,"losses":0,"points":2.0"#,
            1,
        ),
        d,
    );
    let report = audit::verify(&inflated, Some(&key)).expect("readable");
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("the table records")),
        "{:?}",
        report.problems
    );
    // A game's result changed and re-signed: its points no longer follow from it.
    let flipped = resign(
        &text.replacen(r#""result":"1-0""#, r#""result":"0-1""#, 1),
        d,
    );
    let report = audit::verify(&flipped, Some(&key)).expect("readable");
    assert!(
        report.problems.iter().any(|p| p.contains("scores")),
        "{:?}",
        report.problems
    );
    // A game dropped from the export and re-signed.
    let dropped: String = text
        .lines()
        .filter(|l| !l.contains(r#""game":"open-r1-b3""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let report = audit::verify(&resign(&dropped, d), Some(&key)).expect("readable");
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("announces 3 games but lists 2")),
        "{:?}",
        report.problems
    );
    // Edited without re-signing: the CLI exits 1.
    let edited = d.join("edited.jsonl");
    std::fs::write(&edited, text.replacen("Ann", "Ana", 1)).expect("write");
    let out = referee(&["audit", "verify", edited.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
}
