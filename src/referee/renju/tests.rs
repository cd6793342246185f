//! The renju table's procedures, through the whole referee: the full board after a forbidden
//! stone, the opening stones, and the replay procedure.

use crate::event::parse_log;
use crate::referee::{Ruling, replay};

/// The rulings of a log given as its header's `rules`, `start` and event lines.
fn rulings(rules: &str, start: Option<&str>, lines: &[&str]) -> Vec<Ruling> {
    let start = start
        .map(|s| format!(r#","start":"{s}""#))
        .unwrap_or_default();
    let mut text =
        format!(r#"{{"type":"game","variant":"renju","id":"t","rules":{rules}{start}}}"#);
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    let log = parse_log(&text).expect("log");
    replay(&log.header, &log.events)
        .expect("start")
        .rulings()
        .to_vec()
}

fn stone(side: &str, to: &str) -> String {
    format!(r#"{{"type":"move","side":"{side}","to":"{to}"}}"#)
}

fn kinds(rulings: &[Ruling]) -> Vec<(u64, &str, &str, Option<&str>)> {
    rulings
        .iter()
        .map(|r| {
            let result = r.result.map(|x| x.as_str());
            (r.at, r.kind.as_str(), r.effect.as_str(), result)
        })
        .collect()
}

/// 224 stones without a five; the last point, h13, would give black six in a row
/// (e13-j13), an overline.
const LAST_POINT_OVERLINE: &str = "xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxoxxx1xxoxoox/\
    ooxooxooxooxoox/xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxooxooxooxoox/ooxooxooxooxoox/\
    xxoxxoxxoxxoxxo/xxoxxoxxoxxoxxo/ooxooxooxooxoox/ooxooxooxooxoox/xxoxxoxxoxxoxxo/\
    xxoxxoxxoxxoxxo/ooxooxooxooxoox b";

#[test]
fn a_full_board_waits_for_whites_claim_of_the_last_stone() {
    let claim = r#"{"type":"claim","side":"white","claim":"forbidden"}"#;
    let black = stone("black", "h13");
    let claimed = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, claim]);
    assert_eq!(
        kinds(&claimed),
        [
            (1, "forbidden", "none", None),
            (2, "forbidden", "loss", Some("0-1"))
        ]
    );
    assert!(
        claimed[1]
            .text
            .contains("overline: e13 f13 g13 h13 i13 j13")
    );
    let press = r#"{"type":"clock","side":"white"}"#;
    let drawn = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, press]);
    assert_eq!(
        kinds(&drawn),
        [
            (1, "forbidden", "none", None),
            (2, "full_board", "draw", Some("1/2-1/2"))
        ]
    );
    assert!(
        drawn[1].text.contains("white did not claim"),
        "{}",
        drawn[1].text
    );
    // Black's own events do not close white's window.
    let black_press = r#"{"type":"clock","side":"black"}"#;
    let open = rulings("{}", Some(LAST_POINT_OVERLINE), &[&black, black_press]);
    assert_eq!(kinds(&open), [(1, "forbidden", "none", None)]);
    // Under "loss" the overline loses at once; the full board does not come into it.
    let lost = rulings(
        r#"{"forbidden":"loss"}"#,
        Some(LAST_POINT_OVERLINE),
        &[&black],
    );
    assert_eq!(kinds(&lost), [(1, "forbidden", "loss", Some("0-1"))]);
}

#[test]
fn the_opening_stones_go_on_the_centre_and_on_whites_side() {
    let off = rulings("{}", None, &[&stone("black", "h9")]);
    assert_eq!(kinds(&off), [(1, "illegal_move", "loss", Some("0-1"))]);
    assert_eq!(off[0].rule(), "renju 1.3");
    let row8 = rulings("{}", None, &[&stone("black", "h8"), &stone("white", "i8")]);
    assert_eq!(kinds(&row8), [(2, "illegal_move", "loss", Some("1-0"))]);
    assert_eq!(row8[0].rule(), "renju 1.4");
    let row9 = [
        stone("black", "h8"),
        stone("white", "g9"),
        stone("black", "a1"),
    ];
    let row9: Vec<&str> = row9.iter().map(String::as_str).collect();
    assert!(
        rulings("{}", None, &row9).is_empty(),
        "later stones go anywhere"
    );
    let twice = rulings("{}", None, &[&stone("black", "h8"), &stone("black", "h9")]);
    assert_eq!(kinds(&twice), [(2, "illegal_move", "loss", Some("0-1"))]);
    assert_eq!(twice[0].rule(), "renju 1.2");
    let taken = rulings("{}", None, &[&stone("black", "h8"), &stone("white", "h8")]);
    assert_eq!(kinds(&taken), [(2, "invalid_event", "none", None)]);
    assert!(
        taken[0]
            .text
            .contains("h8 already holds black's stone from event 1")
    );
}

#[test]
fn under_replay_a_true_claim_voids_the_stone_and_black_places_again() {
    let lines = [
        stone("black", "h8"),
        stone("white", "a15"),
        stone("black", "g8"),
        stone("white", "c15"),
        stone("black", "g9"),
        stone("white", "e15"),
        stone("black", "h10"),
        stone("white", "o1"),
        stone("black", "f8"),
        r#"{"type":"claim","side":"white","claim":"forbidden"}"#.to_string(),
        stone("black", "i8"),
        r#"{"type":"claim","side":"white","claim":"forbidden"}"#.to_string(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let out = rulings(r#"{"forbidden":"replay"}"#, None, &lines);
    assert_eq!(
        kinds(&out),
        [
            (9, "forbidden", "none", None),
            (10, "forbidden", "correction_required", None),
            (12, "claim_rejected", "none", None)
        ]
    );
    assert_eq!(out[1].rule(), "renju 3.1, 4.2");
    // i8 makes g8 h8 i8, one live three, and nothing else.
    assert!(
        out[2]
            .text
            .contains("black's last stone at i8 (event 11) is not on a forbidden point"),
        "{}",
        out[2].text
    );
    assert!(
        out[2].text.contains("no four and one live three"),
        "{}",
        out[2].text
    );
}

#[test]
fn a_claim_after_whites_answer_is_judged_on_the_board_black_played_on() {
    // j8 makes the live three h8 i8 j8; white's k8 answers it, then white claims.
    let lines = [
        stone("black", "h8"),
        stone("white", "a15"),
        stone("black", "i8"),
        stone("white", "a13"),
        stone("black", "j8"),
        stone("white", "k8"),
        r#"{"type":"claim","side":"white","claim":"forbidden"}"#.to_string(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let out = rulings("{}", None, &lines);
    assert_eq!(kinds(&out), [(7, "claim_rejected", "none", None)]);
    let text = &out[0].text;
    assert!(
        text.contains("three h8 i8 j8 (horizontal), live: a straight four at g8 or k8"),
        "{text}"
    );
}
