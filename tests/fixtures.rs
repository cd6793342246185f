//! The replay fixtures (`replay-fixtures/**/*.jsonl`) are golden files: each holds a log and,
//! in `#> ` comment lines, the rulings it must give, exactly. Every fixture runs through four
//! paths that must agree: the pure fold, the gRPC service in-process (one event per append,
//! as a board sends them), a console watching the game as it is played (`WatchGame` from seq
//! 0, fed by the live referee), and the log reopened from disk. Fixtures are played over gRPC
//! several at once, and the sled log they are played into skips fdatasync: they test rules,
//! and the crash and fault tests test durability.
//!
//! `REFEREE_BLESS=1 cargo test fixtures` rewrites the `#> ` lines from the pure fold; review
//! the diff before committing it.

use std::path::{Path, PathBuf};

use referee::event::{GameLog, event_to_json, parse_log};
use referee::log::Log;
use referee::referee::replay;
use referee::service::proto;
use referee::stored::load_log;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;

use crate::common::{TestServer, repo_path};

pub struct Fixture {
    /// Path relative to the repository, also used as the game id in the store.
    pub name: String,
    path: PathBuf,
    text: String,
    pub log: GameLog,
    /// (file line, ruling) of each `#> ` line.
    expected: Vec<(usize, Value)>,
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

pub fn fixtures() -> Vec<Fixture> {
    let root = repo_path("replay-fixtures");
    let mut paths = Vec::new();
    collect(&root, &mut paths);
    assert!(!paths.is_empty(), "no fixtures under {}", root.display());
    paths.into_iter().map(|path| load(&root, path)).collect()
}

fn load(root: &Path, path: PathBuf) -> Fixture {
    let name = path
        .strip_prefix(root)
        .expect("under root")
        .display()
        .to_string();
    let text = std::fs::read_to_string(&path).expect("read fixture");
    let log = parse_log(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        text.lines().any(|l| l.starts_with("# Source:")),
        "{name}: a fixture must cite its rule in a `# Source:` line"
    );
    let expected = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| l.strip_prefix("#> ").map(|j| (i + 1, j)))
        .map(|(line, j)| {
            (
                line,
                serde_json::from_str(j).unwrap_or_else(|e| panic!("{name}:{line}: {e}")),
            )
        })
        .collect();
    Fixture {
        name,
        path,
        text,
        log,
        expected,
    }
}

/// Compares rulings with the fixture's expectations; the message points at `file:line`.
fn check(f: &Fixture, path_name: &str, actual: &[Value]) -> Result<(), String> {
    for (i, (line, want)) in f.expected.iter().enumerate() {
        match actual.get(i) {
            Some(got) if got == want => {}
            Some(got) => {
                return Err(format!(
                    "replay-fixtures/{}:{line}: {path_name} gave a different ruling\n  want {want}\n  got  {got}",
                    f.name
                ));
            }
            None => {
                return Err(format!(
                    "replay-fixtures/{}:{line}: {path_name} gave no such ruling",
                    f.name
                ));
            }
        }
    }
    if let Some(extra) = actual.get(f.expected.len()) {
        return Err(format!(
            "replay-fixtures/{}: {path_name} gave an unexpected ruling {extra}",
            f.name
        ));
    }
    Ok(())
}

pub fn pure(f: &Fixture) -> Vec<Value> {
    let referee =
        replay(&f.log.header, &f.log.events).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    referee
        .rulings()
        .iter()
        .map(|r| r.to_value(f.log.header.variant))
        .collect()
}

fn bless(f: &Fixture, actual: &[Value]) {
    let mut text: String = f
        .text
        .lines()
        .filter(|l| !l.starts_with("#> "))
        .map(|l| format!("{l}\n"))
        .collect();
    for v in actual {
        text.push_str(&format!("#> {v}\n"));
    }
    std::fs::write(&f.path, text).expect("bless fixture");
}

