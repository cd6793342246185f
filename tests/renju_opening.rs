//! Renju games under the RIF opening rules (docs/rules/renju.md 7), one whole game per rule,
//! streamed through `Play` as a table's device would send them while the console shows the
//! game: the colours tentative until the opening is over, the fifth-move offers standing while
//! white chooses, the players named by the colour they hold after the swaps, the result
//! credited to the player who made five, and the tournament export naming the same player.

use std::time::Duration;

use referee::audit::{Pairings, export_tournament};
use referee::service::proto;
use serde_json::{Value, json};
use tokio_stream::StreamExt;

use crate::common::process::ServeProcess;
use crate::console::{client, get_json, runtime};
use crate::fixtures::proto_event;

/// A game: its id, the opening rule, its events as log lines, and the swaps it makes.
struct Game {
    id: &'static str,
    opening: &'static str,
    events: Vec<String>,
    swaps: usize,
}

fn stone(side: &str, to: &str) -> String {
    json!({"type": "move", "side": side, "to": to}).to_string()
}

fn swap(side: &str) -> String {
    json!({"type": "swap", "side": side}).to_string()
}

fn declare(side: &str, offers: u32) -> String {
    json!({"type": "declare", "side": side, "offers": offers}).to_string()
}

fn offer(points: &[&str]) -> String {
    json!({"type": "offer", "side": "black", "points": points}).to_string()
}

fn choose(to: &str) -> String {
    json!({"type": "choose", "side": "white", "to": to}).to_string()
}

/// After the opening (black h8 h10 and the chosen j11, white h9 h6), white plays on the
/// a-file and black makes five on row 10: g10 h10 i10 j10 k10.
fn middle_game() -> Vec<String> {
    let mut events = Vec::new();
    for (white, black) in [("a1", "i10"), ("a2", "j10"), ("a3", "k10"), ("a4", "g10")] {
        events.push(stone("white", white));
        events.push(stone("black", black));
    }
    events
}

fn games() -> Vec<Game> {
    let three = || {
        vec![
            stone("black", "h8"),
            stone("white", "h9"),
            stone("black", "h10"),
        ]
    };
    let mut rif = three();
    rif.extend([
        swap("white"),
        stone("white", "h6"),
        offer(&["g7", "j11"]),
        choose("j11"),
    ]);
    let mut yamaguchi = three();
    yamaguchi.extend([
        declare("black", 3),
        stone("white", "h6"),
        offer(&["g7", "j11", "k12"]),
        choose("j11"),
    ]);
    let taraguchi = vec![
        stone("black", "h8"),
        swap("white"),
        stone("white", "h9"),
        stone("black", "h10"),
        stone("white", "h6"),
        swap("black"),
        stone("black", "j11"),
        swap("white"),
    ];
    let mut soosorv = three();
    soosorv.extend([
        stone("white", "h6"),
        declare("white", 2),
        swap("black"),
        offer(&["g7", "j11"]),
        choose("j11"),
    ]);
    [
        ("op-rif", "rif", rif, 1),
        ("op-yamaguchi", "yamaguchi", yamaguchi, 0),
        ("op-taraguchi", "taraguchi-10", taraguchi, 3),
        ("op-soosorv", "soosorv-8", soosorv, 1),
    ]
    .into_iter()
    .map(|(id, opening, mut events, swaps)| {
        events.extend(middle_game());
        Game {
            id,
            opening,
            events,
            swaps,
        }
    })
    .collect()
}

