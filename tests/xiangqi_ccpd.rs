//! The 500 CCPD master games (../shared/data/xiangqi/ccpd) through the xiangqi referee:
//! their notation both ways, no ruling before the recorded end except where the
//! manifest's repetition facts or the move counter say one is due, and the cost of the 棋例
//! judgment against replay without it.

use std::path::Path;
use std::time::{Duration, Instant};

use referee::event::{Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::games::xiangqi::{Move, Position, Status};
use referee::referee::{Ruling, RulingKind, replay};
use serde_json::Value;

const MANIFEST: &str = "../../shared/data/xiangqi/ccpd/manifest.json";

struct Game {
    id: String,
    endclass: String,
    max_occurrences: u64,
    final_occurrences: u64,
    moves: Vec<Move>,
}

fn games() -> Option<Vec<Game>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(MANIFEST);
    let text = std::fs::read_to_string(path).ok()?;
    let list: Vec<Value> = serde_json::from_str(&text).expect("manifest is JSON");
    Some(list.iter().map(game).collect())
}

fn game(v: &Value) -> Game {
    let moves = v["moves_iccs"].as_str().unwrap_or_default();
    Game {
        id: v["id"].as_str().unwrap_or_default().to_string(),
        endclass: v["endclass"].as_str().unwrap_or_default().to_string(),
        max_occurrences: v["max_pos_occurrences"].as_u64().unwrap_or(1),
        final_occurrences: v["final_pos_occurrences"].as_u64().unwrap_or(1),
        moves: moves
            .split_whitespace()
            .map(|m| Move::parse(m).expect("ICCS move"))
            .collect(),
    }
}

fn events(moves: &[Move]) -> Vec<Event> {
    let sides = [Side::First, Side::Second].into_iter().cycle();
    moves
        .iter()
        .zip(sides)
        .map(|(mv, side)| Event {
            side,
            ts_ms: None,
            kind: EventKind::Move {
                from: Square::parse_text(Variant::Xiangqi, &mv.from.to_string()).unwrap(),
                to: Square::parse_text(Variant::Xiangqi, &mv.to.to_string()).unwrap(),
                promotion: None,
                captures: None,
            },
        })
        .collect()
}

/// The most single moves without capture the game ever reaches.
fn longest_quiet_stretch(moves: &[Move]) -> u32 {
    let mut pos = Position::startpos();
    moves.iter().fold(0, |most, mv| {
        pos.play(*mv);
        most.max(pos.halfmove_clock())
    })
}

fn is_cycle(kind: RulingKind) -> bool {
    matches!(
        kind,
        RulingKind::Repetition | RulingKind::PerpetualCheck | RulingKind::PerpetualChase
    )
}

/// Whether a ruling before the recorded end is one the game's own facts call for.
fn explained(g: &Game, r: &Ruling) -> bool {
    (is_cycle(r.kind) && g.max_occurrences >= 3)
        || (r.kind == RulingKind::MoveLimit && longest_quiet_stretch(&g.moves) >= 120)
}

#[test]
fn ccpd_games_replay_without_unexplained_rulings() {
    let Some(games) = games() else {
        eprintln!("CCPD data not found; skipped");
        return;
    };
    let header = Header::new(Variant::Xiangqi, "ccpd");
    let (mut quiet, mut early_cycle, mut early_limit, mut end_cycle) = (0, 0, 0, 0);
    for g in &games {
        let referee = replay(&header, &events(&g.moves)).unwrap();
        let plies = u64::try_from(g.moves.len()).unwrap();
        match referee.rulings().first() {
            None => quiet += 1,
            Some(r) if r.at == plies && is_cycle(r.kind) => end_cycle += 1,
            Some(r) if r.at == plies => {}
            Some(r) => {
                assert!(explained(g, r), "{}: unexplained ruling {:?}", g.id, r);
                if r.kind == RulingKind::MoveLimit {
                    early_limit += 1;
                } else {
                    early_cycle += 1;
                }
            }
        }
    }
    let judged_at_third = games.iter().filter(|g| g.max_occurrences >= 3).count();
    let (agree, perpetual, counted) = perpetual_agreement(&games, &header);
    eprintln!(
        "ccpd: of {perpetual} games the manifest ends in perpetual check, {counted} end on a \
         third (or later) occurrence; {agree} get a perpetual_check ruling against the same side"
    );
    assert!(
        agree >= counted,
        "every perpetual check the count reaches is ruled alike"
    );
    eprintln!(
        "ccpd: {} games; {quiet} without ruling; {end_cycle} cycle rulings on the last move; \
         {early_cycle} cycle rulings before the recorded end (manifest: {judged_at_third} games \
         reach a third occurrence); {early_limit} move-limit draws before the recorded end",
        games.len()
    );
}