fn report(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} fixture failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn fixtures_replay_to_their_rulings() {
    let blessing = std::env::var_os("REFEREE_BLESS").is_some();
    let mut failures = Vec::new();
    for f in fixtures() {
        let actual = pure(&f);
        if blessing {
            bless(&f, &actual);
        } else if let Err(e) = check(&f, "the pure fold", &actual) {
            failures.push(e);
        }
    }
    report(failures);
}

pub fn proto_value(r: &proto::Ruling) -> Value {
    let mut v = json!({"at": r.at, "kind": r.kind});
    let m = v.as_object_mut().expect("object");
    if let Some(side) = &r.side {
        m.insert("side".into(), json!(side));
    }
    m.insert("effect".into(), json!(r.effect));
    if let Some(result) = &r.result {
        m.insert("result".into(), json!(result));
    }
    m.insert("rule".into(), json!(r.rule));
    m.insert("text".into(), json!(r.text));
    m.insert("evidence".into(), json!(r.evidence));
    if let Some(event) = &r.event {
        let event: Value = serde_json::from_str(event).expect("a ruling's event is JSON");
        m.insert("event".into(), event);
    }
    v
}

/// What a console gets for a game played through while it watches from seq 0: the rulings,
/// once it has been sent every event and as many rulings as the fixture expects (and then
/// anything more that follows at once).
async fn watch_rulings<L: Log>(
    server: &TestServer<L>,
    f: &Fixture,
) -> JoinHandle<Result<Vec<Value>, String>> {
    let request = proto::WatchGameRequest {
        game: f.name.clone(),
        from_seq: 0,
    };
    let stream = server.client().await.watch_game(request).await;
    let (name, events, rulings) = (f.name.clone(), f.log.events.len(), f.expected.len());
    tokio::spawn(async move {
        let mut stream = stream
            .map_err(|e| format!("{name}: watch: {e}"))?
            .into_inner();
        let mut seen = (0, Vec::new());
        let enough = |seen: &(usize, Vec<Value>)| seen.0 == events && seen.1.len() >= rulings;
        while !enough(&seen) {
            let next = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
            let Ok(Some(item)) = next else {
                return Err(format!("{name}: WatchGame stopped after {} events", seen.0));
            };
            take(item, &mut seen).map_err(|e| format!("{name}: WatchGame: {e}"))?;
        }
        while let Ok(Some(item)) =
            tokio::time::timeout(Duration::from_millis(10), stream.next()).await
        {
            take(item, &mut seen).map_err(|e| format!("{name}: WatchGame: {e}"))?;
        }
        Ok(seen.1)
    })
}

/// Counts an event, or keeps a ruling.
fn take(
    item: Result<proto::WatchGameResponse, tonic::Status>,
    seen: &mut (usize, Vec<Value>),
) -> Result<(), tonic::Status> {
    use proto::watch_game_response::Item;
    match item?.item {
        Some(Item::Event(_)) => seen.0 += 1,
        Some(Item::Ruling(r)) => seen.1.push(proto_value(&r)),
        Some(Item::Header(_) | Item::Board(_)) | None => {}
    }
    Ok(())
}

