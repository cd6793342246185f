//! The 171 real games of the FMJD PDN standard's test set (`../shared/data/draughts/
//! fmjd_pdn_standard/games/`; World Championship 2003, Dutch and Italian championships,
//! Sijbrands games, candidates 1995, online games) imported from their PDN files: every move
//! is legal, the only ruling is the one that gives the recorded result, and import, export
//! and import again give the same moves.

use std::collections::BTreeMap;
use std::path::PathBuf;

use referee::cli::pdn::{log_from_pdn, pdn_from_referee};
use referee::event::EventKind;
use referee::games::draughts::{Move, parse_pdn};
use referee::referee::{Referee, RulingKind, replay};

use crate::common::shared_data;

/// Every game of every file: (name, the PDN game); `None` (and a note) where the shared data
/// is not above the checkout, as for the other tests of real games.
fn all_games() -> Option<Vec<(String, referee::games::draughts::PdnGame)>> {
    games_in("games")
}

fn games_in(folder: &str) -> Option<Vec<(String, referee::games::draughts::PdnGame)>> {
    let dir = shared_data(&format!("draughts/fmjd_pdn_standard/{folder}"))
        .unwrap_or_else(|| panic!("tests/data/draughts/fmjd_pdn_standard/{folder} is missing"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the FMJD games directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdn"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let stem = file
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        let games = parse_pdn(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (n, game) in (1..).zip(games) {
            out.push((format!("{stem}-{n}"), game));
        }
    }
    Some(out)
}

fn record(referee: &Referee) -> Vec<Move> {
    referee
        .draughts_record()
        .expect("draughts")
        .moves()
        .collect()
}

/// kurnik.pdn's third game (an online game, where the site does not apply 12.3.1) went on
/// after its position stood for the third time; the record ends with the position on the
/// board for the fifth time and a draw. The referee rules the draw at the third occurrence.
const WENT_ON_AFTER_A_REPETITION: &str = "kurnik-3";

/// Two records contradict themselves: the Result tag says one thing and the move text ends
/// with another. The import follows the tag and says so. In the first, black is to move with
/// four men against three, two of them two steps from crowning (B:W23,35,36:B13,27,31,37):
/// the tag's 0-1 is the likely truth and the text's 1-0 a slip.
const RESULT_TAG_DIFFERS: [&str; 2] = ["40Camp.DamaInternazionaleAssoluto-1", "candidate95-8"];

#[test]
fn real_games_replay_to_their_recorded_results() {
    let Some(games) = all_games() else { return };
    assert_eq!(games.len(), 171, "games in the test set");
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (id, game) in &games {
        let imported = log_from_pdn(game, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let conflict = RESULT_TAG_DIFFERS.contains(&id.as_str());
        match &imported.note {
            Some(note) if conflict && note.contains("the tag is followed") => {}
            None if !conflict => {}
            other => failures.push(format!("{id}: {other:?}")),
        }
        let moves = imported
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Move { .. }))
            .count();
        assert_eq!(moves, game.moves.len(), "{id}: one event per move");
        let referee = replay(&imported.header, &imported.events).expect("replay");
        let rulings = referee.rulings();
        let want = game.outcome().map(|o| format!("{o:?}"));
        match rulings {
            [only] if only.result.is_some() => {
                *kinds.entry(only.kind.to_string()).or_default() += 1;
                let result = only.result.expect("result").to_string();
                let expected = match want.as_deref() {
                    Some("WhiteWins") => "1-0",
                    Some("BlackWins") => "0-1",
                    _ => "1/2-1/2",
                };
                if result != expected {
                    failures.push(format!("{id}: result {result}, recorded {want:?}"));
                }
                let repetition = only.kind == RulingKind::Repetition;
                if repetition != (id == WENT_ON_AFTER_A_REPETITION) {
                    failures.push(format!("{id}: {}", only.text));
                }
            }
            other => failures.push(format!(
                "{id}: rulings {:?}",
                other.iter().map(|r| &r.text).collect::<Vec<_>>()
            )),
        }
        if id != WENT_ON_AFTER_A_REPETITION {
            assert_eq!(
                record(&referee).len(),
                game.moves.len(),
                "{id}: every move stands"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 78 decisive games end with the loser's resignation; of the 93 draws, 90 are offers
    // accepted after 40 moves each (12.4), one is the repetition above, and two the arbiter
    // declares: a game not played (Italian championship 2004, round 3, both players
    // "non disponibile", two moves recorded) and a draw agreed after 33 moves each.
    let want: BTreeMap<String, usize> = [
        ("agreement", 90),
        ("arbiter_decision", 2),
        ("repetition", 1),
        ("resignation", 78),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    assert_eq!(kinds, want);
}

#[test]
fn import_export_import_keeps_every_move() {
    let Some(games) = all_games() else { return };
    for (id, game) in games {
        let first = log_from_pdn(&game, &id).expect("import");
        let referee = replay(&first.header, &first.events).expect("replay");
        let pdn = pdn_from_referee(&referee).expect("draughts");
        let again = parse_pdn(&pdn).unwrap_or_else(|e| panic!("{id}: {e}\n{pdn}"));
        assert_eq!(again.len(), 1, "{id}");
        let second = log_from_pdn(&again[0], &id).unwrap_or_else(|e| panic!("{id}: {e}\n{pdn}"));
        let referee2 = replay(&second.header, &second.events).expect("replay");
        assert_eq!(record(&referee2), record(&referee), "{id}\n{pdn}");
        assert_eq!(
            referee2.ending().map(|e| e.result),
            referee.ending().map(|e| e.result),
            "{id}"
        );
    }
}

/// Cat.C1.pdn ends its 45th problem with `1-0`, then has a stray `36x27 1-0` with no tags: a
/// fragment, read as a game from the start, where 36-27 is no move of a man (5.4).
const STRAY_FRAGMENT: &str = "Cat.C1-46";

/// The 246 composed problems (FEN set-ups with kings and long multiple captures, solutions as
/// move text): every solution move is legal from its set-up, and the only ruling is the end.
#[test]
fn composed_problems_import_from_their_set_ups() {
    let Some(games) = games_in("problems") else {
        return;
    };
    assert_eq!(games.len(), 247, "246 problems and the stray fragment");
    let mut failures = Vec::new();
    for (id, game) in &games {
        assert!(
            game.tag("FEN").is_some() || id == STRAY_FRAGMENT,
            "{id}: no set-up"
        );
        let imported = log_from_pdn(game, id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let referee = replay(&imported.header, &imported.events).expect("replay");
        let kinds: Vec<RulingKind> = referee.rulings().iter().map(|r| r.kind).collect();
        let fine = match kinds.as_slice() {
            [] => game.outcome().is_none(),
            [RulingKind::IllegalMove, RulingKind::Resignation] => id == STRAY_FRAGMENT,
            [only] => referee.rulings()[0].result.is_some() && *only != RulingKind::IllegalMove,
            _ => false,
        };
        if !fine || imported.note.is_some() {
            failures.push(format!("{id}: {:?} {:?}", imported.note, referee.rulings()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