/// Games the manifest ends by perpetual check, how many the referee rules alike, and how
/// many of them end on a third occurrence (most records stop at the second, when the
/// arbiter stepped in).
fn perpetual_agreement(games: &[Game], header: &Header) -> (usize, usize, usize) {
    let cases: Vec<(&Game, Side)> = games
        .iter()
        .filter_map(|g| match g.endclass.as_str() {
            "perpetual_check_by_red" => Some((g, Side::First)),
            "perpetual_check_by_black" => Some((g, Side::Second)),
            _ => None,
        })
        .collect();
    let agree = cases
        .iter()
        .filter(|(g, side)| {
            let referee = replay(header, &events(&g.moves)).unwrap();
            referee
                .rulings()
                .iter()
                .any(|r| r.kind == RulingKind::PerpetualCheck && r.side == Some(*side))
        })
        .count();
    let counted = cases
        .iter()
        .filter(|(g, _)| g.final_occurrences >= 3)
        .count();
    (agree, cases.len(), counted)
}

#[test]
fn ccpd_notation_round_trips() {
    let Some(games) = games() else {
        return;
    };
    for g in &games {
        let mut pos = Position::startpos();
        for mv in &g.moves {
            let chinese = pos.to_chinese(*mv).unwrap();
            let wxf = pos.to_wxf(*mv).unwrap();
            assert_eq!(
                pos.parse_notation(&chinese),
                Some(*mv),
                "{} {chinese}",
                g.id
            );
            assert_eq!(pos.parse_notation(&wxf), Some(*mv), "{} {wxf}", g.id);
            pos.play(*mv);
        }
    }
}

/// Replay without the draws of 4.2 and the 棋例: what the table did before them.
fn bare_replay(moves: &[Move]) -> usize {
    let mut pos = Position::startpos();
    let mut ended = 0;
    for mv in moves {
        if pos.check_move(mv.from, mv.to).is_ok() {
            pos.play(*mv);
            if pos.status() != Status::Ongoing {
                ended += 1;
            }
        }
    }
    ended
}

fn time<F: FnMut()>(mut f: F, rounds: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..rounds {
        f();
    }
    start.elapsed()
}

/// `cargo test --release --test tests ccpd_throughput -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn ccpd_throughput() {
    let games = games().expect("CCPD data");
    let header = Header::new(Variant::Xiangqi, "ccpd");
    // Both replays stop where the referee ends the game, so both do the same moves.
    let played: Vec<Vec<Move>> = games
        .iter()
        .map(|g| {
            let end = replay(&header, &events(&g.moves))
                .unwrap()
                .rulings()
                .first()
                .map(|r| r.at);
            let n = end.map_or(g.moves.len(), |at| usize::try_from(at).unwrap());
            g.moves[..n].to_vec()
        })
        .collect();
    let logs: Vec<Vec<Event>> = played.iter().map(|m| events(m)).collect();
    let plies: usize = played.iter().map(Vec::len).sum();
    let rounds = 5;
    let full = time(
        || {
            for log in &logs {
                std::hint::black_box(replay(&header, log).unwrap());
            }
        },
        rounds,
    );
    let bare = time(
        || {
            for moves in &played {
                std::hint::black_box(bare_replay(moves));
            }
        },
        rounds,
    );
    let rate = |d: Duration| {
        f64::from(u32::try_from(plies).unwrap()) * f64::from(rounds) / d.as_secs_f64()
    };
    eprintln!(
        "{plies} plies x {rounds}: referee {:.0} plies/s, bare movement rules {:.0} plies/s, ratio {:.2}",
        rate(full),
        rate(bare),
        full.as_secs_f64() / bare.as_secs_f64()
    );
}