/// Creates the fixture's game and sends its events one append at a time while a console
/// watches; the rulings of the acks, and the console's. With several servers (instances on
/// one shared log) the appends go to each in turn and the console watches the last one.
async fn play_over_grpc<L: Log>(
    servers: &[&TestServer<L>],
    f: &Fixture,
) -> Result<(Vec<Value>, Vec<Value>), String> {
    let mut clients = Vec::new();
    for server in servers {
        clients.push(server.client().await);
    }
    let mut client = clients[0].clone();
    let mut header = f.log.header.clone();
    header.id = f.name.clone();
    let header_msg = referee::service::header_to_proto(&header);
    client
        .create_game(proto::CreateGameRequest {
            header: Some(header_msg),
        })
        .await
        .map_err(|e| format!("{}: create: {e}", f.name))?;
    let watching = watch_rulings(servers[servers.len() - 1], f).await;
    let mut rulings = Vec::new();
    for (seq, event) in (1u64..).zip(&f.log.events) {
        let line = event_to_json(event, header.variant);
        let event = proto_event(&line, header.variant);
        let turn = usize::try_from(seq).unwrap_or(0) % clients.len();
        let ack = clients[turn]
            .append_events(proto::AppendEventsRequest {
                game: f.name.clone(),
                expected_seq: seq,
                events: vec![proto::NewEvent {
                    event_id: format!("e{seq}"),
                    event: Some(event),
                }],
            })
            .await
            .map_err(|e| format!("{}: append seq {seq}: {e}", f.name))?
            .into_inner();
        rulings.extend(ack.rulings.iter().map(proto_value));
    }
    let state = client
        .get_game(proto::GetGameRequest {
            game: f.name.clone(),
        })
        .await
        .map_err(|e| format!("{}: get: {e}", f.name))?
        .into_inner();
    let from_state: Vec<Value> = state.rulings.iter().map(proto_value).collect();
    if from_state != rulings {
        return Err(format!(
            "{}: GetGame rulings differ from the acks' rulings",
            f.name
        ));
    }
    let watched = watching.await.expect("watch task")?;
    Ok((rulings, watched))
}

/// The proto event for a log line, written field by field as a board's programmer would.
pub fn proto_event(line: &str, variant: referee::games::Variant) -> proto::Event {
    use proto::event::Kind;
    let v: Value = serde_json::from_str(line).expect("json");
    let s = |k: &str| {
        v.get(k)
            .map(|x| x.as_str().map_or_else(|| x.to_string(), String::from))
    };
    let u = |k: &str| v.get(k).and_then(Value::as_u64);
    let [first, second] = variant.side_names();
    let kind = match v["type"].as_str().expect("type") {
        "touch" => Kind::Touch(proto::Touch {
            square: s("square").expect("square"),
            adjust: v.get("adjust").is_some(),
        }),
        "move" => Kind::Move(proto::Move {
            // A renju stone has no `from`: the field stays empty, as proto3 sends it.
            from: s("from").unwrap_or_default(),
            to: s("to").expect("to"),
            promotion: s("promotion"),
            captures: v
                .get("captures")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|x| x.to_string()).collect())
                .unwrap_or_default(),
        }),
        "reveal" => Kind::Reveal(proto::Reveal {
            square: s("square").expect("square"),
            piece: s("piece").expect("piece"),
            promotion: s("promotion"),
        }),
        "clock" => Kind::Clock(proto::ClockPress {
            first_ms: u(&format!("{first}_ms")),
            second_ms: u(&format!("{second}_ms")),
        }),
        "draw_offer" => Kind::DrawOffer(proto::DrawOffer {}),
        "draw_reply" => Kind::DrawReply(proto::DrawReply {
            accept: v["accept"].as_bool().expect("accept"),
        }),
        "claim" => Kind::Claim(proto::Claim {
            claim: s("claim").expect("claim"),
        }),
        "resign" => Kind::Resign(proto::Resign {}),
        "arbiter" => Kind::Arbiter(proto::ArbiterWord {
            decision: s("decision").expect("decision"),
            ruling: u("ruling"),
            result: s("result"),
            text: s("text"),
            moves: v
                .get("moves")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .map(|m| proto_event(&m.to_string(), variant))
                        .collect()
                })
                .unwrap_or_default(),
        }),
        "board" => Kind::Board(proto::BoardReport {
            placement: s("placement").expect("placement"),
            device: s("device"),
        }),
        "swap" => Kind::Swap(proto::Swap {}),
        "declare" => Kind::Declare(proto::Declare {
            offers: u32::try_from(u("offers").expect("offers")).expect("small"),
        }),
        "offer" => Kind::Offer(proto::Offer {
            points: v["points"]
                .as_array()
                .expect("points")
                .iter()
                .map(|p| p.as_str().expect("a point").to_string())
                .collect(),
        }),
        "choose" => Kind::Choose(proto::Choose {
            to: s("to").expect("to"),
        }),
        other => panic!("unknown type {other}"),
    };
    proto::Event {
        // A board's report has no side: proto3 sends the empty string.
        side: s("side").unwrap_or_default(),
        ts_ms: u("ts_ms"),
        kind: Some(kind),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixtures_agree_over_grpc_and_after_reopening_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let all = fixtures();
    let server = TestServer::start_unsynced(dir.path()).await;
    let mut failures = play_all(&[&server], &all).await;
    server.stop().await;
    // Connection and watcher tasks may still hold the store a moment after the server stops.
    crate::common::released(dir.path());
    let log = referee::log::SledLog::open(dir.path()).expect("reopen");
    log.verify_all().expect("chains verify");
    failures.extend(stored_agree(&log, &all).await);
    report(failures);
}