/// Plays `game` through one `Play` stream, one event per message; every message acked.
async fn play(
    c: &mut referee::service::proto::referee_client::RefereeClient<tonic::transport::Channel>,
    game: &Game,
) {
    let tag = |name: &str, value: &str| proto::Tag {
        name: name.into(),
        value: value.into(),
    };
    c.create_game(proto::CreateGameRequest {
        header: Some(proto::GameHeader {
            variant: "renju".into(),
            id: game.id.into(),
            rules: Some(proto::RuleOptions {
                opening: Some(game.opening.into()),
                ..Default::default()
            }),
            tags: vec![
                tag("Black", "Tentative Black"),
                tag("White", "Tentative White"),
            ],
            ..Default::default()
        }),
    })
    .await
    .expect("create");
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut acks = c
        .play(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("stream")
        .into_inner();
    for (seq, line) in (1u64..).zip(&game.events) {
        tx.send(proto::PlayRequest {
            game: game.id.into(),
            expected_seq: seq,
            events: vec![proto::NewEvent {
                event_id: format!("{}-{seq}", game.id),
                event: Some(proto_event(line, referee::games::Variant::Renju)),
            }],
        })
        .await
        .expect("send");
        let reply = tokio::time::timeout(Duration::from_secs(10), acks.next())
            .await
            .expect("an answer in time")
            .expect("a reply")
            .expect("ok");
        match reply.outcome.expect("outcome") {
            proto::play_response::Outcome::Ack(ack) => {
                let voided: Vec<_> = (ack.rulings.iter())
                    .filter(|r| r.effect == "correction_required")
                    .collect();
                assert!(voided.is_empty(), "{}: {line}: {voided:?}", game.id);
            }
            proto::play_response::Outcome::Refusal(r) => {
                panic!("{}: {line} refused: {r:?}", game.id)
            }
        }
    }
}

#[test]
fn a_game_under_each_rif_opening_rule_is_refereed_from_the_first_stone_to_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let games = games();
    runtime().block_on(async {
        let mut c = client(&server).await;
        for game in &games {
            play(&mut c, game).await;
        }
    });
    for game in &games {
        let (status, view) = get_json(&console, &format!("/api/games/{}", game.id), None);
        assert_eq!(status, 200, "{view}");
        let frames = view["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), game.events.len() + 1);
        // Tentative while a step of the rule is due, settled once the opening is over.
        assert_eq!(frames[0]["tentative"], true, "{}: {}", game.id, frames[0]);
        let last = &frames[frames.len() - 1];
        assert_eq!(last["tentative"], false, "{}", game.id);
        // The player credited: the tags name the colours at the start; each swap moves them.
        let [black, white] = if game.swaps % 2 == 1 {
            ["Tentative White", "Tentative Black"]
        } else {
            ["Tentative Black", "Tentative White"]
        };
        assert_eq!(last["players"], json!([black, white]), "{}", game.id);
        assert_eq!(last["swapped"], game.swaps % 2 == 1, "{}", game.id);
        assert_eq!(view["result"], "1-0", "{}: black made five", game.id);
        // Where black offered fifth moves, the frame before white's choice shows them.
        let offered = game.events.iter().position(|e| e.contains("\"offer\""));
        if let Some(index) = offered {
            let offers: Value = serde_json::from_str(&game.events[index]).expect("json");
            assert_eq!(
                frames[index + 1]["offers"],
                offers["points"],
                "{}: the offers stand while white chooses",
                game.id
            );
            assert_eq!(frames[index + 1]["to_move"], "white", "{}", game.id);
            assert_eq!(frames[index + 2]["offers"], json!([]), "{}", game.id);
            let open = frames[index + 1]["open"].to_string();
            assert!(open.contains("offers pending"), "{}: {open}", game.id);
        }
    }
    // The record the console offers names the players as they hold the colours, and writes
    // the opening's steps where they were made.
    let answer = crate::common::http::request(
        &console,
        "GET",
        "/api/games/op-soosorv/download/renju",
        &[],
        "",
    )
    .expect("console answers");
    assert_eq!(answer.status, 200, "{}", answer.body);
    for needle in [
        "[Black \"Tentative White\"]",
        "[White \"Tentative Black\"]",
        "[Opening \"soosorv-8\"]",
        "4. h6 {declare 2} {swap} {offer g7 j11} 5. j11",
        "1-0",
    ] {
        assert!(answer.body.contains(needle), "{needle} in {}", answer.body);
    }
    drop(server);
    crate::common::released(&dir.path().join("data"));
    let log = referee::log::SledLog::open(&dir.path().join("data")).expect("reopen");
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let export = runtime()
        .block_on(export_tournament(
            &log,
            "op-",
            &Pairings::default(),
            &key,
            0,
        ))
        .expect("export");
    for game in &games {
        let winner = if game.swaps % 2 == 1 {
            "Tentative White"
        } else {
            "Tentative Black"
        };
        let line = (export.text.lines())
            .find(|l| l.contains(&format!("\"game\":\"{}\"", game.id)))
            .unwrap_or_else(|| panic!("{} in {}", game.id, export.text));
        assert!(
            line.contains(&format!("\"first\":\"{winner}\""))
                && line.contains("\"result\":\"1-0\""),
            "{}: the winner holds black: {line}",
            game.id
        );
    }
}
