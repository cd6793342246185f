//! `PgLog` against a real PostgreSQL (a cluster of its own per test, see common/postgres.rs):
//! the behaviours src/log/tests.rs proves for sled, plus two instances on one database,
//! tampering done in SQL, and chain hashes that sled accepts as its own.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

// `Log` for SledLog's read; PgLog's methods of the same names are its own.
use referee::log::{Error, Log, NewEvent, PgLog, Record, Rejection, SledLog, ZERO_HASH};
use tokio_stream::{Stream, StreamExt};

use crate::common::postgres::Cluster;

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

async fn open(cluster: &Cluster) -> PgLog {
    PgLog::open(&cluster.url()).await.expect("open the log")
}

async fn create(log: &PgLog, game: &str) -> Record {
    log.create(game, HEADER.into(), "cli")
        .await
        .unwrap()
        .unwrap()
}

/// A game with its header and events e1..=e{n} at seqs 1..=n.
async fn game_with(log: &PgLog, game: &str, n: u64) {
    create(log, game).await;
    if n > 0 {
        log.append(game, 1, events(1..=n)).await.unwrap().unwrap();
    }
}

async fn read_all(log: &PgLog, game: &str) -> Result<Vec<Record>, Error> {
    log.read(game, 0, None).await.map(|r| r.unwrap())
}

fn data_loss(result: Result<Vec<Record>, Error>) -> (String, u64, String) {
    match result {
        Err(Error::DataLoss { game, seq, detail }) => (game, seq, detail),
        other => panic!("expected data loss, got {other:?}"),
    }
}

