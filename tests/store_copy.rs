//! `referee store copy` as an operator runs it (issue 18 item 5): a sled store into
//! PostgreSQL and back, every record and hash unchanged, every ruling the same; a target that
//! already holds a game refused before anything is written; bad specs refused naming the flag.

use std::path::Path;
use std::process::Output;

use crate::common::postgres::Cluster;
use crate::common::{referee, released, repo_path};
use referee::log::{GameInfo, Log, NewEvent, PgLog, Record, Rejection, SledLog};
use referee::referee::{Ruling, replay};
use referee::stored::load_log;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Real games of each variant, imported as `referee import` stores them.
const FIXTURES: [&str; 4] = [
    "replay-fixtures/draughts/real-kurnik-3.jsonl",
    "replay-fixtures/draughts/real-delfts-1.jsonl",
    "replay-fixtures/xiangqi/arbiter-declares-a-draw.jsonl",
    "replay-fixtures/chess_gjq/arbiter-second-foul-loses.jsonl",
];
/// A long game: more records than one read chunk (4096) and than one INSERT (500 rows).
const LONG_GAME: &str = "long-xiangqi";
const LONG_EVENTS: u64 = 5000;

/// Imports the fixtures and appends the long game, in batches as boards send them.
async fn sled_store(data: &Path) {
    for fixture in FIXTURES {
        let file = repo_path(fixture);
        let done = referee(&["import", path(&file), "--data", path(data)]);
        assert!(done.status.success(), "{}", stderr(&done));
    }
    let log = SledLog::open(data).expect("open");
    let header = format!(r#"{{"type":"game","variant":"xiangqi","id":"{LONG_GAME}"}}"#);
    log.create(LONG_GAME, header, "test")
        .await
        .unwrap()
        .unwrap();
    for first in (1..=LONG_EVENTS).step_by(100) {
        let events = (first..first + 100).map(draw_offer).collect();
        log.append(LONG_GAME, first, events).await.unwrap().unwrap();
    }
    drop(log);
    released(data);
}

fn draw_offer(seq: u64) -> NewEvent {
    NewEvent {
        event_id: format!("offer-{seq}"),
        body: r#"{"type":"draw_offer","side":"red"}"#.into(),
        writer: format!("board-{}", seq % 3),
    }
}

/// A game of a store: its head, all its records, and the rulings a replay gives.
type Game = (GameInfo, Vec<Record>, Vec<Ruling>);
type Games = Vec<Game>;

async fn everything(log: &impl Log) -> Games {
    let mut games = Vec::new();
    for info in log.games().await.expect("games") {
        let records = log.read(&info.game, 0, None).await.unwrap().unwrap();
        let loaded = load_log(log, &info.game, None).await.expect("load");
        let events: Vec<_> = loaded.events.into_iter().map(|(_, e)| e).collect();
        let rulings = replay(&loaded.header, &events)
            .expect("replay")
            .rulings()
            .to_vec();
        games.push((info, records, rulings));
    }
    games
}

async fn sled_games(data: &Path) -> Games {
    let log = SledLog::open(data).expect("open");
    let games = everything(&log).await;
    drop(log);
    released(data);
    games
}

fn assert_same(copied: &[Game], source: &[Game], what: &str) {
    assert_eq!(copied.len(), source.len(), "{what}: games");
    for ((info, records, rulings), (source_info, source_records, source_rulings)) in
        copied.iter().zip(source)
    {
        let game = &source_info.game;
        assert_eq!(info.game, *game, "{what}: creation order");
        assert_eq!(
            info.last_seq, source_info.last_seq,
            "{what}: {game} last seq"
        );
        assert_eq!(info.head_hash, source_info.head_hash, "{what}: {game} head");
        assert_eq!(
            info.created_ms, source_info.created_ms,
            "{what}: {game} created"
        );
        // Record equality covers seq, event id, receive time, writer, body and both hashes.
        assert!(records == source_records, "{what}: {game} records differ");
        assert_eq!(rulings, source_rulings, "{what}: {game} rulings");
    }
}

fn copy(from: &str, to: &str) -> Output {
    referee(&["store", "copy", "--from", from, "--to", to])
}

fn record_rows(cluster: &Cluster) -> String {
    cluster.psql("postgres", "SELECT count(*) FROM referee_records")
}

#[tokio::test]
async fn sled_to_postgres_and_back_keeps_every_record_hash_and_ruling() {
    let test = "store_copy::sled_to_postgres_and_back_keeps_every_record_hash_and_ruling";
    let Some(cluster) = Cluster::start(test) else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    sled_store(&data).await;
    let source = sled_games(&data).await;
    assert_eq!(source.len(), FIXTURES.len() + 1);
    assert!(source.iter().any(|(_, _, rulings)| !rulings.is_empty()));

    let from = format!("sled:{}", path(&data));
    let started = std::time::Instant::now();
    let done = copy(&from, &cluster.url());
    eprintln!(
        "sled -> postgres: {:?}\n{}",
        started.elapsed(),
        stdout(&done)
    );
    assert!(done.status.success(), "{}{}", stdout(&done), stderr(&done));
    for (info, records, _) in &source {
        let line = format!(
            "COPIED   {}  {} records  head {}",
            info.game,
            records.len(),
            &hex::encode(info.head_hash)[..16]
        );
        assert!(stdout(&done).contains(&line), "{line} in {}", stdout(&done));
    }
    assert!(stdout(&done).contains("every game's head hash in the target equals the source's"));

    let pg = PgLog::open(&cluster.url()).await.expect("open postgres");
    assert_same(&everything(&pg).await, &source, "in postgres");
    drop(pg);

    // Run again, as after an interruption: every game is found whole, nothing is written.
    let rows = record_rows(&cluster);
    let again = copy(&from, &cluster.url());
    assert!(
        again.status.success(),
        "{}{}",
        stdout(&again),
        stderr(&again)
    );
    assert!(stdout(&again).contains("0 copied"), "{}", stdout(&again));
    assert!(stdout(&again).contains(&format!("{} already in the target", source.len())));
    assert_eq!(record_rows(&cluster), rows);

    // Interrupted before the last game (each game is one transaction: whole or absent).
    let forget = ["referee_heads", "referee_records", "referee_games"]
        .map(|table| format!("DELETE FROM {table} WHERE game = '{LONG_GAME}';"))
        .concat();
    cluster.psql("postgres", &forget);
    let resumed = copy(&from, &cluster.url());
    assert!(
        resumed.status.success(),
        "{}{}",
        stdout(&resumed),
        stderr(&resumed)
    );
    let summary = format!("1 copied ({} records", LONG_EVENTS + 1);
    assert!(stdout(&resumed).contains(&summary), "{}", stdout(&resumed));
    assert!(stdout(&resumed).contains(&format!("{} already", source.len() - 1)));
    assert_eq!(record_rows(&cluster), rows);

    let pg = PgLog::open(&cluster.url()).await.expect("open postgres");
    assert_same(
        &everything(&pg).await[..FIXTURES.len()],
        &source[..FIXTURES.len()],
        "resumed",
    );
    drop(pg);

    let back = root.path().join("back");
    let started = std::time::Instant::now();
    let done = copy(&cluster.url(), &format!("sled:{}", path(&back)));
    eprintln!(
        "postgres -> sled: {:?}\n{}",
        started.elapsed(),
        stdout(&done)
    );
    assert!(done.status.success(), "{}{}", stdout(&done), stderr(&done));
    released(&back);
    assert_same(&sled_games(&back).await, &source, "back in sled");

    let check = referee(&["store", "check", "--data", path(&back)]);
    assert!(check.status.success(), "{}", stdout(&check));
    let hold = format!("{0} games: {0} hold, 0 damaged", source.len());
    assert!(stdout(&check).contains(&hold), "{}", stdout(&check));
}

#[tokio::test]
async fn a_target_holding_a_game_of_the_same_id_is_refused_before_anything_is_written() {
    let test =
        "store_copy::a_target_holding_a_game_of_the_same_id_is_refused_before_anything_is_written";
    let Some(cluster) = Cluster::start(test) else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    sled_store(&data).await;
    let pg = PgLog::open(&cluster.url()).await.expect("open postgres");
    let header = format!(r#"{{"type":"game","variant":"xiangqi","id":"{LONG_GAME}"}}"#);
    pg.create(LONG_GAME, header, "elsewhere")
        .await
        .unwrap()
        .unwrap();
    drop(pg);
    let rows = record_rows(&cluster);

    let done = copy(&format!("sled:{}", path(&data)), &cluster.url());
    assert_eq!(done.status.code(), Some(1), "{}", stdout(&done));
    assert!(
        stdout(&done).contains(&format!("REFUSED  {LONG_GAME}")),
        "{}",
        stdout(&done)
    );
    assert!(
        stderr(&done).contains("--to already holds 1"),
        "{}",
        stderr(&done)
    );
    assert!(!stdout(&done).contains("COPIED"), "{}", stdout(&done));
    assert_eq!(record_rows(&cluster), rows, "nothing written");
    let games = cluster.psql("postgres", "SELECT count(*) FROM referee_games");
    assert_eq!(games.trim(), "1");
}

#[tokio::test]
async fn bad_specs_and_a_store_in_use_are_refused_naming_the_flag() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    let to = format!("sled:{}", path(&root.path().join("to")));
    for (from, to, flag) in [
        ("./data", to.as_str(), "--from"),
        ("sled:", to.as_str(), "--from"),
        ("sled:x", "mysql://db", "--to"),
        ("sled:x", "host=db port=none", "--to"),
        ("sled:x", "sled:x", "--from and --to"),
    ] {
        let done = copy(from, to);
        assert_eq!(
            done.status.code(),
            Some(2),
            "{from} {to}: {}",
            stderr(&done)
        );
        assert!(stderr(&done).contains(flag), "{flag}: {}", stderr(&done));
    }

    // A sled source is copied only under its lock: not while a server holds it.
    let log = SledLog::open(&data).expect("open");
    let done = copy(&format!("sled:{}", path(&data)), &to);
    assert!(!done.status.success());
    let said = stderr(&done);
    assert!(said.contains("in use, not damaged"), "{said}");
    assert!(said.contains("stop that process first"), "{said}");
    drop(log);
}

#[tokio::test]
async fn postgres_restores_only_a_sound_chain() {
    let test = "store_copy::postgres_restores_only_a_sound_chain";
    let Some(cluster) = Cluster::start(test) else {
        return;
    };
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    sled_store(&data).await;
    let source = sled_games(&data).await;
    let (_, records, _) = &source[2];
    let pg = PgLog::open(&cluster.url()).await.expect("open postgres");

    // A receive time changed: the record no longer hashes to its hash.
    let mut altered = records.clone();
    altered[1].received_ms += 1;
    let refused = pg.restore(altered).await.expect("no disaster");
    assert!(
        matches!(refused, Err(Rejection::BadEvent { index: 1, .. })),
        "{refused:?}"
    );
    // A record left out: the next one does not chain.
    let mut gap = records.clone();
    gap.remove(2);
    let refused = pg.restore(gap).await.expect("no disaster");
    assert!(
        matches!(refused, Err(Rejection::BadEvent { index: 2, .. })),
        "{refused:?}"
    );
    assert!(pg.games().await.expect("games").is_empty());

    let info = pg.restore(records.clone()).await.unwrap().unwrap();
    assert_eq!(info.head_hash, records.last().expect("records").hash);
    let again = pg.restore(records.clone()).await.expect("no disaster");
    assert!(
        matches!(again, Err(Rejection::GameExists { .. })),
        "{again:?}"
    );
    assert_eq!(
        pg.read(&info.game, 0, None).await.unwrap().unwrap(),
        *records
    );
}
