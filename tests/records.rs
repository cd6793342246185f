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

/// The fixture as canonical lines, with the sample's tags as its header's and a game id of its own.
fn canonical_with_tags(file: &Path, id: &str) -> String {
    let source = std::fs::read_to_string(file).expect("fixture");
    let mut log = parse_log(&source).expect("fixture parses");
    log.header.id = id.to_string();
    // The fixture's own tags (some name the players) give way to the sample's.
    log.header.tags.clear();
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

/// Renju records in and out (issue 34 item 3): `referee export --renju` writes the stones and
/// opening steps that stand, `referee import` reads them back (and renju programs' bare move
/// lists) to the same events and rulings.
mod renju {
    use referee::event::{GameLog, parse_log};
    use referee::records::{self, Imported, renju};
    use referee::referee::{Effect, RulingKind, replay};

    use super::{ok, path_str, text};
    use crate::common::{referee, repo_path};

    /// Soosõrv-8 with one swap (white's, after the third stone): Ann began as black, so Bob
    /// holds black from then on; black makes five g10-k10.
    const SOOSORV: &str = r#"{"type":"game","variant":"renju","id":"rr-soosorv","rules":{"opening":"soosorv-8"},"tags":{"Event":"Renju World Championship","Round":"5","Black":"Ann","White":"Bob","BlackTeam":"Tallinn","WhiteTeam":"Tartu"}}
{"type":"move","side":"black","to":"h8"}
{"type":"move","side":"white","to":"h9"}
{"type":"move","side":"black","to":"h10"}
{"type":"swap","side":"white"}
{"type":"move","side":"white","to":"h6"}
{"type":"declare","side":"white","offers":2}
{"type":"offer","side":"black","points":["g7","j11"]}
{"type":"choose","side":"white","to":"j11"}
{"type":"move","side":"white","to":"a1"}
{"type":"move","side":"black","to":"i10"}
{"type":"move","side":"white","to":"a2"}
{"type":"move","side":"black","to":"j10"}
{"type":"move","side":"white","to":"a3"}
{"type":"move","side":"black","to":"k10"}
{"type":"move","side":"white","to":"a4"}
{"type":"move","side":"black","to":"g10"}
"#;

    /// Yamaguchi: black declares three offers, white swaps, white chooses k12; white resigns.
    const YAMAGUCHI: &str = r#"{"type":"game","variant":"renju","id":"rr-yamaguchi","rules":{"opening":"yamaguchi"},"tags":{"Event":"Yamaguchi cup","Black":"Cho","White":"Dee"}}
{"type":"move","side":"black","to":"h8"}
{"type":"move","side":"white","to":"h9"}
{"type":"move","side":"black","to":"h10"}
{"type":"declare","side":"black","offers":3}
{"type":"swap","side":"white"}
{"type":"move","side":"white","to":"h6"}
{"type":"offer","side":"black","points":["g7","j11","k12"]}
{"type":"choose","side":"white","to":"k12"}
{"type":"move","side":"white","to":"a1"}
{"type":"move","side":"black","to":"i10"}
{"type":"move","side":"white","to":"a2"}
{"type":"move","side":"black","to":"j10"}
{"type":"resign","side":"white"}
"#;

    /// Seed 002's centre opening, forbidden stones replayed; white makes five h9-l9.
    const CENTRE: &str = r#"{"type":"game","variant":"renju","id":"rr-centre","rules":{"forbidden":"replay"},"tags":{"Event":"Club game","Date":"2027.03.01","Black":"Eve","White":"Fay"}}
{"type":"move","side":"black","to":"h8"}
{"type":"move","side":"white","to":"h9"}
{"type":"move","side":"black","to":"a1"}
{"type":"move","side":"white","to":"i9"}
{"type":"move","side":"black","to":"a2"}
{"type":"move","side":"white","to":"j9"}
{"type":"move","side":"black","to":"a3"}
{"type":"move","side":"white","to":"k9"}
{"type":"move","side":"black","to":"a5"}
{"type":"move","side":"white","to":"l9"}
"#;

    fn log(text: &str) -> GameLog {
        parse_log(text).expect("the test log parses")
    }

    fn export(text: &str) -> String {
        let log = log(text);
        renju::renju_from_log(&log.header, &log.events)
            .expect("a referee")
            .expect("a renju game")
    }

    /// Reads `record` as the file `name` would be read, expecting one game.
    fn import(name: &str, record: &str) -> Imported {
        let mut games = records::read(name, record.as_bytes(), None, None).expect("read");
        assert_eq!(games.len(), 1, "{name}");
        games.remove(0)
    }

    /// The words of the move text (the lines after the tags), one space apart.
    fn move_text(record: &str) -> String {
        let words: Vec<&str> = (record.lines())
            .filter(|l| !l.starts_with('['))
            .flat_map(str::split_whitespace)
            .collect();
        words.join(" ")
    }

    fn tag_lines(record: &str) -> Vec<&str> {
        record.lines().filter(|l| l.starts_with('[')).collect()
    }

    /// log -> record -> log gives the same header, events and rulings, and the result `want`.
    fn assert_round_trip(source: &str, want: &str) -> String {
        let original = log(source);
        let record = export(source);
        let back = import(&format!("{}.renju", original.header.id), &record);
        assert_eq!(back.note, None, "{record}");
        assert_eq!(back.header, original.header, "{record}");
        assert_eq!(back.events, original.events, "{record}");
        let before = replay(&original.header, &original.events).expect("referee");
        let after = replay(&back.header, &back.events).expect("referee");
        assert_eq!(after.rulings(), before.rulings(), "{record}");
        let ending = before.ending().map(|e| e.result.as_str());
        assert_eq!(ending, Some(want), "the test game ends as meant");
        record
    }

    #[test]
    fn a_soosorv_game_with_a_swap_comes_back_with_the_same_events_and_rulings() {
        let record = assert_round_trip(SOOSORV, "1-0");
        assert_eq!(
            tag_lines(&record),
            [
                "[Event \"Renju World Championship\"]",
                "[Round \"5\"]",
                "[White \"Ann\"]",
                "[Black \"Bob\"]",
                "[WhiteTeam \"Tallinn\"]",
                "[BlackTeam \"Tartu\"]",
                "[Result \"1-0\"]",
                "[Opening \"soosorv-8\"]",
                "[Variant \"renju\"]",
            ],
            "after white's swap Bob holds black, and won"
        );
        assert_eq!(
            move_text(&record),
            "1. h8 2. h9 3. h10 {swap} 4. h6 {declare 2} {offer g7 j11} 5. j11 6. a1 7. i10 \
             8. a2 9. j10 10. a3 11. k10 12. a4 13. g10 1-0"
        );
        assert!(record.lines().all(|l| l.len() <= 79), "{record}");
    }

    #[test]
    fn a_yamaguchi_game_with_a_declaration_and_a_swap_comes_back_alike() {
        let record = assert_round_trip(YAMAGUCHI, "1-0");
        assert_eq!(
            move_text(&record),
            "1. h8 2. h9 3. h10 {declare 3} {swap} 4. h6 {offer g7 j11 k12} 5. k12 6. a1 \
             7. i10 8. a2 9. j10 1-0"
        );
        let tags = tag_lines(&record);
        assert!(tags.contains(&"[Black \"Dee\"]") && tags.contains(&"[White \"Cho\"]"));
        assert!(tags.contains(&"[Opening \"yamaguchi\"]"), "{record}");
    }

    #[test]
    fn a_centre_game_comes_back_alike_with_its_forbidden_procedure() {
        let record = assert_round_trip(CENTRE, "0-1");
        assert_eq!(
            move_text(&record),
            "1. h8 2. h9 3. a1 4. i9 5. a2 6. j9 7. a3 8. k9 9. a5 10. l9 0-1"
        );
        let tags = tag_lines(&record);
        assert!(tags.contains(&"[Black \"Eve\"]") && tags.contains(&"[Forbidden \"replay\"]"));
        assert!(!record.contains("[Opening"), "centre by default: {record}");
    }

    /// A void swap, a stone on an occupied point and a stone after the five leave nothing in
    /// the record: it is the record of the game without them.
    #[test]
    fn steps_the_referee_voided_and_events_after_the_end_are_left_out() {
        let mut lines: Vec<&str> = SOOSORV.lines().collect();
        lines.insert(4, r#"{"type":"swap","side":"black"}"#);
        lines.insert(10, r#"{"type":"move","side":"white","to":"h8"}"#);
        lines.push(r#"{"type":"move","side":"white","to":"a5"}"#);
        let noisy = lines.join("\n");
        let judged = replay(&log(&noisy).header, &log(&noisy).events).expect("referee");
        let at = |seq: u64| (judged.rulings().iter()).find(|r| r.at == seq);
        assert_eq!(
            at(4).map(|r| (r.kind, r.effect)),
            Some((RulingKind::IllegalMove, Effect::CorrectionRequired)),
            "black's swap is void"
        );
        assert_eq!(at(10).map(|r| r.kind), Some(RulingKind::InvalidEvent));
        assert_eq!(export(&noisy), export(SOOSORV));
    }

    /// Under `replay` a true claim takes black's forbidden stone off the board: the record
    /// holds the stone placed again instead, numbered on from the set position.
    #[test]
    fn a_stone_a_claim_voids_is_left_out_and_a_set_position_is_kept() {
        let fixture = repo_path("replay-fixtures/renju/replay-double-three-placed-again.jsonl");
        let source = std::fs::read_to_string(&fixture).expect("fixture");
        let record = export(&source);
        let fen = "12o1o/15/12o1o/15/15/7x7/7x7/8xx5/15/15/15/15/15/15/15 b";
        assert!(record.contains(&format!("[FEN \"{fen}\"]")), "{record}");
        assert_eq!(move_text(&record), "9. k11 10. h8 *");
        let back = import("placed-again.renju", &record);
        let original = log(&source);
        assert_eq!(
            (&back.header.start, &back.header.rules),
            (&original.header.start, &original.header.rules)
        );
        let expected = log(&format!(
            "{}\n{}\n{}\n",
            r#"{"type":"game","variant":"renju","id":"x"}"#,
            r#"{"type":"move","side":"black","to":"k11"}"#,
            r#"{"type":"move","side":"white","to":"h8"}"#
        ));
        assert_eq!(back.events, expected.events);
    }

    /// The events of black h8 i8 j8 k8 l8 against white h9 i9 j9 k9: black's five on row 8.
    fn five_on_row_eight() -> GameLog {
        let points = ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"];
        let mut text = String::from("{\"type\":\"game\",\"variant\":\"renju\",\"id\":\"x\"}\n");
        for (i, p) in points.iter().enumerate() {
            let side = if i % 2 == 0 { "black" } else { "white" };
            text.push_str(&format!(
                "{{\"type\":\"move\",\"side\":\"{side}\",\"to\":\"{p}\"}}\n"
            ));
        }
        log(&text)
    }

    /// Two stones run together, untagged, in a `.txt` file: the content alone does not say
    /// renju (it could be a xiangqi ICCS move), `--format renju` does; an unknown format is
    /// refused by name.
    #[test]
    fn import_format_settles_a_list_the_content_leaves_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("pair.txt");
        std::fs::write(&file, "h8i9\n").expect("write");
        let out = dir.path().join("out");
        let args = ["import", path_str(&file), "--format", "renju", "--log-out"];
        let mut args = args.to_vec();
        args.push(path_str(&out));
        assert_eq!(ok(&args).trim(), "pair");
        let written = std::fs::read_to_string(out.join("pair.jsonl")).expect("log written");
        let log = log(&written);
        assert_eq!(log.header.variant, referee::games::Variant::Renju);
        assert_eq!(log.events.len(), 2, "{written}");
        let refused = referee(&[
            "import",
            path_str(&file),
            "--format",
            "sgf",
            "--log-out",
            path_str(&out),
        ]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(text(&refused.stderr).contains("\"sgf\" is not log, pdn, pgn or renju"));
    }

    #[test]
    fn bare_move_lists_of_renju_programs_are_read_in_each_shape() {
        let want = five_on_row_eight();
        for (name, list) in [
            (
                "numbered.txt",
                "1. h8 2. h9 3. i8 4. i9 5. j8\n6. j9 7. k8 8. k9 9. l8\n",
            ),
            ("spaced.txt", "h8 h9 i8 i9 j8 j9 k8 k9 l8"),
            ("commas.txt", "H8,H9,I8,I9,J8,J9,K8,K9,L8\n"),
            ("together.txt", "h8h9i8i9j8j9k8k9l8"),
        ] {
            let game = import(name, list);
            let stem = name.trim_end_matches(".txt");
            assert_eq!(game.header.id, stem);
            assert_eq!(game.header.variant, referee::games::Variant::Renju);
            assert_eq!(game.header.rules.opening, None, "{name}: centre");
            assert!(game.header.tags.is_empty(), "{name}");
            assert_eq!(game.events, want.events, "{name}");
            let judged = replay(&game.header, &game.events).expect("referee");
            assert_eq!(judged.ending().map(|e| e.result.as_str()), Some("1-0"));
            assert_eq!(
                game.note.as_deref(),
                Some("the referee ends the game 1-0; the record gives no result"),
                "{name}"
            );
        }
    }

    #[test]
    fn a_result_the_referee_disagrees_with_is_noted() {
        let record = "[Event \"Misrecorded\"]\n[Result \"0-1\"]\n\n\
                      1. h8 2. h9 3. i8 4. i9 5. j8 6. j9 7. k8 8. k9 9. l8 0-1\n";
        let game = import("misrecorded.renju", record);
        assert_eq!(
            game.note.as_deref(),
            Some("the referee ends the game 1-0; the record gives the result 0-1")
        );
        assert_eq!(
            game.events,
            five_on_row_eight().events,
            "no resignation added"
        );
        let record = "[Result \"1-0\"]\n1. h8 2. h9 0-1\n";
        let game = import("two-results.renju", record);
        assert_eq!(
            game.note.as_deref(),
            Some("the Result tag says 1-0 and the move text ends 0-1; the tag is followed")
        );
        let judged = replay(&game.header, &game.events).expect("referee");
        assert_eq!(judged.ending().map(|e| e.result.as_str()), Some("1-0"));
    }

    #[test]
    fn malformed_records_are_refused_naming_the_file_line_and_token() {
        for (record, expected) in [
            (
                "[Event \"x\"]\n[Variant \"renju\"]\n\n1. h8 2. h9 3. h10\n4. p16 5. a1\n",
                "bad.renju: line 5: move 4 \"p16\" is not a renju point (a1..o15)",
            ),
            (
                "[Variant \"renju\"]\n1. h8 2. h9 3. h10 {declare many}\n",
                "bad.renju: line 2: {declare many}: \"many\" is not a number of fifth moves",
            ),
            (
                "[Variant \"renju\"]\n[Opening \"kagetsu\"]\n1. h8\n",
                "bad.renju: line 2: tag Opening \"kagetsu\": is not an opening rule",
            ),
        ] {
            let err = records::read("bad.renju", record.as_bytes(), None, None)
                .expect_err("refused")
                .to_string();
            assert!(err.starts_with(expected), "{err}");
        }
    }

    /// The commands: a stored renju game exported with --renju, the record imported again
    /// as a log file; --renju refused for another game.
    #[test]
    fn export_renju_writes_a_stored_game_and_import_reads_it_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let file = dir.path().join("rr-soosorv.jsonl");
        std::fs::write(&file, SOOSORV).expect("write");
        ok(&["import", path_str(&file), "--data", path_str(&data)]);
        let record = ok(&["export", "--renju", "rr-soosorv", "--data", path_str(&data)]);
        assert_eq!(record, export(SOOSORV));
        let again = dir.path().join("again.renju");
        std::fs::write(&again, &record).expect("write");
        let out = dir.path().join("out");
        assert_eq!(
            ok(&["import", path_str(&again), "--log-out", path_str(&out)]).trim(),
            "again"
        );
        let back = log(&std::fs::read_to_string(out.join("again.jsonl")).expect("log"));
        assert_eq!(back.events, log(SOOSORV).events);
        assert_eq!(back.header.player(referee::event::Side::First), Some("Ann"));

        let xiangqi = repo_path("replay-fixtures/xiangqi/blocked-horse-leg.jsonl");
        let copy = dir.path().join("xq.jsonl");
        let mut xq = log(&std::fs::read_to_string(xiangqi).expect("fixture"));
        xq.header.id = "xq".into();
        std::fs::write(&copy, referee::event::write_log(&xq.header, &xq.events)).expect("write");
        ok(&["import", path_str(&copy), "--data", path_str(&data)]);
        let refused = referee(&["export", "--renju", "xq", "--data", path_str(&data)]);
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        assert!(
            text(&refused.stderr).contains("game \"xq\" is xiangqi; a renju record is for renju"),
            "{}",
            text(&refused.stderr)
        );
    }
}