/// The same four paths with the log in PostgreSQL (issue 18), served by two instances on one
/// database taking every other append (so each append takes the game over from the other
/// instance: its lease, a reload), watched on the second; then re-read and verified through
/// a third instance opened afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixtures_agree_over_grpc_with_the_log_in_postgres_on_two_instances() {
    let test = "fixtures::fixtures_agree_over_grpc_with_the_log_in_postgres_on_two_instances";
    let Some(cluster) = crate::common::postgres::Cluster::start(test) else {
        return;
    };
    let all = fixtures();
    let a = TestServer::start_postgres(&cluster.url()).await;
    let b = TestServer::start_postgres(&cluster.url()).await;
    let mut failures = play_all(&[&a, &b], &all).await;
    a.stop().await;
    b.stop().await;
    let log = referee::log::PgLog::open(&cluster.url())
        .await
        .expect("reopen");
    log.verify_all().await.expect("chains verify");
    failures.extend(stored_agree(&log, &all).await);
    report(failures);
}

/// Fixtures played over gRPC at once: each is a sequence of one-event round trips, so many in
/// flight keep the server busy (and share its group commits); a bound keeps the watch streams
/// and connections few.
const PLAYED_AT_ONCE: usize = 16;

/// Plays every fixture through the server with a console watching, several at once (each has
/// its own game id); what disagreed, in fixture order.
async fn play_all<L: Log>(servers: &[&TestServer<L>], all: &[Fixture]) -> Vec<String> {
    let turns = tokio::sync::Semaphore::new(PLAYED_AT_ONCE);
    let plays = all.iter().map(|f| async {
        let _turn = turns
            .acquire()
            .await
            .expect("the semaphore is never closed");
        play_and_check(servers, f).await
    });
    futures_util::future::join_all(plays)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Plays one fixture over gRPC; what disagreed.
async fn play_and_check<L: Log>(servers: &[&TestServer<L>], f: &Fixture) -> Vec<String> {
    match play_over_grpc(servers, f).await {
        Ok((acks, watched)) => [
            check(f, "the gRPC service", &acks).err(),
            check(f, "WatchGame", &watched).err(),
        ]
        .into_iter()
        .flatten()
        .collect(),
        Err(e) => vec![e],
    }
}

/// Loads every fixture's game from the reopened log and replays it; what disagreed.
async fn stored_agree<L: Log>(log: &L, all: &[Fixture]) -> Vec<String> {
    let mut failures = Vec::new();
    for f in all {
        let loaded = load_log(log, &f.name, None)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let events: Vec<_> = loaded.events.into_iter().map(|(_, e)| e).collect();
        assert_eq!(events, f.log.events, "{}: stored events differ", f.name);
        let referee = replay(&loaded.header, &events).expect("replay");
        let actual: Vec<Value> = referee
            .rulings()
            .iter()
            .map(|r| r.to_value(loaded.header.variant))
            .collect();
        failures.extend(check(f, "the reopened store", &actual).err());
    }
    assert!(log.games().await.expect("games").len() >= all.len());
    failures
}
