//! Records in and out (issue 16 items 1 and 3): the header's tags kept, shown and exported;
//! `referee export --log` giving back the log that was imported; `referee replay` reading an
//! audit bundle as well as a log.

use std::path::Path;

use referee::event::{parse_log, write_log};

use crate::common::referee;
use crate::common::repo_path;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `referee ARGS`, asserting success, and returns its standard output.
fn ok(args: &[&str]) -> String {
    let out = referee(args);
    assert!(
        out.status.success(),
        "referee {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Every tenth fixture of each game, by name: a spread of rules, clocks, claims and arbiter
/// events without a process start per fixture.
fn sample_fixtures() -> Vec<std::path::PathBuf> {
    let mut chosen = Vec::new();
    for variant in referee::games::Variant::ALL {
        let dir = repo_path(&format!("replay-fixtures/{variant}"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("fixture dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        chosen.extend(files.into_iter().step_by(10));
    }
    assert!(chosen.len() >= 20, "{} fixtures sampled", chosen.len());
    chosen
}

const TAGS: &str = r#""tags":{"Event":"2026 national championship","Round":"3","Board":"12","White":"Wang \"the wall\" Lei","Black":"Li Na","Date":"2026.12.04"}"#;

/// The fixture as canonical lines, with tags added to its header and a game id of its own.
fn canonical_with_tags(file: &Path, id: &str) -> String {
    let source = std::fs::read_to_string(file).expect("fixture");
    let mut log = parse_log(&source).expect("fixture parses");
    log.header.id = id.to_string();
    let header_tags: serde_json::Value =
        serde_json::from_str(&format!("{{{TAGS}}}")).expect("tags JSON");
    for (name, value) in header_tags["tags"].as_object().expect("object") {
        let value = value.as_str().expect("string").to_string();
        log.header.tags.push((name.clone(), value));
    }
    write_log(&log.header, &log.events)
}

#[test]
fn a_log_comes_back_from_the_store_byte_for_byte_and_replays_alike() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    for (n, fixture) in sample_fixtures().iter().enumerate() {
        let id = format!("rt-{n}");
        let log = canonical_with_tags(fixture, &id);
        assert!(log.contains(r#""tags":{"Event""#), "{log}");
        let file = dir.path().join(format!("{id}.jsonl"));
        std::fs::write(&file, &log).expect("write");
        assert_eq!(
            ok(&["import", path_str(&file), "--data", path_str(&data)]).trim(),
            id
        );
        let exported = ok(&["export", "--log", &id, "--data", path_str(&data)]);
        assert_eq!(exported, log, "{} through the store", fixture.display());
        let back = dir.path().join(format!("{id}-back.jsonl"));
        std::fs::write(&back, &exported).expect("write");
        assert_eq!(
            ok(&["replay", "--json", path_str(&back)]),
            ok(&["replay", "--json", path_str(fixture)]),
            "{}: the exported log rules as the fixture does",
            fixture.display()
        );
    }
}

#[test]
fn export_needs_one_format_and_a_known_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = path_str(dir.path());
    let out = referee(&["export", "nothing", "--data", data]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("--log"), "{}", text(&out.stderr));
    let out = referee(&["export", "--log", "nothing", "--data", data]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("nothing"),
        "{}",
        text(&out.stderr)
    );
}

/// A bundle of each sampled fixture replays to exactly the rulings the bundle records.
#[test]
fn an_audit_bundle_replays_to_the_rulings_it_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    for (n, fixture) in sample_fixtures().iter().enumerate() {
        let id = format!("b-{n}");
        let file = dir.path().join(format!("{id}.jsonl"));
        std::fs::write(&file, canonical_with_tags(fixture, &id)).expect("write");
        ok(&["import", path_str(&file), "--data", path_str(&data)]);
        let bundle = ok(&["audit", "export", &id, "--data", path_str(&data)]);
        let recorded: Vec<serde_json::Value> = bundle
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
            .filter(|v| v["type"] == "ruling")
            .map(|mut v| {
                v.as_object_mut().expect("object").remove("type");
                v
            })
            .collect();
        let bundle_file = dir.path().join(format!("{id}.bundle"));
        std::fs::write(&bundle_file, &bundle).expect("write");
        let replayed: Vec<serde_json::Value> = ok(&["replay", "--json", path_str(&bundle_file)])
            .lines()
            .map(|l| serde_json::from_str(l).expect("ruling JSON"))
            .collect();
        assert_eq!(replayed, recorded, "{}", fixture.display());
        let human = ok(&["replay", path_str(&bundle_file)]);
        assert!(
            human.contains("  White: Wang \"the wall\" Lei") && human.contains("  Round: 3"),
            "the tags are shown: {human}"
        );
    }
}

#[test]
fn an_altered_bundle_is_refused_by_replay_naming_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let file = dir.path().join("g.jsonl");
    std::fs::write(&file, canonical_with_tags(&fixture, "g")).expect("write");
    ok(&["import", path_str(&file), "--data", path_str(&data)]);
    let bundle = ok(&["audit", "export", "g", "--data", path_str(&data)]);
    // Change the first move's destination: the record no longer hashes to its hash.
    let lines: Vec<&str> = bundle.lines().collect();
    let (index, line) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains("\"type\":\"event\"") && l.contains("\"to\""))
        .expect("an event with a destination");
    let to = line.find("\"to\":\"").expect("to") + 6;
    let mut altered_line = line.to_string();
    let square = if &line[to..to + 2] == "e2" {
        "d2"
    } else {
        "e2"
    };
    altered_line.replace_range(to..to + 2, square);
    let altered: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == index {
                format!("{altered_line}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let altered_file = dir.path().join("altered.bundle");
    std::fs::write(&altered_file, altered).expect("write");
    let out = referee(&["replay", "--json", path_str(&altered_file)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let message = text(&out.stderr);
    assert!(
        message.contains("does not hold") && message.contains("audit verify"),
        "{message}"
    );
    assert!(out.stdout.is_empty(), "no rulings from an altered bundle");
}

#[test]
fn a_tournament_export_is_not_replayed_as_a_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let file = dir.path().join("t-1.jsonl");
    std::fs::write(&file, canonical_with_tags(&fixture, "t-1")).expect("write");
    ok(&["import", path_str(&file), "--data", path_str(&data)]);
    let export = ok(&["audit", "tournament", "t-", "--data", path_str(&data)]);
    let export_file = dir.path().join("t.export");
    std::fs::write(&export_file, export).expect("write");
    let out = referee(&["replay", path_str(&export_file)]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("tournament export"),
        "{}",
        text(&out.stderr)
    );
}

/// The players of a tournament export come from the tags, a pairing overrides them, and a
/// side named by neither is listed under a placeholder with a warning.
#[test]
fn tournament_players_come_from_tags_pairings_override_and_gaps_are_warned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let fixture = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
    let source = std::fs::read_to_string(&fixture).expect("fixture");
    let base = parse_log(&source).expect("parses");
    let games = [
        (
            "open-1",
            vec![("Red", "Hu Ronghua"), ("Black", "Xu Yinchuan")],
        ),
        ("open-2", vec![("Red", "Lü Qin")]),
        (
            "open-3",
            vec![("Red", "Zhao Guorong"), ("Black", "Liu Dahua")],
        ),
    ];
    for (id, tags) in &games {
        let mut header = base.header.clone();
        header.id = id.to_string();
        header.tags = tags
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        let file = dir.path().join(format!("{id}.jsonl"));
        std::fs::write(&file, write_log(&header, &base.events)).expect("write");
        ok(&["import", path_str(&file), "--data", path_str(&data)]);
    }
    let pairings = dir.path().join("pairings.jsonl");
    std::fs::write(
        &pairings,
        "{\"game\":\"open-3\",\"red\":\"Wang Tianyi\",\"black\":\"Zheng Weitong\"}\n",
    )
    .expect("write");
    let out = referee(&[
        "audit",
        "tournament",
        "open-",
        "--data",
        path_str(&data),
        "--pairings",
        path_str(&pairings),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let export = text(&out.stdout);
    let players: Vec<(String, String)> = export
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|v| v["type"] == "tournament_game")
        .map(|v| {
            (
                v["first"].as_str().expect("first").to_string(),
                v["second"].as_str().expect("second").to_string(),
            )
        })
        .collect();
    let expected = [
        ("Hu Ronghua", "Xu Yinchuan"),
        ("Lü Qin", "open-2 black"),
        ("Wang Tianyi", "Zheng Weitong"),
    ];
    assert_eq!(
        players,
        expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    let warnings = text(&out.stderr);
    assert!(
        warnings.contains("warning: game \"open-2\": no Black tag and no pairing"),
        "{warnings}"
    );
    assert_eq!(warnings.matches("warning").count(), 1, "{warnings}");
}

#[test]
fn pdn_tags_survive_import_and_export() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let file = dir.path().join("wk.pdn");
    let pdn = "[Event \"World Championship\"]\n[Date \"2003.10.05\"]\n[White \"Baljakin, A\"]\n\
               [Black \"Sijbrands, T\"]\n[TimeControl \"80/7200:3600\"]\n[Site \"C:\\\\games \\\"x\\\"\"]\n\
               [Result \"1-1\"]\n[GameType \"20\"]\n\n1. 32-28 18-23 1-1\n";
    std::fs::write(&file, pdn).expect("write");
    assert_eq!(
        ok(&["import", path_str(&file), "--data", path_str(&data)]).trim(),
        "wk-1"
    );
    let log = ok(&["export", "--log", "wk-1", "--data", path_str(&data)]);
    let header: serde_json::Value =
        serde_json::from_str(log.lines().next().expect("header")).expect("JSON");
    assert_eq!(
        header["tags"],
        serde_json::json!({
            "Event": "World Championship",
            "Date": "2003.10.05",
            "White": "Baljakin, A",
            "Black": "Sijbrands, T",
            "TimeControl": "80/7200:3600",
            "Site": "C:\\games \"x\"",
        }),
        "the PDN's tags but those the header and moves already say"
    );
    let exported = ok(&["export", "--pdn", "wk-1", "--data", path_str(&data)]);
    for tag in [
        "[Event \"World Championship\"]",
        "[Date \"2003.10.05\"]",
        "[White \"Baljakin, A\"]",
        "[Black \"Sijbrands, T\"]",
        "[TimeControl \"80/7200:3600\"]",
        "[Site \"C:\\\\games \\\"x\\\"\"]",
        "[GameType \"20\"]",
    ] {
        assert!(exported.contains(tag), "{tag} in {exported}");
    }
    assert_eq!(exported.matches("[GameType").count(), 1, "{exported}");
    assert_eq!(exported.matches("[Event").count(), 1, "{exported}");
}

#[test]
fn bad_tags_are_refused_naming_the_tag_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (tags, expected) in [
        (r#"{"White":1}"#, "tag \"White\" must be a string"),
        (r#"["White"]"#, "\"tags\" must be an object"),
        (r#"{"Bad Name":"x"}"#, "tag name \"Bad Name\""),
        (r#"{"Event":"two\nlines"}"#, "control character"),
    ] {
        let file = dir.path().join("bad.jsonl");
        std::fs::write(
            &file,
            format!(
                "# a comment\n{{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"t\",\"tags\":{tags}}}\n"
            ),
        )
        .expect("write");
        let out = referee(&["replay", path_str(&file)]);
        assert_eq!(out.status.code(), Some(2), "{tags}: {out:?}");
        let message = text(&out.stderr);
        assert!(
            message.contains("line 2:") && message.contains(expected),
            "{tags}: {message}"
        );
    }
}
