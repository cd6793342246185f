//! The log's tests: behaviour through the `Log` trait, damage injected through a raw sled
//! handle, and a real kill -9 of a child process.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use tokio_stream::StreamExt;

use super::layout::{self, Head};
use super::record::Unsealed;
use super::{Error, Log, NewEvent, Record, Rejection, SledLog, ZERO_HASH};

const GAME: &str = "r3-b12";
const HEADER: &str = r#"{"game":"xiangqi","red":"A","black":"B"}"#;

fn event(id: &str, body: &str) -> NewEvent {
    NewEvent {
        event_id: id.into(),
        body: body.into(),
        writer: "test".into(),
    }
}

fn events(ids: std::ops::RangeInclusive<u64>) -> Vec<NewEvent> {
    ids.map(|n| event(&format!("e{n}"), &format!(r#"{{"n":{n}}}"#)))
        .collect()
}

fn open(dir: &Path) -> SledLog {
    SledLog::open(dir).expect("open log")
}

async fn create(log: &SledLog, game: &str) -> Record {
    log.create(game, HEADER.into(), "cli")
        .await
        .unwrap()
        .unwrap()
}

/// A game with its header and events e1..=e{n} at seqs 1..=n.
async fn game_with(log: &SledLog, game: &str, n: u64) {
    create(log, game).await;
    if n > 0 {
        log.append(game, 1, events(1..=n)).await.unwrap().unwrap();
    }
}

async fn read_all(log: &SledLog, game: &str) -> Result<Vec<Record>, Error> {
    log.read(game, 0, None).await.map(|r| r.unwrap())
}

fn data_loss_seq(result: Result<Vec<Record>, Error>) -> (String, u64, String) {
    match result {
        Err(Error::DataLoss { game, seq, detail }) => (game, seq, detail),
        other => panic!("expected data loss, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_then_read_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    let header = create(&log, GAME).await;
    assert_eq!(
        (header.seq, header.body.as_str(), header.prev_hash),
        (0, HEADER, ZERO_HASH)
    );
    let appended = log.append(GAME, 1, events(1..=3)).await.unwrap().unwrap();
    assert!(!appended.duplicate);
    assert_eq!(
        appended.records.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [1, 2, 3]
    );

    let all = read_all(&log, GAME).await.unwrap();
    assert_eq!(all[0], header);
    assert_eq!(all[1..], appended.records[..]);
    for pair in all.windows(2) {
        assert_eq!(
            pair[1].prev_hash, pair[0].hash,
            "chain links seq {}",
            pair[1].seq
        );
    }
    assert_eq!(
        log.read(GAME, 2, Some(3)).await.unwrap().unwrap(),
        all[2..=3]
    );
    assert_eq!(
        log.read(GAME, 2, Some(99)).await.unwrap().unwrap(),
        all[2..]
    );
    assert!(log.read(GAME, 4, None).await.unwrap().unwrap().is_empty());
    let info = log.info(GAME).await.unwrap().unwrap();
    assert_eq!((info.last_seq, info.head_hash), (3, all[3].hash));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_expected_seq_names_the_last_seq() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    game_with(&log, GAME, 5).await;
    let rejection = log
        .append(GAME, 7, events(6..=6))
        .await
        .unwrap()
        .unwrap_err();
    let expected = Rejection::SeqMismatch {
        game: GAME.into(),
        expected: 7,
        last: 5,
    };
    assert_eq!(rejection, expected);
    assert_eq!(
        rejection.to_string(),
        r#"expected seq 7 but game "r3-b12" is at seq 5 (next is 6)"#
    );
    let stale = log.append(GAME, 5, events(6..=6)).await.unwrap();
    assert!(matches!(
        stale,
        Err(Rejection::SeqMismatch {
            expected: 5,
            last: 5,
            ..
        })
    ));
    assert_eq!(log.info(GAME).await.unwrap().unwrap().last_seq, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_with_same_ids_is_acknowledged_again_not_duplicated() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    create(&log, GAME).await;
    let first = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    let events_before = log.stats().events;

    let retry = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    assert!(retry.duplicate);
    assert_eq!(retry.records, first.records);

    // Still a retry after others appended: its expected seq is stale, its ids are not.
    log.append(GAME, 3, events(3..=3)).await.unwrap().unwrap();
    let late = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    assert_eq!((late.duplicate, late.records), (true, first.records));

    assert_eq!(log.stats().events, events_before + 1);
    assert_eq!(read_all(&log, GAME).await.unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reused_event_id_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    game_with(&log, GAME, 2).await;

    let changed = log
        .append(GAME, 3, vec![event("e2", r#"{"other":true}"#)])
        .await
        .unwrap();
    let reused = Rejection::EventIdReused {
        game: GAME.into(),
        event_id: "e2".into(),
        seq: 2,
    };
    assert_eq!(changed, Err(reused.clone()));

    let mixed = vec![event("e9", "{}"), events(2..=2).remove(0)];
    assert_eq!(log.append(GAME, 3, mixed).await.unwrap(), Err(reused));
    assert_eq!(log.info(GAME).await.unwrap().unwrap().last_seq, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_games_and_bad_requests_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    let unknown = Rejection::UnknownGame {
        game: "nope".into(),
    };
    assert_eq!(
        log.append("nope", 1, events(1..=1)).await.unwrap(),
        Err(unknown.clone())
    );
    assert_eq!(
        log.read("nope", 0, None).await.unwrap(),
        Err(unknown.clone())
    );
    assert!(matches!(log.watch("nope", 0).await.unwrap(), Err(r) if r == unknown));
    assert_eq!(log.info("nope").await.unwrap(), None);
    assert_eq!(unknown.to_string(), r#"unknown game "nope""#);

    create(&log, GAME).await;
    let again = log.create(GAME, HEADER.into(), "cli").await.unwrap();
    assert_eq!(again, Err(Rejection::GameExists { game: GAME.into() }));
    // Empty, too long, or with a character a terminal or a log line would not show as it
    // is (a newline, NUL, the escape of a terminal sequence, DEL, a bidirectional override).
    let hidden = ["r1\nb2", "r1\0", "r1\u{1b}[2J", "r1\u{7f}", "r1\u{202e}2b"];
    for bad in [String::new(), "x".repeat(129)]
        .into_iter()
        .chain(hidden.map(String::from))
    {
        let rejected = log.create(&bad, HEADER.into(), "cli").await.unwrap();
        assert!(
            matches!(rejected, Err(Rejection::BadGameId { .. })),
            "{bad:?}"
        );
    }
    assert!(
        log.create(&"é".repeat(64), HEADER.into(), "cli")
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(
        log.append(GAME, 1, vec![]).await.unwrap(),
        Err(Rejection::EmptyAppend)
    );
    let twice = vec![event("a", "{}"), event("a", "{}")];
    assert!(matches!(
        log.append(GAME, 1, twice).await.unwrap(),
        Err(Rejection::BadEvent { index: 1, .. })
    ));
    let newline = vec![event("a", "{}\n{}")];
    assert!(matches!(
        log.append(GAME, 1, newline).await.unwrap(),
        Err(Rejection::BadEvent { index: 0, .. })
    ));
    assert_eq!(log.info(GAME).await.unwrap().unwrap().last_seq, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_appenders_share_fsyncs() {
    const GAMES: u64 = 64;
    const PER_GAME: u64 = 100;
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    for g in 0..GAMES {
        create(&log, &format!("game-{g}")).await;
    }
    let before = log.stats();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for g in 0..GAMES {
        tasks.push(tokio::spawn(append_one_by_one(
            log.clone(),
            format!("game-{g}"),
            PER_GAME,
        )));
    }
    let mut acks = HashMap::new();
    for task in tasks {
        acks.extend(task.await.unwrap());
    }
    let elapsed = started.elapsed();
    let stats = log.stats();
    let (events, batches, syncs) = (
        stats.events - before.events,
        stats.batches - before.batches,
        stats.syncs - before.syncs,
    );
    println!(
        "{events} events from {GAMES} concurrent appenders in {elapsed:?}: {:.0} events/s, \
         {batches} batches, {syncs} syncs",
        events as f64 / elapsed.as_secs_f64()
    );
    assert_eq!(events, GAMES * PER_GAME);
    assert!(syncs <= batches && batches < events, "{stats:?}");
    for g in 0..GAMES {
        let game = format!("game-{g}");
        let records = read_all(&log, &game).await.unwrap();
        assert_eq!(u64::try_from(records.len()).unwrap(), PER_GAME + 1);
        for record in &records[1..] {
            assert_eq!(acks[&(game.clone(), record.event_id.clone())], record.seq);
        }
    }
    log.verify_all().unwrap();
}

/// Appends `n` events to `game`, one request each, waiting for every ack.
async fn append_one_by_one(log: SledLog, game: String, n: u64) -> Vec<((String, String), u64)> {
    let mut acks = Vec::new();
    for seq in 1..=n {
        let appended = log
            .append(&game, seq, events(seq..=seq))
            .await
            .unwrap()
            .unwrap();
        let record = &appended.records[0];
        acks.push(((game.clone(), record.event_id.clone()), record.seq));
    }
    acks
}

async fn next(
    stream: &mut (impl tokio_stream::Stream<Item = Result<Record, Error>> + Unpin),
) -> Record {
    let item = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
    item.expect("watch timed out")
        .expect("watch ended")
        .expect("watch failed")
}

async fn nothing_more(
    stream: &mut (impl tokio_stream::Stream<Item = Result<Record, Error>> + Unpin),
) {
    let item = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    assert!(item.is_err(), "unexpected {item:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_catches_up_then_follows_live() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    game_with(&log, GAME, 3).await;
    let mut all = Box::pin(log.watch(GAME, 0).await.unwrap().unwrap());
    let mut middle = Box::pin(log.watch(GAME, 2).await.unwrap().unwrap());
    let mut ahead = Box::pin(log.watch(GAME, 5).await.unwrap().unwrap());
    for seq in 0..=3 {
        assert_eq!(next(&mut all).await.seq, seq);
    }
    for seq in 2..=3 {
        assert_eq!(next(&mut middle).await.seq, seq);
    }
    nothing_more(&mut all).await;
    nothing_more(&mut ahead).await;

    log.append(GAME, 4, events(4..=5)).await.unwrap().unwrap();
    log.append(GAME, 6, events(6..=6)).await.unwrap().unwrap();
    for seq in 4..=6 {
        assert_eq!(next(&mut all).await.seq, seq);
        assert_eq!(next(&mut middle).await.seq, seq);
    }
    assert_eq!(next(&mut ahead).await.seq, 5);
    assert_eq!(next(&mut ahead).await.seq, 6);
    nothing_more(&mut all).await;
    nothing_more(&mut middle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_ends_with_closed_when_the_log_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    game_with(&log, GAME, 1).await;
    let mut watcher = Box::pin(log.watch(GAME, 2).await.unwrap().unwrap());
    drop(log);
    let item = tokio::time::timeout(Duration::from_secs(5), watcher.next())
        .await
        .unwrap();
    assert_eq!(item, Some(Err(Error::Closed)));
    assert_eq!(watcher.next().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_recovers_games_heads_and_chain() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    game_with(&log, GAME, 4).await;
    game_with(&log, "second", 1).await;
    let (records, games) = (
        read_all(&log, GAME).await.unwrap(),
        log.games().await.unwrap(),
    );
    drop(log);
    released(dir.path());

    let log = open(dir.path());
    log.verify_all().unwrap();
    assert_eq!(log.games().await.unwrap(), games);
    assert_eq!(read_all(&log, GAME).await.unwrap(), records);
    let next = log.append(GAME, 5, events(5..=5)).await.unwrap().unwrap();
    assert_eq!(next.records[0].prev_hash, records[4].hash);
    game_with(&log, "third", 2).await;
    assert_eq!(read_all(&log, "second").await.unwrap().len(), 2);
    assert_eq!(read_all(&log, "third").await.unwrap().len(), 3);
    log.verify_all().unwrap();
}

/// Opens the store behind a closed log with plain sled, to damage it.
fn tamper(dir: &Path, damage: impl FnOnce(&sled::Db)) {
    let db = sled::open(dir).unwrap();
    damage(&db);
    db.flush().unwrap();
    drop(db);
    released(dir);
}

/// Waits until no handle holds sled's lock on the store: sled's background threads can keep
/// the file open a moment after the last handle is dropped, and the next open would fail.
fn released(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let db = std::fs::File::open(dir.join("db")).expect("db file");
    while db.try_lock().is_err() {
        assert!(
            Instant::now() < deadline,
            "sled's lock on {dir:?} was never released"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The first game created gets number 1.
const FIRST: u64 = 1;

async fn closed_game_with(dir: &Path, n: u64) {
    let log = open(dir);
    game_with(&log, GAME, n).await;
    drop(log);
    released(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_is_data_loss_not_data() {
    let dir = tempfile::tempdir().unwrap();
    closed_game_with(dir.path(), 5).await;
    tamper(dir.path(), |db| {
        let key = layout::event_key(FIRST, 3);
        let mut value = db.get(key).unwrap().unwrap().to_vec();
        let body_byte = value.len() - 40;
        value[body_byte] ^= 0x01;
        db.insert(key, value).unwrap();
    });
    let log = open(dir.path());
    let (game, seq, detail) = data_loss_seq(read_all(&log, GAME).await);
    assert_eq!((game.as_str(), seq), (GAME, 3), "{detail}");
    assert!(matches!(
        log.verify_all(),
        Err(Error::DataLoss { seq: 3, .. })
    ));
    // Ranges that do not touch the damage are still served.
    assert_eq!(log.read(GAME, 0, Some(1)).await.unwrap().unwrap().len(), 2);
    let mut watcher = Box::pin(log.watch(GAME, 0).await.unwrap().unwrap());
    let item = watcher.next().await.unwrap();
    assert!(
        matches!(item, Err(Error::DataLoss { seq: 3, .. })),
        "{item:?}"
    );
    assert_eq!(watcher.next().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_record_is_data_loss() {
    let dir = tempfile::tempdir().unwrap();
    closed_game_with(dir.path(), 5).await;
    tamper(dir.path(), |db| {
        db.remove(layout::event_key(FIRST, 3)).unwrap();
    });
    let log = open(dir.path());
    let (game, seq, detail) = data_loss_seq(read_all(&log, GAME).await);
    assert_eq!(
        (game.as_str(), seq, detail.as_str()),
        (GAME, 3, "record is missing")
    );
    assert!(matches!(
        log.read(GAME, 4, None).await.unwrap_err(),
        Error::DataLoss { seq: 3, .. }
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undecodable_and_rechained_records_are_data_loss() {
    let dir = tempfile::tempdir().unwrap();
    closed_game_with(dir.path(), 5).await;
    tamper(dir.path(), |db| {
        db.insert(layout::event_key(FIRST, 2), &b"garbage"[..])
            .unwrap();
    });
    let log = open(dir.path());
    assert!(matches!(
        read_all(&log, GAME).await,
        Err(Error::DataLoss { seq: 2, .. })
    ));
    drop(log);

    // A last record rewritten whole, with a hash that matches its new contents: only the
    // head can tell.
    let dir = tempfile::tempdir().unwrap();
    closed_game_with(dir.path(), 5).await;
    tamper(dir.path(), |db| {
        let key = layout::event_key(FIRST, 5);
        let old = super::record::open(GAME, 5, &db.get(key).unwrap().unwrap()).unwrap();
        let forged = Unsealed {
            game: GAME,
            seq: 5,
            event_id: &old.event_id,
            received_ms: old.received_ms,
            writer: &old.writer,
            body: r#"{"forged":true}"#,
            prev_hash: old.prev_hash,
        };
        db.insert(key, forged.seal().unwrap().0).unwrap();
    });
    let log = open(dir.path());
    let (_, seq, detail) = data_loss_seq(read_all(&log, GAME).await);
    assert_eq!(seq, 5, "{detail}");
    assert!(detail.contains("head"), "{detail}");
}

#[test]
fn event_keys_sort_in_seq_order() {
    let seqs = [
        0,
        1,
        254,
        255,
        256,
        257,
        65_534,
        65_535,
        65_536,
        1 << 32,
        u64::MAX,
    ];
    let keys: Vec<_> = seqs.iter().map(|&seq| layout::event_key(7, seq)).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    assert!(layout::event_key(7, u64::MAX) < layout::event_key(8, 0));
    assert!(layout::event_key(255, u64::MAX) < layout::event_key(256, 0));
    for (key, seq) in keys.iter().zip(seqs) {
        assert_eq!(layout::event_key_seq(key), Some(seq));
    }
    let head = Head {
        last_seq: 65_536,
        hash: [9; 32],
    };
    assert_eq!(Head::decode(&head.encode()), Some(head));
}

/// Environment variable that turns `kill_child` into the appender the kill test kills.
const KILL_DIR: &str = "REFEREE_LOG_KILL_TEST_DIR";

/// Not a test on its own: when run by `acknowledged_appends_survive_kill_9` it appends from
/// 16 games until killed, printing each acknowledged event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_child() {
    let Some(dir) = std::env::var_os(KILL_DIR) else {
        return;
    };
    // Never outlive a parent that stopped reading: exit on our own after a minute.
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(60));
        std::process::exit(1);
    });
    let log = open(Path::new(&dir));
    let mut tasks = Vec::new();
    for g in 0..16 {
        let (log, game) = (log.clone(), format!("game-{g}"));
        create(&log, &game).await;
        tasks.push(tokio::spawn(async move {
            for seq in 1.. {
                let appended = log
                    .append(&game, seq, events(seq..=seq))
                    .await
                    .unwrap()
                    .unwrap();
                println!("acked {game} {}", appended.records[0].seq);
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

#[test]
fn acknowledged_appends_survive_kill_9() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let test_path = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, rest)| rest);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            &format!("{test_path}::kill_child"),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(KILL_DIR, dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut acked: HashMap<String, u64> = HashMap::new();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.map(Result::unwrap) {
        if let Some((game, seq)) = line.strip_prefix("acked ").and_then(|a| a.split_once(' ')) {
            acked.insert(game.to_owned(), seq.parse().unwrap());
        }
        if acked.values().sum::<u64>() >= 500 {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no flush, mid-commit.
    child.wait().unwrap();
    assert!(acked.values().sum::<u64>() >= 500, "child stopped early");

    let log = open(dir.path());
    log.verify_all().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for (game, last_acked) in acked {
        let info = runtime.block_on(log.info(&game)).unwrap().unwrap();
        assert!(
            info.last_seq >= last_acked,
            "{game}: acked {last_acked}, recovered {}",
            info.last_seq
        );
    }
}
