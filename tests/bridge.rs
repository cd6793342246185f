//! The bridge (`referee board`): a board's feed streamed into a game over gRPC. The built
//! binary runs against an in-process server on loopback; the checks are on what the log
//! stored (the board reports and clock presses, once each), not on the moves the referee
//! derives from them, which are judged elsewhere.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use referee::bridge::FeedSpec;
use referee::bridge::layout::Layout;
use referee::bridge::lines::{self, Input};
use referee::games::Variant;
use referee::log::{Log, SledLog};
use referee::service::{Service, serve_on};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{self, create_game};

const XIANGQI_START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
/// The start with red's cannon lifted from h2.
const LIFTED: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR";
/// The cannon put down on e2 (炮二平五).
const CANNON_E2: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR";
/// Then black's horse h9-g7.
const HORSE_G7: &str = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR";

/// A feed of two moves with a clock press each, a repeated placement, field updates, and
/// two lines that do not read (lines 7 and 8).
fn xiangqi_feed() -> String {
    [
        "# a xiangqi board: two moves, a press after each".to_string(),
        json!({"placement": XIANGQI_START, "device": "SN1", "ts_ms": 1000}).to_string(),
        json!({"placement": XIANGQI_START, "device": "SN1", "ts_ms": 1100}).to_string(),
        json!({"square": "h2", "piece": null, "ts_ms": 2000}).to_string(),
        json!({"square": "e2", "piece": "C", "ts_ms": 2100}).to_string(),
        json!({"clock": "red", "red_ms": 5_399_000, "black_ms": 5_400_000, "ts_ms": 2200})
            .to_string(),
        "this is not json".to_string(),
        json!({"square": "j4", "piece": "P", "ts_ms": 2300}).to_string(),
        json!({"placement": HORSE_G7, "device": "SN1", "ts_ms": 3000}).to_string(),
        json!({"clock": "black", "red_ms": 5_399_000, "black_ms": 5_398_000, "ts_ms": 3100})
            .to_string(),
    ]
    .join("\n")
        + "\n"
}

