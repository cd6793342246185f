//! The command-line contract: `referee replay FILE [--json]` and `referee perft`.

use crate::common::referee;
use crate::common::repo_path;

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

/// `referee replay FILE` without `--json`, for a file under the repository.
fn replay_for_people(relative: &str) -> String {
    let path = repo_path(relative);
    let out = referee(&["replay", path.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{relative}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn replay_for_people_marks_the_arbiters_word_at_the_ruling() {
    let stdout = replay_for_people("replay-fixtures/xiangqi/arbiter-overturns-a-result.jsonl");
    assert!(
        stdout.contains(
            "\nevent 3: illegal_move red (loss -> 0-1) [xiangqi 4.1]  [overturned by the arbiter at event 4]\n"
        ),
        "{stdout}"
    );
    // An uphold is marked too (here after the ruling ended the game); the arbiter's own
    // ruling is not.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("upheld.jsonl");
    let text = "{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"upheld\"}\n\
                {\"type\":\"move\",\"side\":\"red\",\"from\":\"b0\",\"to\":\"d1\"}\n\
                {\"type\":\"arbiter\",\"side\":\"arbiter\",\"decision\":\"uphold\",\"ruling\":1}\n";
    std::fs::write(&path, text).expect("write");
    let out = referee(&["replay", path.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        stdout.contains(
            "\nevent 1: illegal_move red (loss -> 0-1) [xiangqi 4.1]  [upheld by the arbiter at event 2]\n"
        ),
        "{stdout}"
    );
    assert_eq!(stdout.matches("by the arbiter at").count(), 1, "{stdout}");
}

#[test]
fn replay_for_people_wraps_long_justifications() {
    let fixture = "replay-fixtures/xiangqi/arbiter-perpetual-check-not-varied.jsonl";
    let stdout = replay_for_people(fixture);
    for line in stdout.lines() {
        let columns = unicode_width::UnicodeWidthStr::width(line);
        assert!(columns <= 100, "{columns} columns: {line:?}");
    }
    // The second line of the cycle's text hangs under the first.
    assert!(
        stdout.contains("\n      the moves since its first occurrence are: black e9e8 (将5进1)"),
        "{stdout}"
    );
    // Nothing is lost or split: each ruling's words, in order, as `--json` gives them.
    let path = repo_path(fixture);
    let json = referee(&["replay", path.to_str().expect("utf-8 path"), "--json"]);
    let shown = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for line in String::from_utf8(json.stdout).expect("utf-8").lines() {
        let ruling: serde_json::Value = serde_json::from_str(line).expect("json line");
        let text = ruling["text"].as_str().expect("text");
        assert!(text.len() > 500, "a long justification: {text}");
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(shown.contains(&words), "{words:?} not in\n{stdout}");
    }
}

/// The first word of `text` that is a move written as two squares of `files` and `ranks`
/// joined by `sep` (`b0-d1` for "-", `b0d1` for "").
fn move_joined_by(text: &str, files: &str, ranks: &str, sep: &str) -> Option<String> {
    let square = |s: &str| {
        let mut chars = s.chars();
        matches!((chars.next(), chars.next(), chars.next()), (Some(f), Some(r), None) if files.contains(f) && ranks.contains(r))
    };
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|word| {
            word.len() == 4 + sep.len()
                && square(&word[..2])
                && &word[2..2 + sep.len()] == sep
                && square(&word[2 + sep.len()..])
        })
        .map(str::to_string)
}

#[test]
fn replay_for_people_writes_one_notation_per_game() {
    // xiangqi: ICCS (`b0d1`) in the scoresheet and in every ruling, as the cycle texts write it.
    let stdout = replay_for_people("replay-fixtures/xiangqi/arbiter-overturns-a-result.jsonl");
    assert!(
        stdout.contains("  2.      event 3          b0d1 ?\n")
            && stdout.contains("  1.      event 1          炮二平五 h2e2 C2=5\n")
            && stdout.contains("red (move 2) played b0d1 at event 3"),
        "{stdout}"
    );
    // chess_gjq: 9.3's `e2-e4` throughout. Every fixture of both games.
    for (game, files, ranks, other) in [
        ("xiangqi", "abcdefghi", "0123456789", "-"),
        ("chess_gjq", "abcdefgh", "12345678", ""),
    ] {
        let dir = repo_path(&format!("replay-fixtures/{game}"));
        for entry in std::fs::read_dir(dir).expect("fixtures") {
            let name = entry.expect("entry").file_name();
            let name = name.to_str().expect("utf-8 name");
            let stdout = replay_for_people(&format!("replay-fixtures/{game}/{name}"));
            let found = move_joined_by(&stdout, files, ranks, other);
            assert_eq!(found, None, "{game}/{name}:\n{stdout}");
        }
    }
}

#[test]
fn replay_for_people_shows_the_clock_after_each_press() {
    let stdout = replay_for_people("replay-fixtures/xiangqi/clock-in-time.jsonl");
    for line in [
        "\n  1.      event 1          炮二平五 h2e2 C2=5\n          event 2          red pressed: red 0:00:50, black 0:01:00\n",
        "\n          event 4          black pressed: red 0:00:50, black 0:00:40\n",
        "\n          event 6          red pressed: red 0:00:01, black 0:00:40\n",
    ] {
        assert!(stdout.contains(line), "{line:?} missing from\n{stdout}");
    }
    // The board's display beside the referee's where they read differently, the line
    // wrapped under the move's text.
    let stdout = replay_for_people("replay-fixtures/xiangqi/clock-display-disagrees.jsonl");
    let press = "\n          event 2          red pressed: red 0:00:50, black 0:01:00 (the board showed red 0:00:58,\n                           black 0:01:00)\n";
    assert!(stdout.contains(press), "{stdout}");
}

#[test]
fn replay_for_people_names_every_capture_allowed() {
    // draughts 6.1 and 6.13: both men could take, so both captures are named.
    let stdout =
        replay_for_people("replay-fixtures/draughts/capture-not-taken-two-captures-allowed.jsonl");
    let shown = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        shown.contains("a capture was compulsory: the majority rule allowed 2 captures of 1 piece: 32x23, 33x22; 32-27 takes none"),
        "{stdout}"
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

/// Several files and a directory replay in one process, in the order named, each ruling
/// marked with its file; a malformed file is reported and the others still replay (exit 2).
#[test]
fn replay_of_many_files_gives_each_files_rulings_in_order() {
    let dir = repo_path("replay-fixtures/xiangqi");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut expected = String::new();
    for file in &files {
        let one = referee(&["replay", "--json", file.to_str().expect("utf-8")]);
        assert!(one.status.success(), "{one:?}");
        let name = serde_json::Value::from(file.display().to_string()).to_string();
        for line in String::from_utf8_lossy(&one.stdout).lines() {
            expected.push_str(&format!("{{\"file\":{name},{}\n", &line[1..]));
        }
    }
    let all = referee(&["replay", "--json", dir.to_str().expect("utf-8")]);
    assert!(all.status.success(), "{all:?}");
    assert_eq!(String::from_utf8_lossy(&all.stdout), expected);

    let temp = tempfile::tempdir().expect("tempdir");
    let bad = temp.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"type\":\"game\",\"variant\":\"go\",\"id\":\"x\"}\n",
    )
    .expect("write");
    let first = files[0].to_str().expect("utf-8");
    let out = referee(&["replay", first, bad.to_str().expect("utf-8"), first]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.matches(&format!("== {first}\n")).count(),
        2,
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.jsonl: line 1: unknown variant") && stderr.contains("1 of 3 files"),
        "{stderr}"
    );
}

/// `serve --store` refuses a connection string it cannot read (exit 2, naming the flag and
/// saying what one looks like) and a database that does not answer (exit 1), creating nothing.
#[test]
fn serve_store_refuses_bad_connection_strings_naming_the_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data = data.to_str().expect("utf-8 path");
    let bad = referee(&["serve", "--store", "postgres://a:b:c", "--data", data]);
    let said = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--store: not a PostgreSQL connection string"),
        "{said}"
    );
    assert!(
        said.contains("postgres:// URL or key=value pairs"),
        "{said}"
    );
    // Port 1 on loopback: refused at once, so the 30 s bound is not waited for.
    let url = "host=127.0.0.1 port=1 user=referee dbname=referee connect_timeout=2";
    let down = referee(&["serve", "--store", url, "--data", data]);
    let said = String::from_utf8_lossy(&down.stderr);
    assert_eq!(down.status.code(), Some(1), "{said}");
    assert!(
        said.contains("cannot open the log in postgres://127.0.0.1:1/referee"),
        "{said}"
    );
    assert!(!said.contains("password"), "{said}");
}