/// Rows stored for a game, counted in SQL rather than through the log.
fn stored_rows(cluster: &Cluster, game: &str) -> u64 {
    let sql = format!("SELECT count(*) FROM referee_records WHERE game = '{game}'");
    cluster.psql("postgres", &sql).parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_then_read_round_trips() {
    let Some(cluster) = Cluster::start("postgres_log::append_then_read_round_trips") else {
        return;
    };
    let log = open(&cluster).await;
    let header = create(&log, GAME).await;
    assert_eq!(
        (header.seq, header.body.as_str(), header.prev_hash),
        (0, HEADER, ZERO_HASH)
    );
    let appended = log.append(GAME, 1, events(1..=3)).await.unwrap().unwrap();
    assert!(!appended.duplicate);
    let seqs: Vec<u64> = appended.records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [1, 2, 3]);

    let all = read_all(&log, GAME).await.unwrap();
    assert_eq!(all[0], header);
    assert_eq!(all[1..], appended.records[..]);
    for pair in all.windows(2) {
        assert_eq!(
            pair[1].prev_hash, pair[0].hash,
            "link to seq {}",
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
    assert_eq!(info.created_ms, header.received_ms);
    // A request of more rows than one INSERT statement takes.
    let many = log
        .append(GAME, 4, events(4..=1203))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(many.records.last().unwrap().seq, 1203);
    assert_eq!(read_all(&log, GAME).await.unwrap().len(), 1204);
    log.verify_all().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_expected_seq_names_the_last_seq() {
    let Some(cluster) = Cluster::start("postgres_log::wrong_expected_seq_names_the_last_seq")
    else {
        return;
    };
    let log = open(&cluster).await;
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
    let Err(Rejection::SeqMismatch {
        expected: 5,
        last: 5,
        ..
    }) = stale
    else {
        panic!("expected a seq mismatch, got {stale:?}");
    };
    assert_eq!(log.info(GAME).await.unwrap().unwrap().last_seq, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_with_same_ids_is_acknowledged_again_not_duplicated() {
    let Some(cluster) = Cluster::start("postgres_log::retry_with_same_ids_is_acknowledged") else {
        return;
    };
    let log = open(&cluster).await;
    create(&log, GAME).await;
    let first = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    let retry = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    assert!(retry.duplicate);
    assert_eq!(retry.records, first.records);

    // Still a retry after others appended: its expected seq is stale, its ids are not.
    log.append(GAME, 3, events(3..=3)).await.unwrap().unwrap();
    let late = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    assert_eq!((late.duplicate, late.records), (true, first.records));
    // Retried through a second instance on the same database: the same answer.
    let other = open(&cluster).await;
    let there = other.append(GAME, 9, events(1..=2)).await.unwrap().unwrap();
    assert!(there.duplicate);

    assert_eq!(stored_rows(&cluster, GAME), 4);
    assert_eq!(read_all(&log, GAME).await.unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reused_event_id_is_rejected() {
    let Some(cluster) = Cluster::start("postgres_log::reused_event_id_is_rejected") else {
        return;
    };
    let log = open(&cluster).await;
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
    let Some(cluster) = Cluster::start("postgres_log::unknown_games_and_bad_requests") else {
        return;
    };
    let log = open(&cluster).await;
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
    let wide = "é".repeat(64);
    assert!(
        log.create(&wide, HEADER.into(), "cli")
            .await
            .unwrap()
            .is_ok()
    );
    assert_eq!(read_all(&log, &wide).await.unwrap()[0].game, wide);
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
    let listed: Vec<String> = log
        .games()
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.game)
        .collect();
    assert_eq!(listed, [GAME.to_owned(), wide], "creation order");
}

/// Appends `n` events of its own (ids `w{writer}-{k}`) to `game` one by one, racing others:
/// on a seq mismatch it reads the head and tries again with the same event. Returns each
/// acknowledged event id and its seq.
async fn race(log: PgLog, game: String, writer: usize, n: usize) -> Vec<(String, u64)> {
    let mut acks = Vec::new();
    for k in 0..n {
        let event = event(
            &format!("w{writer}-{k}"),
            &format!(r#"{{"w":{writer},"k":{k}}}"#),
        );
        loop {
            let next = log.info(&game).await.unwrap().unwrap().last_seq + 1;
            match log.append(&game, next, vec![event.clone()]).await.unwrap() {
                Ok(appended) => {
                    let record = &appended.records[0];
                    acks.push((record.event_id.clone(), record.seq));
                    break;
                }
                Err(Rejection::SeqMismatch { .. }) => continue,
                Err(other) => panic!("unexpected rejection {other:?}"),
            }
        }
    }
    acks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_appenders_on_two_instances_share_one_chain() {
    const WRITERS: usize = 8;
    const PER_WRITER: usize = 40;
    let Some(cluster) = Cluster::start("postgres_log::concurrent_appenders_on_two_instances")
    else {
        return;
    };
    let (a, b) = (open(&cluster).await, open(&cluster).await);
    create(&a, GAME).await;
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let log = if writer % 2 == 0 {
            a.clone()
        } else {
            b.clone()
        };
        tasks.push(tokio::spawn(race(log, GAME.into(), writer, PER_WRITER)));
    }
    let mut acks = HashMap::new();
    for task in tasks {
        for (id, seq) in task.await.unwrap() {
            assert!(
                acks.insert(id, seq).is_none(),
                "an event acknowledged twice"
            );
        }
    }
    println!(
        "{} events from {WRITERS} racing appenders on two instances in {:?}",
        acks.len(),
        started.elapsed()
    );
    let records = read_all(&b, GAME).await.unwrap();
    assert_eq!(records.len(), WRITERS * PER_WRITER + 1);
    let seqs: HashSet<u64> = acks.values().copied().collect();
    assert_eq!(seqs.len(), acks.len(), "two acks with one seq");
    for record in &records[1..] {
        assert_eq!(acks[&record.event_id], record.seq, "{}", record.event_id);
    }
    a.verify_all().await.unwrap();
}

async fn next(stream: &mut (impl Stream<Item = Result<Record, Error>> + Unpin)) -> Record {
    let item = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
    item.expect("watch timed out")
        .expect("watch ended")
        .expect("watch failed")
}

async fn nothing_more(stream: &mut (impl Stream<Item = Result<Record, Error>> + Unpin)) {
    let item = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    assert!(item.is_err(), "unexpected {item:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_catches_up_then_follows_live_from_both_instances() {
    let Some(cluster) = Cluster::start("postgres_log::watch_catches_up_then_follows_live") else {
        return;
    };
    let (log, other) = (open(&cluster).await, open(&cluster).await);
    game_with(&log, GAME, 3).await;
    let mut all = Box::pin(log.watch(GAME, 0).await.unwrap().unwrap());
    let mut middle = Box::pin(log.watch(GAME, 2).await.unwrap().unwrap());
    let mut ahead = Box::pin(log.watch(GAME, 5).await.unwrap().unwrap());
    let mut elsewhere = Box::pin(other.watch(GAME, 1).await.unwrap().unwrap());
    for seq in 0..=3 {
        assert_eq!(next(&mut all).await.seq, seq);
    }
    for seq in 2..=3 {
        assert_eq!(next(&mut middle).await.seq, seq);
    }
    for seq in 1..=3 {
        assert_eq!(next(&mut elsewhere).await.seq, seq);
    }
    nothing_more(&mut all).await;
    nothing_more(&mut ahead).await;

    log.append(GAME, 4, events(4..=5)).await.unwrap().unwrap();
    // Appended through the other instance: this one hears of it by NOTIFY (or the poll).
    other.append(GAME, 6, events(6..=6)).await.unwrap().unwrap();
    for seq in 4..=6 {
        assert_eq!(next(&mut all).await.seq, seq);
        assert_eq!(next(&mut middle).await.seq, seq);
        assert_eq!(next(&mut elsewhere).await.seq, seq);
    }
    assert_eq!(next(&mut ahead).await.seq, 5);
    assert_eq!(next(&mut ahead).await.seq, 6);
    nothing_more(&mut all).await;
    nothing_more(&mut middle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_ends_with_closed_when_the_log_is_dropped() {
    let Some(cluster) = Cluster::start("postgres_log::watch_ends_with_closed") else {
        return;
    };
    let log = open(&cluster).await;
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
    let Some(cluster) = Cluster::start("postgres_log::reopening_recovers") else {
        return;
    };
    let log = open(&cluster).await;
    game_with(&log, GAME, 4).await;
    game_with(&log, "second", 1).await;
    let records = read_all(&log, GAME).await.unwrap();
    let games = log.games().await.unwrap();
    drop(log);

    let log = open(&cluster).await;
    log.verify_all().await.unwrap();
    assert_eq!(log.games().await.unwrap(), games);
    assert_eq!(read_all(&log, GAME).await.unwrap(), records);
    let next = log.append(GAME, 5, events(5..=5)).await.unwrap().unwrap();
    assert_eq!(next.records[0].prev_hash, records[4].hash);
    game_with(&log, "third", 2).await;
    assert_eq!(read_all(&log, "third").await.unwrap().len(), 3);
    let order: Vec<String> = log
        .games()
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.game)
        .collect();
    assert_eq!(order, [GAME, "second", "third"]);
    log.verify_all().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_row_is_data_loss_not_data() {
    let Some(cluster) = Cluster::start("postgres_log::a_tampered_row_is_data_loss") else {
        return;
    };
    let log = open(&cluster).await;
    game_with(&log, GAME, 5).await;
    cluster.psql(
        "postgres",
        &format!(
            r#"UPDATE referee_records SET body = '{{"n":33}}' WHERE game = '{GAME}' AND seq = 3"#
        ),
    );
    let (game, seq, detail) = data_loss(read_all(&log, GAME).await);
    assert_eq!((game.as_str(), seq), (GAME, 3), "{detail}");
    assert_eq!(detail, "record hash does not match its contents");
    assert!(matches!(
        log.verify_all().await,
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
async fn missing_rechained_and_rewound_rows_are_data_loss() {
    let Some(cluster) = Cluster::start("postgres_log::missing_rechained_and_rewound_rows") else {
        return;
    };
    let log = open(&cluster).await;
    for game in ["gone", "forged", "rewound"] {
        game_with(&log, game, 5).await;
    }
    cluster.psql(
        "postgres",
        "DELETE FROM referee_records WHERE game = 'gone' AND seq = 3",
    );
    let (_, seq, detail) = data_loss(read_all(&log, "gone").await);
    assert_eq!((seq, detail.as_str()), (3, "record is missing"));
    assert!(matches!(
        log.read("gone", 4, None).await.unwrap_err(),
        Error::DataLoss { seq: 3, .. }
    ));

    // The last record rewritten whole, with a hash that matches its new contents: only the
    // head row can tell.
    let last = &read_all(&log, "forged").await.unwrap()[5];
    let forged = Record {
        body: r#"{"forged":true}"#.into(),
        ..last.clone()
    };
    let hash = hex::encode(forged.computed_hash().unwrap());
    cluster.psql(
        "postgres",
        &format!(
            r#"UPDATE referee_records SET body = '{{"forged":true}}', hash = '\x{hash}'
               WHERE game = 'forged' AND seq = 5"#
        ),
    );
    let (_, seq, detail) = data_loss(read_all(&log, "forged").await);
    assert_eq!(seq, 5, "{detail}");
    assert!(detail.contains("head"), "{detail}");

    // The head moved back one record: the record it names does not match.
    cluster.psql(
        "postgres",
        "UPDATE referee_heads SET last_seq = 4 WHERE game = 'rewound'",
    );
    let (_, seq, detail) = data_loss(read_all(&log, "rewound").await);
    assert_eq!(seq, 4, "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chain_hashes_are_those_sled_stores() {
    let Some(cluster) = Cluster::start("postgres_log::chain_hashes_are_those_sled_stores") else {
        return;
    };
    let log = open(&cluster).await;
    game_with(&log, GAME, 6).await;
    let records = read_all(&log, GAME).await.unwrap();
    for record in &records {
        assert_eq!(
            record.computed_hash().unwrap(),
            record.hash,
            "seq {}",
            record.seq
        );
    }
    // sled takes PostgreSQL's records as its own only if each seals to the same hash.
    let dir = tempfile::tempdir().unwrap();
    let sled = SledLog::open(dir.path()).unwrap();
    let restored = sled.restore(records.clone()).await.unwrap().unwrap();
    let info = log.info(GAME).await.unwrap().unwrap();
    assert_eq!((restored.last_seq, restored.head_hash), (6, info.head_hash));
    assert_eq!(sled.read(GAME, 0, None).await.unwrap().unwrap(), records);
    // And the next event on each backend, at the same time, chains to the same hash.
    let on_sled = sled.append(GAME, 7, events(7..=7)).await.unwrap().unwrap();
    let on_pg = log.append(GAME, 7, events(7..=7)).await.unwrap().unwrap();
    let (s, p) = (&on_sled.records[0], &on_pg.records[0]);
    assert_eq!(s.prev_hash, p.prev_hash);
    let same_time = Record {
        received_ms: s.received_ms,
        ..p.clone()
    };
    assert_eq!(same_time.computed_hash().unwrap(), s.hash);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_commit_durably_is_refused() {
    let Some(cluster) = Cluster::start("postgres_log::a_server_that_does_not_commit_durably")
    else {
        return;
    };
    cluster.psql("postgres", "CREATE DATABASE lax");
    cluster.psql(
        "postgres",
        "ALTER DATABASE lax SET synchronous_commit = off",
    );
    let refused = PgLog::open(&cluster.url_of("lax")).await.err().unwrap();
    let text = refused.to_string();
    assert!(
        text.contains("synchronous_commit is \"off\"") && text.contains("postgresql.conf"),
        "{text}"
    );
    cluster.psql(
        "postgres",
        "ALTER DATABASE lax SET synchronous_commit = remote_apply",
    );
    PgLog::open(&cluster.url_of("lax")).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_cut_by_the_server_are_replaced_and_retries_land_once() {
    let Some(cluster) = Cluster::start("postgres_log::connections_cut_by_the_server") else {
        return;
    };
    let (log, other) = (open(&cluster).await, open(&cluster).await);
    game_with(&log, GAME, 2).await;
    let mut watcher = Box::pin(log.watch(GAME, 3).await.unwrap().unwrap());
    // Every connection of both instances, the listeners too.
    cluster.psql(
        "postgres",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE pid <> pg_backend_pid() AND datname = 'postgres'",
    );
    // An append that meets a dead connection is an error, never an ack; the board's retry
    // with the same ids lands once.
    let mut acked = None;
    for _ in 0..5 {
        match log.append(GAME, 3, events(3..=4)).await {
            Ok(outcome) => {
                acked = Some(outcome.unwrap());
                break;
            }
            Err(e) => println!("append after the cut: {e}"),
        }
    }
    assert_eq!(acked.unwrap().records.len(), 2);
    assert_eq!(stored_rows(&cluster, GAME), 5);
    assert_eq!(log.writable().await, referee::log::Writable::Yes);
    // The other instance's watchers still hear of it once its listener is back.
    let mut there = Box::pin(other.watch(GAME, 3).await.unwrap().unwrap());
    assert_eq!(next(&mut there).await.seq, 3);
    assert_eq!(next(&mut watcher).await.seq, 3);
    assert_eq!(next(&mut watcher).await.seq, 4);
    log.append(GAME, 5, events(5..=5)).await.unwrap().unwrap();
    assert_eq!(next(&mut there).await.seq, 4);
    assert_eq!(next(&mut there).await.seq, 5);
}

fn fenced(result: Result<Result<referee::log::Appended, Rejection>, Error>) -> (u64, u64) {
    match result {
        Ok(Err(Rejection::Fenced { held, now, .. })) => (held, now),
        other => panic!("expected the append fenced, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_fences_the_former_writer_out() {
    let Some(cluster) = Cluster::start("postgres_log::a_claim_fences_the_former_writer_out") else {
        return;
    };
    let (a, b) = (open(&cluster).await, open(&cluster).await);
    create(&a, GAME).await;
    let first = a.claim(GAME).await.unwrap().unwrap();
    a.append_leased(GAME, first, 1, events(1..=2))
        .await
        .unwrap()
        .unwrap();
    let second = b.claim(GAME).await.unwrap().unwrap();
    assert!(second.epoch > first.epoch, "{second:?} after {first:?}");
    // A, paused while B took over, comes back with a stale view: refused, nothing written,
    // even with the seq that would have been right.
    assert_eq!(
        fenced(a.append_leased(GAME, first, 3, events(3..=3)).await),
        (first.epoch, second.epoch)
    );
    assert_eq!(stored_rows(&cluster, GAME), 3);
    b.append_leased(GAME, second, 3, events(3..=4))
        .await
        .unwrap()
        .unwrap();
    // Claiming back fences B in turn; a retry of B's stored events is then A's to answer.
    let third = a.claim(GAME).await.unwrap().unwrap();
    assert_eq!(
        fenced(b.append_leased(GAME, second, 5, events(5..=5)).await),
        (second.epoch, third.epoch)
    );
    let retry = a.append_leased(GAME, third, 3, events(3..=4)).await;
    assert!(retry.unwrap().unwrap().duplicate);
    assert_eq!(read_all(&a, GAME).await.unwrap().len(), 5);
    assert!(matches!(
        a.claim("nope").await.unwrap(),
        Err(Rejection::UnknownGame { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_claims_each_get_their_own_epoch_and_only_the_last_writes() {
    let Some(cluster) = Cluster::start(
        "postgres_log::racing_claims_each_get_their_own_epoch_and_only_the_last_writes",
    ) else {
        return;
    };
    let instances = [open(&cluster).await, open(&cluster).await];
    create(&instances[0], GAME).await;
    let claims: Vec<_> = (0..16)
        .map(|i| {
            let log = instances[i % 2].clone();
            tokio::spawn(async move { (i, log.claim(GAME).await.unwrap().unwrap()) })
        })
        .collect();
    let mut leases = Vec::new();
    for claim in claims {
        leases.push(claim.await.unwrap());
    }
    let epochs: HashSet<u64> = leases.iter().map(|(_, lease)| lease.epoch).collect();
    assert_eq!(
        epochs.len(),
        leases.len(),
        "two claims got one epoch: {leases:?}"
    );
    let &(winner, newest) = leases.iter().max_by_key(|(_, l)| l.epoch).unwrap();
    for &(i, lease) in &leases {
        let tried = instances[i % 2]
            .append_leased(GAME, lease, 1, events(1..=1))
            .await
            .unwrap();
        match tried {
            Ok(_) => assert_eq!(lease, newest, "claim {i} ({lease:?}) wrote over {newest:?}"),
            Err(Rejection::Fenced { now, .. }) => {
                assert_ne!(i, winner);
                assert_eq!(now, newest.epoch);
            }
            Err(other) => panic!("claim {i}: {other}"),
        }
    }
    assert_eq!(stored_rows(&cluster, GAME), 2);
}

// ---- appends of many games in one group (issue 33 item 5) ----------------------------------
//
// These run on a current-thread runtime: every append a test starts together is queued before
// the group committer's task runs, so they all go in its next group, deterministically. Which
// appends shared a transaction is read from the rows' `xmin` (the inserting transaction).

/// The transaction that inserted each of the game's records from seq `from` on.
fn inserted_by(cluster: &Cluster, game: &str, from: u64) -> Vec<String> {
    let sql = format!(
        "SELECT xmin FROM referee_records WHERE game = '{game}' AND seq >= {from} ORDER BY seq"
    );
    cluster
        .psql("postgres", &sql)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn one_event(id: &str) -> Vec<NewEvent> {
    vec![event(id, &format!(r#"{{"id":"{id}"}}"#))]
}

#[tokio::test]
async fn appends_to_many_games_share_one_transaction() {
    const GAMES: usize = 64;
    const ROUNDS: u64 = 4;
    let Some(cluster) = Cluster::start("postgres_log::appends_to_many_games_share_one_transaction")
    else {
        return;
    };
    // Every statement in the server's log, from the log's first connection on.
    cluster.psql("postgres", "ALTER SYSTEM SET log_statement = 'all'");
    cluster.psql("postgres", "SELECT pg_reload_conf()");
    let log = open(&cluster).await;
    let games: Vec<String> = (0..GAMES).map(|g| format!("many-{g}")).collect();
    for game in &games {
        create(&log, game).await;
    }
    for round in 1..=ROUNDS {
        let appends = games
            .iter()
            .map(|game| log.append(game, round, one_event(&format!("e{round}"))));
        for appended in futures_util::future::join_all(appends).await {
            assert_eq!(appended.unwrap().unwrap().records[0].seq, round);
        }
    }
    let sql = "SELECT count(DISTINCT xmin::text) FROM referee_records WHERE seq > 0";
    let transactions: usize = cluster.psql("postgres", sql).parse().unwrap();
    let appends = GAMES * usize::try_from(ROUNDS).unwrap();
    println!("{appends} appends to {GAMES} games in {transactions} transactions");
    // One transaction per append before groups; one per round now.
    assert_eq!(transactions, usize::try_from(ROUNDS).unwrap());
    // And one statement: the round's call, one round trip (parse, bind and execute sent
    // together), where each append used to take fourteen.
    let calls = cluster
        .server_log()
        .matches("FROM referee_append_batch(")
        .count();
    assert_eq!(calls, usize::try_from(ROUNDS).unwrap());
    for game in &games {
        assert_eq!(read_all(&log, game).await.unwrap().len(), 5, "{game}");
    }
    log.verify_all().await.unwrap();
}

#[tokio::test]
async fn two_appends_to_one_game_together_are_decided_in_order() {
    let Some(cluster) = Cluster::start("postgres_log::two_appends_to_one_game_together") else {
        return;
    };
    let log = open(&cluster).await;
    game_with(&log, GAME, 1).await;
    create(&log, "other").await;
    let (first, second, other) = tokio::join!(
        log.append(GAME, 2, one_event("e2")),
        log.append(GAME, 3, one_event("e3")),
        log.append("other", 1, one_event("o1")),
    );
    let (first, second) = (first.unwrap().unwrap(), second.unwrap().unwrap());
    assert_eq!((first.records[0].seq, second.records[0].seq), (2, 3));
    assert_eq!(second.records[0].prev_hash, first.records[0].hash);
    other.unwrap().unwrap();
    // The second waited for the group that carried the first.
    let by = inserted_by(&cluster, GAME, 2);
    assert_ne!(by[0], by[1]);
    assert_eq!(inserted_by(&cluster, "other", 1)[0], by[0]);
    // The same stale seq twice together: the first is written, the second is behind it.
    let (a, b) = tokio::join!(
        log.append(GAME, 4, one_event("x")),
        log.append(GAME, 4, one_event("y")),
    );
    assert_eq!(a.unwrap().unwrap().records[0].seq, 4);
    assert_eq!(
        b.unwrap(),
        Err(Rejection::SeqMismatch {
            game: GAME.into(),
            expected: 4,
            last: 4
        })
    );
    log.verify_all().await.unwrap();
}

#[tokio::test]
async fn an_exact_retry_in_a_group_is_acknowledged_with_the_originals() {
    let Some(cluster) = Cluster::start("postgres_log::an_exact_retry_in_a_group") else {
        return;
    };
    let log = open(&cluster).await;
    create(&log, GAME).await;
    create(&log, "other").await;
    let first = log.append(GAME, 1, events(1..=2)).await.unwrap().unwrap();
    // With a stale seq, beside a new append to another game and a reuse of an id.
    let (retry, again, other, reuse) = tokio::join!(
        log.append(GAME, 1, events(1..=2)),
        log.append(GAME, 1, events(1..=2)),
        log.append("other", 1, vec![event("o1", "{}")]),
        log.append("other", 2, vec![event("o1", r#"{"changed":true}"#)]),
    );
    let retry = retry.unwrap().unwrap();
    assert_eq!((retry.duplicate, &retry.records), (true, &first.records));
    assert!(again.unwrap().unwrap().duplicate);
    assert!(!other.unwrap().unwrap().duplicate);
    assert_eq!(
        reuse.unwrap(),
        Err(Rejection::EventIdReused {
            game: "other".into(),
            event_id: "o1".into(),
            seq: 1
        })
    );
    assert_eq!(stored_rows(&cluster, GAME), 3);
    assert_eq!(stored_rows(&cluster, "other"), 2);
}

#[tokio::test]
async fn a_seq_mismatch_in_a_group_leaves_the_other_games_written() {
    let Some(cluster) = Cluster::start("postgres_log::a_seq_mismatch_in_a_group") else {
        return;
    };
    let log = open(&cluster).await;
    for game in ["behind", "b", "c"] {
        game_with(&log, game, 2).await;
    }
    let (behind, b, c, unknown) = tokio::join!(
        log.append("behind", 2, one_event("late")),
        log.append("b", 3, one_event("b3")),
        log.append("c", 3, one_event("c3")),
        log.append("nope", 1, one_event("n1")),
    );
    assert_eq!(
        behind.unwrap(),
        Err(Rejection::SeqMismatch {
            game: "behind".into(),
            expected: 2,
            last: 2
        })
    );
    assert_eq!(
        unknown.unwrap(),
        Err(Rejection::UnknownGame {
            game: "nope".into()
        })
    );
    assert_eq!(b.unwrap().unwrap().records[0].seq, 3);
    assert_eq!(c.unwrap().unwrap().records[0].seq, 3);
    assert_eq!(inserted_by(&cluster, "b", 3), inserted_by(&cluster, "c", 3));
    assert_eq!(stored_rows(&cluster, "behind"), 3);
    // A second instance that never read the games seals on heads it learns from the group.
    let other = open(&cluster).await;
    let (b, c) = tokio::join!(
        other.append("b", 4, one_event("b4")),
        other.append("c", 4, one_event("c4")),
    );
    assert_eq!(b.unwrap().unwrap().records[0].seq, 4);
    assert_eq!(c.unwrap().unwrap().records[0].seq, 4);
    other.verify_all().await.unwrap();
}

#[tokio::test]
async fn a_fenced_game_in_a_group_leaves_the_other_games_written() {
    let Some(cluster) = Cluster::start("postgres_log::a_fenced_game_in_a_group") else {
        return;
    };
    let (a, b) = (open(&cluster).await, open(&cluster).await);
    let mut leases = Vec::new();
    for game in ["taken", "kept", "also"] {
        create(&a, game).await;
        leases.push(a.claim(game).await.unwrap().unwrap());
    }
    let newer = b.claim("taken").await.unwrap().unwrap();
    let (taken, kept, also) = tokio::join!(
        a.append_leased("taken", leases[0], 1, one_event("t1")),
        a.append_leased("kept", leases[1], 1, one_event("k1")),
        a.append_leased("also", leases[2], 1, one_event("a1")),
    );
    assert_eq!(fenced(taken), (leases[0].epoch, newer.epoch));
    kept.unwrap().unwrap();
    also.unwrap().unwrap();
    assert_eq!(
        inserted_by(&cluster, "kept", 1),
        inserted_by(&cluster, "also", 1)
    );
    assert_eq!(stored_rows(&cluster, "taken"), 1);
    b.append_leased("taken", newer, 1, one_event("t1"))
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_database_of_the_previous_version_gains_the_append_function() {
    let Some(cluster) = Cluster::start("postgres_log::a_database_of_the_previous_version") else {
        return;
    };
    let log = open(&cluster).await;
    game_with(&log, GAME, 2).await;
    drop(log);
    // The previous referee's database: the same tables, no function.
    cluster.psql(
        "postgres",
        "DROP FUNCTION referee_append_batch; DROP FUNCTION referee_append_one",
    );
    let log = open(&cluster).await;
    log.append(GAME, 3, events(3..=3)).await.unwrap().unwrap();
    // A function of another version (its comment) is replaced at open.
    cluster.psql(
        "postgres",
        "COMMENT ON FUNCTION referee_append_batch IS 'referee_append_batch 0'",
    );
    let log = open(&cluster).await;
    log.append(GAME, 4, events(4..=4)).await.unwrap().unwrap();
    let comment = cluster.psql(
        "postgres",
        "SELECT obj_description('referee_append_batch'::regproc, 'pg_proc')",
    );
    assert_eq!(comment, "referee_append_batch 2");
    log.verify_all().await.unwrap();
}

/// Every statement of both append functions finds its rows by key, on fresh tables as on big
/// ones: a plan that scanned `referee_records` (or the heads or leases) would make each
/// append cost more as the log grows. The plans are read from PostgreSQL's own `auto_explain`
/// of the statements inside the functions, on the log's connections.
#[tokio::test]
async fn appends_find_their_rows_by_key_whatever_the_size_of_the_tables() {
    let Some(cluster) = Cluster::start("postgres_log::appends_find_their_rows_by_key") else {
        return;
    };
    let explained = format!(
        "{} options='-c session_preload_libraries=auto_explain \
         -c auto_explain.log_min_duration=0 -c auto_explain.log_nested_statements=on'",
        cluster.url()
    );
    let log = PgLog::open(&explained).await.expect("open the log");
    let games: Vec<String> = (0..8).map(|g| format!("keyed-{g}")).collect();
    for game in &games {
        create(&log, game).await;
    }
    let lease = log.claim(&games[0]).await.unwrap().unwrap();
    for round in 1..=3u64 {
        // Alone (a group of one), then all together (a group of many), leased and not.
        log.append_leased(
            &games[0],
            lease,
            round * 2 - 1,
            one_event(&format!("a{round}")),
        )
        .await
        .unwrap()
        .unwrap();
        log.append(&games[1], round * 2 - 1, one_event(&format!("a{round}")))
            .await
            .unwrap()
            .unwrap();
        let together = games.iter().enumerate().map(|(i, game)| {
            let id = format!("b{round}");
            let log = log.clone();
            async move {
                let expected = if i < 2 { round * 2 } else { round };
                if i == 0 {
                    log.append_leased(game, lease, expected, one_event(&id))
                        .await
                } else {
                    log.append(game, expected, one_event(&id)).await
                }
            }
        });
        for appended in futures_util::future::join_all(together).await {
            appended.unwrap().unwrap();
        }
        // A retry finds the stored records by event id.
        let retry = log.append(&games[1], round * 2 - 1, one_event(&format!("a{round}")));
        assert!(retry.await.unwrap().unwrap().duplicate);
    }
    let server_log = cluster.server_log();
    for function in ["referee_append_one", "referee_append_batch"] {
        assert!(
            server_log.contains(&format!("FROM {function}(")),
            "{function} was not called:\n{server_log}"
        );
    }
    assert!(
        server_log.contains("referee_records_game_event_id_key"),
        "auto_explain logged no plan of the functions' statements:\n{server_log}"
    );
    for table in [
        "referee_records",
        "referee_heads",
        "referee_leases",
        "referee_games",
    ] {
        let scan = format!("Seq Scan on {table}");
        assert!(!server_log.contains(&scan), "{scan} in:\n{server_log}");
    }
}