/// A server over the log in `dir`, on `addr` (`None`: a free port), that [`Server::stop`]
/// stops and lets go of the log, so that another can be started on the same store.
struct Server {
    addr: SocketAddr,
    log: SledLog,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Server {
    async fn start(dir: &Path, addr: Option<SocketAddr>) -> Server {
        let log = SledLog::open(dir).expect("open log");
        let listener = tokio::net::TcpListener::bind(addr.unwrap_or(([127, 0, 0, 1], 0).into()))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let service = Service::new(log.clone());
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            serve_on(listener, service, shutdown).await.expect("serve");
        });
        Server {
            addr,
            log,
            stop,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    async fn stop(self, dir: &Path) {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the server stops within 10 s")
            .expect("server task");
        drop(self.log);
        common::released(dir);
    }

    /// The game's stored events: (event id, the event's JSON).
    async fn events(&self, game: &str) -> Vec<(String, Value)> {
        let records = self
            .log
            .read(game, 1, None)
            .await
            .expect("read")
            .expect("game exists");
        records
            .into_iter()
            .map(|r| (r.event_id, serde_json::from_str(&r.body).expect("json")))
            .collect()
    }

    async fn wait_for_events(&self, game: &str, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.events(game).await.len() < count {
            assert!(Instant::now() < deadline, "{count} events never arrived");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// `referee board ARGS`, run to its end off the async threads.
async fn bridge(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_referee"))
            .arg("board")
            .args(&args)
            .env_remove("REFEREE_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run referee board")
    })
    .await
    .expect("join")
}

fn args(game: &str, server: &str, feed: &str) -> Vec<String> {
    ["--game", game, "--server", server, "--feed", feed]
        .map(String::from)
        .to_vec()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each event as `board PLACEMENT` or `clock SIDE FIRST_MS SECOND_MS`, and whether every
/// event id is different.
fn summary(events: &[(String, Value)]) -> (Vec<String>, bool) {
    let lines = events
        .iter()
        .map(|(_, e)| match e["type"].as_str() {
            Some("board") => format!("board {}", e["placement"].as_str().unwrap_or("?")),
            Some("clock") => {
                let side = e["side"].as_str().unwrap_or("?");
                let times: Vec<String> = ["red_ms", "white_ms", "black_ms"]
                    .iter()
                    .filter_map(|k| e.get(*k).map(|t| format!("{k}={t}")))
                    .collect();
                format!("clock {side} {}", times.join(" "))
            }
            other => format!("{other:?}"),
        })
        .collect();
    let mut ids: Vec<&str> = events.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    (lines, ids.len() == before)
}

fn xiangqi_expected() -> Vec<String> {
    vec![
        format!("board {XIANGQI_START}"),
        format!("board {LIFTED}"),
        format!("board {CANNON_E2}"),
        "clock red red_ms=5399000 black_ms=5400000".into(),
        format!("board {HORSE_G7}"),
        "clock black red_ms=5399000 black_ms=5398000".into(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_file_feed_is_stored_once_even_when_read_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), None).await;
    create_game(&mut common_client(&server).await, "xiangqi", "b1").await;
    let feed = dir.path().join("board.jsonl");
    std::fs::write(&feed, xiangqi_feed()).expect("write feed");
    let feed = format!("file:{}", feed.display());

    let first = bridge(args("b1", &server.url(), &feed)).await;
    let (stdout, stderr) = (text(&first.stdout), text(&first.stderr));
    println!("first run:\n{stdout}{stderr}");
    assert!(first.status.success(), "{stdout}\n{stderr}");
    let events = server.events("b1").await;
    let (stored, distinct) = summary(&events);
    assert_eq!(stored, xiangqi_expected());
    assert!(distinct, "event ids repeat: {events:?}");
    // The device named on a whole placement carries over to the field updates after it;
    // the device's times pass through.
    assert_eq!(events[2].1["device"], "SN1");
    assert_eq!(events[2].1["ts_ms"], 2100);
    assert!(
        events
            .iter()
            .all(|(_, e)| e.get("side").is_none() || e["type"] == "clock")
    );
    // What the terminal says: each report with its seq, a field update as the squares it changed.
    assert!(
        stdout.contains(&format!("sent #1 board {XIANGQI_START}")),
        "{stdout}"
    );
    assert!(stdout.contains("sent #3 board e2 ·→C"), "{stdout}");
    assert!(
        stdout.contains("sent #4 clock red (red 5399000 ms, black 5400000 ms)"),
        "{stdout}"
    );
    // The lines that do not read are named by number and skipped.
    assert!(stderr.contains("line 7: not JSON"), "{stderr}");
    assert!(
        stderr.contains("line 8: square \"j4\" does not exist"),
        "{stderr}"
    );

    // A restarted bridge re-reading the same file resends the same ids: acknowledged again,
    // nothing new stored.
    let second = bridge(args("b1", &server.url(), &feed)).await;
    let stdout = text(&second.stdout);
    assert!(
        second.status.success(),
        "{stdout}\n{}",
        text(&second.stderr)
    );
    assert!(stdout.contains("(already stored)"), "{stdout}");
    assert_eq!(server.events("b1").await, events, "the second run appended");
    server.stop(dir.path()).await;
}

async fn common_client(
    server: &Server,
) -> referee::service::proto::referee_client::RefereeClient<tonic::transport::Channel> {
    referee::service::proto::referee_client::RefereeClient::connect(server.url())
        .await
        .expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_resends_after_the_server_comes_back_without_duplicates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), None).await;
    let addr = server.addr;
    create_game(&mut common_client(&server).await, "xiangqi", "b2").await;
    let feed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind feed");
    let feed_spec = format!("tcp:{}", feed.local_addr().expect("addr"));
    let run = tokio::spawn(bridge(args("b2", &server.url(), &feed_spec)));
    let (mut device, _) = feed
        .accept()
        .await
        .expect("the bridge connects to the feed");
    let lines: Vec<String> = xiangqi_feed().lines().map(|l| format!("{l}\n")).collect();

    // The first move reaches the game; then the server goes away.
    for line in &lines[..5] {
        device.write_all(line.as_bytes()).await.expect("feed");
    }
    server.wait_for_events("b2", 3).await;
    server.stop(dir.path()).await;
    // The board goes on while the server is away: the bridge reads on and keeps the reports.
    for line in &lines[5..] {
        device.write_all(line.as_bytes()).await.expect("feed");
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let server = Server::start(dir.path(), Some(addr)).await;
    server.wait_for_events("b2", 6).await;
    // The board's feed closes: the bridge says so and exits 1, all it read stored.
    drop(device);
    let out = run.await.expect("join");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    println!("{stdout}{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("server away"), "{stderr}");
    assert!(
        stderr.contains(&format!("the feed {feed_spec} went away")),
        "{stderr}"
    );
    let events = server.events("b2").await;
    let (stored, distinct) = summary(&events);
    assert_eq!(stored, xiangqi_expected());
    assert!(distinct, "event ids repeat: {events:?}");
    server.stop(dir.path()).await;
}

/// A LiveChess of one e-board, answering `eboards` and `subscribe` as DGT's API documents
/// them, then sending `updates` on the feed and closing.
async fn livechess_mock(updates: Vec<Value>) -> (SocketAddr, JoinHandle<Vec<Value>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.expect("accept");
        let mut socket = tokio_tungstenite::accept_async(stream)
            .await
            .expect("handshake");
        let mut calls = Vec::new();
        while let Some(Ok(message)) = socket.next().await {
            let Message::Text(text) = message else {
                continue;
            };
            let call: Value = serde_json::from_str(text.as_str()).expect("a call is JSON");
            calls.push(call.clone());
            let reply = |param: Value| {
                Message::text(
                    json!({"response": "call", "id": call["id"], "param": param, "time": 1})
                        .to_string(),
                )
            };
            match call["call"].as_str() {
                Some("eboards") => {
                    let board = json!([{
                        "serialnr": "24734", "source": "COM3", "state": "ACTIVE",
                        "battery": null, "comment": null, "flipped": false, "clock": null,
                        "board": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
                    }]);
                    socket.send(reply(board)).await.expect("send");
                }
                Some("subscribe") => {
                    socket.send(reply(Value::Null)).await.expect("send");
                    let feed = call["param"]["id"].clone();
                    for update in &updates {
                        let message =
                            json!({"response": "feed", "id": feed, "param": update, "time": 2});
                        socket
                            .send(Message::text(message.to_string()))
                            .await
                            .expect("send");
                    }
                    let _ = socket.close(None).await;
                    break;
                }
                _ => {}
            }
        }
        calls
    });
    (addr, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_reads_dgt_livechess() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), None).await;
    create_game(&mut common_client(&server).await, "chess_gjq", "b3").await;
    let e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
    let e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR";
    let updates = vec![
        // e4 played while white's clock runs,
        json!({"serialnr": "24734", "flipped": false, "board": e4,
               "clock": {"white": 5400, "black": 5400, "run": true, "time": 10}}),
        // white presses: black's clock runs,
        json!({"serialnr": "24734", "flipped": false,
               "clock": {"white": 5395, "black": 5400, "run": false, "time": 20}}),
        // and black answers e5.
        json!({"serialnr": "24734", "flipped": false, "board": e5, "san": ["e4", "e5"]}),
    ];
    let (addr, mock) = livechess_mock(updates).await;
    let spec = format!("livechess:ws://{addr}/api/v1.0");
    let out = bridge(args("b3", &server.url(), &spec)).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    println!("{stdout}{stderr}");
    // LiveChess closing its connection is the feed going away: said, and exit 1.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("went away"), "{stderr}");
    let calls = mock.await.expect("mock");
    assert_eq!(calls[0]["call"], "eboards");
    assert_eq!(calls[1]["call"], "subscribe");
    assert_eq!(calls[1]["param"]["feed"], "eboardevent");
    assert_eq!(calls[1]["param"]["param"]["serialnr"], "24734");
    let events = server.events("b3").await;
    let (stored, distinct) = summary(&events);
    assert_eq!(
        stored,
        vec![
            "board rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR".to_string(),
            format!("board {e4}"),
            "clock white white_ms=5395000 black_ms=5400000".into(),
            format!("board {e5}"),
        ]
    );
    assert!(distinct, "event ids repeat: {events:?}");
    assert_eq!(events[1].1["device"], "24734");
    assert!(stdout.contains("sent #2 board e4 ·→P e2 P→·"), "{stdout}");
    server.stop(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_bad_feed_spec_exits_2() {
    // No server needed: the SPEC is read before anything is opened.
    let out = bridge(args("nope", "http://127.0.0.1:1", "livechess#")).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("empty board serial"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bridge_feed_specs_read() {
    let parse = |s: &str| FeedSpec::parse(s).map_err(|e| e.to_string());
    assert_eq!(parse("-"), Ok(FeedSpec::Stdin));
    assert_eq!(parse("stdin"), Ok(FeedSpec::Stdin));
    assert_eq!(parse("file:/tmp/x"), Ok(FeedSpec::File("/tmp/x".into())));
    assert_eq!(
        parse("tcp:10.0.0.5:7000"),
        Ok(FeedSpec::Tcp("10.0.0.5:7000".into()))
    );
    assert_eq!(
        parse("serial:/dev/ttyUSB0"),
        Ok(FeedSpec::Serial("/dev/ttyUSB0".into()))
    );
    assert_eq!(
        parse("livechess"),
        Ok(FeedSpec::LiveChess {
            url: "ws://localhost:1982/api/v1.0".into(),
            serial: None
        })
    );
    assert_eq!(
        parse("livechess:ws://10.0.0.2:1982/api/v1.0#24734"),
        Ok(FeedSpec::LiveChess {
            url: "ws://10.0.0.2:1982/api/v1.0".into(),
            serial: Some("24734".into())
        })
    );
    assert_eq!(
        parse("livechess#24734"),
        Ok(FeedSpec::LiveChess {
            url: "ws://localhost:1982/api/v1.0".into(),
            serial: Some("24734".into())
        })
    );
    assert!(parse("tcp:nohost").unwrap_err().contains("HOST:PORT"));
    assert!(
        parse("/no/such/file")
            .unwrap_err()
            .contains("tcp:HOST:PORT")
    );
    let here = common::repo_path("Cargo.toml");
    assert_eq!(
        parse(here.to_str().expect("utf-8")),
        Ok(FeedSpec::File(here))
    );
}

#[test]
fn bridge_squares_are_named_per_game() {
    let chess = Layout::of(Variant::ChessGjq);
    assert_eq!((chess.cell("a8"), chess.cell("h1")), (Some(0), Some(63)));
    assert_eq!(chess.name(52), "e2");
    let xiangqi = Layout::of(Variant::Xiangqi);
    assert_eq!(
        (xiangqi.cell("a9"), xiangqi.cell("i0")),
        (Some(0), Some(89))
    );
    assert_eq!(xiangqi.cell("j4"), None);
    let renju = Layout::of(Variant::Renju);
    assert_eq!((renju.cell("a15"), renju.cell("h8")), (Some(0), Some(112)));
    assert_eq!(renju.name(112), "h8");
    let draughts = Layout::of(Variant::Draughts);
    assert_eq!(
        (draughts.cell("1"), draughts.cell("50"), draughts.cell("51")),
        (Some(0), Some(49), None)
    );
}

#[test]
fn bridge_lines_read_or_say_why() {
    let sides = ["red", "black"];
    let line = lines::parse(r#"{"square":"e2","piece":null,"ts_ms":5}"#, sides)
        .expect("reads")
        .expect("a line");
    assert_eq!(
        line.input,
        Input::Field {
            square: "e2".into(),
            piece: None
        }
    );
    assert_eq!(line.ts_ms, Some(5));
    let draughts = lines::parse(r#"{"square":32,"piece":"w"}"#, ["white", "black"])
        .expect("reads")
        .expect("a line");
    assert_eq!(
        draughts.input,
        Input::Field {
            square: "32".into(),
            piece: Some(b'w')
        }
    );
    assert_eq!(lines::parse("# a comment", sides), Ok(None));
    assert_eq!(lines::parse("   ", sides), Ok(None));
    let bad = |text: &str| lines::parse(text, sides).expect_err(text);
    assert!(bad(r#"{"square":"e2"}"#).contains("needs \"piece\""));
    assert!(bad(r#"{"clock":"white"}"#).contains("red or black"));
    assert!(bad(r#"{"clock":"red","white_ms":1}"#).contains("unknown field \"white_ms\""));
    assert!(bad(r#"{"placement":"9","ts_ms":-1}"#).contains("whole number"));
    assert!(bad(r#"{"move":"h2e2"}"#).contains("needs \"placement\""));
    assert!(bad("[1]").contains("one JSON object"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_rerun_of_a_feed_without_device_time_appends_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(dir.path(), None).await;
    create_game(&mut common_client(&server).await, "xiangqi", "b4").await;
    // No ts_ms: the bridge gives its own time, which differs on the second run.
    let feed = dir.path().join("untimed.jsonl");
    let lines = [
        json!({"placement": XIANGQI_START}).to_string(),
        json!({"square": "h2", "piece": null}).to_string(),
    ];
    std::fs::write(&feed, lines.join("\n") + "\n").expect("write feed");
    let feed = feed.display().to_string();
    let first = bridge(args("b4", &server.url(), &feed)).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let events = server.events("b4").await;
    assert_eq!(events.len(), 2);
    let second = bridge(args("b4", &server.url(), &feed)).await;
    let stderr = text(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    // Each line is either acknowledged again as the same event (the bridge's time came out
    // the same) or refused as another event under its id (it did not): never stored twice.
    let stdout = text(&second.stdout);
    for line in [1, 2] {
        let again = stdout
            .lines()
            .filter(|l| l.ends_with("(already stored)"))
            .count()
            >= line;
        let refused = stderr.contains(&format!("line {line}: already stored"));
        assert!(again || refused, "line {line}: {stderr} {stdout}");
    }
    assert_eq!(server.events("b4").await, events, "the second run appended");
    server.stop(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bridge_once_exits_when_the_server_is_away() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A port nobody listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let feed = dir.path().join("f.jsonl");
    std::fs::write(&feed, json!({"placement": XIANGQI_START}).to_string()).expect("write");
    let mut a = args(
        "b5",
        &format!("http://127.0.0.1:{port}"),
        &feed.display().to_string(),
    );
    a.push("--once".into());
    let out = bridge(a).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is away"), "{stderr}");
}

/// A repeated placement is sent once when it comes the hold time after the last event sent
/// (the referee then reads it as having stood), never within the hold time, and not twice.
#[test]
fn bridge_sends_a_standing_placement_again_once_after_the_hold_time() {
    use referee::bridge::reading::Reading;
    let start = referee::games::sensor::read(Variant::Xiangqi, XIANGQI_START).expect("start");
    let mut reading = Reading::new(Variant::Xiangqi, &start, 1000);
    let sent = |r: Result<Option<referee::bridge::reading::Change>, String>| {
        r.expect("reads").map(|c| c.what)
    };
    assert!(sent(reading.whole(XIANGQI_START, 0)).is_some(), "the first");
    assert_eq!(
        sent(reading.whole(XIANGQI_START, 999)),
        None,
        "within the hold"
    );
    assert_eq!(
        sent(reading.whole(XIANGQI_START, 1000)).as_deref(),
        Some("board unchanged for 1000 ms")
    );
    assert_eq!(sent(reading.whole(XIANGQI_START, 5000)), None, "sent once");
    assert_eq!(
        sent(reading.field("h2", None, 6000)).as_deref(),
        Some("board h2 C→·")
    );
    assert_eq!(
        sent(reading.field("e2", Some(b'C'), 6200)).as_deref(),
        Some("board e2 ·→C")
    );
    // A press restarts the count: the placement at the press stood 800 ms, then 1000.
    reading.pressed(6300);
    assert_eq!(sent(reading.whole(CANNON_E2, 7100)), None);
    assert_eq!(
        sent(reading.whole(CANNON_E2, 7300)).as_deref(),
        Some("board unchanged for 1000 ms")
    );
}
