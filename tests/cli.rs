//! The command-line contract: `referee replay FILE [--json]` and `referee perft`.

use std::process::Command;

use crate::common::repo_path;

fn referee(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .output()
        .expect("run referee")
}

#[test]
fn replay_json_prints_one_ruling_per_line() {
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let out = referee(&["replay", fixture.to_str().expect("utf-8 path"), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["at"], 6);
    assert_eq!(lines[0]["kind"], "illegal_move");
    assert_eq!(lines[0]["side"], "red");
    assert_eq!(lines[0]["result"], "0-1");
}

#[test]
fn replay_without_json_is_for_people() {
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let out = referee(&["replay", fixture.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        stdout.contains("blocked at c0") && stdout.contains("result 0-1"),
        "{stdout}"
    );
}

#[test]
fn replay_for_people_shows_what_stands_open() {
    // Log format, "Draws and cycles the book leaves to a claim": who must vary, since which
    // event, and what ends it; a claimable draw likewise.
    let cases = [
        (
            "arbiter-perpetual-check-varied.jsonl",
            "open: red must vary, ordered at event 9 (perpetual_check, xiangqi 26.1)",
        ),
        (
            "arbiter-repetition-draw-claimable.jsonl",
            "open: draw claimable since event 8 (repetition, xiangqi 26.2)",
        ),
        (
            "arbiter-move-limit-reached-game-goes-on.jsonl",
            "open: draw claimable since event 10 (move_limit, xiangqi 4.2)",
        ),
    ];
    for (name, line) in cases {
        let fixture = repo_path(&format!("replay-fixtures/xiangqi/{name}"));
        let out = referee(&["replay", fixture.to_str().expect("utf-8 path")]);
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        assert!(
            stdout.contains("game not over") && stdout.contains(line),
            "{name}: {stdout}"
        );
    }
    // Once a ruling ends the game nothing stands open.
    let fixture = repo_path("replay-fixtures/xiangqi/arbiter-perpetual-check-not-varied.jsonl");
    let out = referee(&["replay", fixture.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        stdout.contains("result 0-1") && !stdout.contains("open:"),
        "{stdout}"
    );
}

#[test]
fn replay_for_people_writes_the_scoresheet() {
    // chess_gjq 3.1.5/9.3: a hidden piece's move is written with what it turned out to be.
    let fixture = repo_path("replay-fixtures/chess_gjq/spec-example-opening.jsonl");
    let out = referee(&["replay", fixture.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    for line in [
        "1.      events 1-2       e2-e4车",
        "1...    events 3-4       c7-c5马",
        "2.      events 5-6       暗马g1-f3象",
    ] {
        assert!(stdout.contains(line), "{line:?} missing from\n{stdout}");
    }
    // xiangqi: Chinese notation with the ICCS squares and WXF.
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let out = referee(&["replay", fixture.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(stdout.contains("event 1          "), "{stdout}");
    assert!(
        stdout.contains(" ?\n"),
        "the illegal move is marked: {stdout}"
    );
}

#[test]
fn a_malformed_log_names_its_line_and_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.jsonl");
    let text = "# a comment\n{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"x\"}\n{\"type\":\"move\",\"side\":\"red\",\"from\":\"z9\",\"to\":\"e2\"}\n";
    std::fs::write(&path, text).expect("write");
    let out = referee(&["replay", path.to_str().expect("utf-8 path"), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        stderr.contains("line 3: \"from\": square \"z9\" does not exist"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn perft_prints_the_leaf_count() {
    let out = referee(&["perft", "--variant", "xiangqi", "--depth", "3"]);
    assert_eq!(
        String::from_utf8(out.stdout).expect("utf-8").trim(),
        "79666"
    );
    let out = referee(&[
        "perft",
        "--variant",
        "xiangqi",
        "--fen",
        "not a fen",
        "--depth",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_pdn_game_imports_and_exports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data = data.to_str().expect("utf-8 path");
    let file = dir.path().join("two.pdn");
    // The second game's 28x19x10 names its landing square, though 28x10 would do.
    let text = "[White \"A\"]\n[Result \"2-0\"]\n1. 32-28 18-23 2-0\n\n\
                [Result \"0-2\"]\n[FEN \"W:W28,32:B23,14,1\"]\n1. 28x19x10 1-7 0-2\n";
    std::fs::write(&file, text).expect("write");
    let file = file.to_str().expect("utf-8 path");
    let out = referee(&["import", file, "--game", "3", "--data", data]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = referee(&["import", file, "--data", data]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "two-1\ntwo-2\n");
    let out = referee(&["export", "--pdn", "two-2", "--data", data]);
    assert!(out.status.success(), "{out:?}");
    let pdn = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        pdn.contains("[FEN \"W:W28,32:B1,14,23\"]") && pdn.contains("1. 28x10 1-7 0-2"),
        "{pdn}"
    );
    let out = referee(&["export", "--pdn", "two-1", "--data", data]);
    let pdn = String::from_utf8(out.stdout).expect("utf-8");
    assert!(pdn.contains("1. 32-28 18-23 2-0"), "{pdn}");
}

#[test]
fn a_log_that_is_not_utf8_names_its_line_and_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("latin1.jsonl");
    let mut bytes = b"{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"x\"}\n".to_vec();
    bytes.extend_from_slice(b"{\"type\":\"arbiter\",\"text\":\"r\xe9sum\xe9\"}\n");
    std::fs::write(&path, &bytes).expect("write");
    let file = path.to_str().expect("utf-8 path");
    for args in [vec!["replay", file], vec!["audit", "verify", file]] {
        let out = referee(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).expect("utf-8");
        assert!(
            stderr.contains(&format!(
                "{file}: line 2: not valid UTF-8 at byte 28 of the line (byte offset 72 in the file)"
            )),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
