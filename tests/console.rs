//! The arbiter console, tested as a person uses it: `referee serve --console` as a process,
//! boards streaming over gRPC, and headless Chromium (Debian's `chromium` and
//! `chromium-driver`) driven over WebDriver. Without them the browser tests say loudly that
//! they were skipped and how to run them (or fail, under `.ci/test`: see
//! `common::components`); the HTTP tests run everywhere.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use referee::games::Variant;
use referee::service::proto::{self, referee_client::RefereeClient};
use serde_json::Value;
use tonic::transport::Channel;

use crate::common::components::skip_or_fail;
use crate::common::http::request;
use crate::common::process::ServeProcess;
use crate::common::webdriver::{Browser, browser_paths};
use crate::common::{create_game, referee, repo_path};

/// What the browser tests say when Chromium or its driver is missing.
pub(crate) const CHROMIUM_MISSING: &str = "headless Chromium not found (/usr/bin/chromium and \
     /usr/bin/chromedriver); run the README's test command (.ci/test), which installs Debian's \
     chromium and chromium-driver, or `apt-get install -y chromium chromium-driver`";

/// How soon a board must show what a board streamed (issue 15: "within a second").
const LIVE: Duration = Duration::from_secs(1);

/// The big hall's games in turn: every game, board after board.
fn variant_of(board: usize) -> Variant {
    Variant::ALL[board % Variant::ALL.len()]
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().expect("runtime")
}

pub(crate) async fn client(server: &ServeProcess) -> RefereeClient<Channel> {
    RefereeClient::connect(server.url.clone())
        .await
        .expect("connect")
}

pub(crate) fn movement(side: &str, from: &str, to: &str) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::Move(proto::Move {
            from: from.into(),
            to: to.into(),
            ..Default::default()
        })),
    }
}

pub(crate) fn reveal(side: &str, square: &str, piece: &str) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::Reveal(proto::Reveal {
            square: square.into(),
            piece: piece.into(),
            promotion: None,
        })),
    }
}

/// Appends `events` to `game` after `seq` events; returns the new last seq.
pub(crate) async fn append(
    client: &mut RefereeClient<Channel>,
    game: &str,
    seq: u64,
    events: Vec<proto::Event>,
) -> u64 {
    let n = u64::try_from(events.len()).expect("count");
    let events = events
        .into_iter()
        .enumerate()
        .map(|(i, event)| proto::NewEvent {
            event_id: format!("{game}-{}", seq + 1 + u64::try_from(i).expect("index")),
            event: Some(event),
        })
        .collect();
    client
        .append_events(proto::AppendEventsRequest {
            game: game.into(),
            expected_seq: seq + 1,
            events,
        })
        .await
        .expect("append");
    seq + n
}

pub(crate) fn get_json(addr: &str, path: &str, token: Option<&str>) -> (u16, Value) {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    let answer = request(addr, "GET", path, &headers, "").expect("console answers");
    let value = serde_json::from_str(&answer.body)
        .unwrap_or_else(|e| panic!("{path}: {e}: {}", answer.body));
    (answer.status, value)
}

/// The screenshots go where `cargo` keeps its output, to be looked at after a run.
pub(crate) fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/console-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    dir
}

#[test]
fn console_api_reads_games_and_frames_and_refuses_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "api-xq").await;
        append(&mut c, "api-xq", 0, vec![movement("red", "h2", "e2")]).await;
        let tag = |name: &str, value: &str| proto::Tag {
            name: name.into(),
            value: value.into(),
        };
        c.create_game(proto::CreateGameRequest {
            header: Some(proto::GameHeader {
                variant: "draughts".into(),
                id: "tagged-api".into(),
                tags: vec![tag("Event", "Open"), tag("White", "Baljakin")],
                ..Default::default()
            }),
        })
        .await
        .expect("create");
    });
    let (status, tagged) = get_json(&console, "/api/games/tagged-api", None);
    assert_eq!(status, 200, "{tagged}");
    assert_eq!(
        tagged["tags"],
        serde_json::json!({"Event": "Open", "White": "Baljakin"})
    );
    assert_eq!(
        tagged["frames"][0]["players"],
        serde_json::json!(["Baljakin", null]),
        "the hall card names the players the tags give"
    );
    let (status, list) = get_json(&console, "/api/games?prefix=api-", None);
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["games"][0]["id"], "api-xq");
    let (status, game) = get_json(&console, "/api/games/api-xq", None);
    assert_eq!(status, 200, "{game}");
    let frames = game["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 2, "the start and one frame per event");
    assert_eq!(frames[1]["last"], serde_json::json!(["h2", "e2"]));
    assert!(
        game["events"][0]["text"]
            .as_str()
            .unwrap()
            .contains("炮二平五")
    );
    let (status, missing) = get_json(&console, "/api/games/no-such-game", None);
    assert_eq!(status, 404, "{missing}");
    let (status, bad) = get_json(&console, "/api/games?limit=0", None);
    assert_eq!(status, 400, "{bad}");
    assert!(bad["error"].as_str().unwrap().contains("limit"), "{bad}");
    // The console writes only arbiter events, checked by the log reader's own rules.
    let move_body = r#"{"type":"move","side":"red","from":"h0","to":"g2"}"#;
    let answer = request(
        &console,
        "POST",
        "/api/games/api-xq/arbiter",
        &[],
        move_body,
    )
    .unwrap();
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.headers.contains("content-type: application/json"));
    let bad_word = r#"{"type":"arbiter","side":"arbiter","decision":"shrug"}"#;
    let answer = request(&console, "POST", "/api/games/api-xq/arbiter", &[], bad_word).unwrap();
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.body.contains("decision"), "{}", answer.body);
    // Nothing refused was stored.
    let (_, game) = get_json(&console, "/api/games/api-xq", None);
    assert_eq!(game["events"].as_array().unwrap().len(), 1);
    // The public view is off unless a delay is given.
    let answer = request(&console, "GET", "/public", &[], "").unwrap();
    assert_eq!(answer.status, 404, "{}", answer.body);
}

#[test]
fn console_needs_a_token_once_access_control_is_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let issued = std::process::Command::new(env!("CARGO_BIN_EXE_referee"))
        .args([
            "token",
            "issue",
            "--id",
            "chief",
            "--role",
            "arbiter",
            "--tournament",
            "",
            "--data",
        ])
        .arg(&data)
        .output()
        .expect("token issue");
    assert!(issued.status.success(), "{issued:?}");
    let token = String::from_utf8_lossy(&issued.stdout)
        .split_whitespace()
        .last()
        .expect("the token")
        .to_string();
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let (status, refused) = get_json(&console, "/api/games", None);
    assert_eq!(status, 401, "{refused}");
    let (status, wrong) = get_json(&console, "/api/games", Some("not-a-token"));
    assert_eq!(status, 401, "{wrong}");
    let (status, listed) = get_json(&console, "/api/games", Some(&token));
    assert_eq!(status, 200, "{listed}");
    let answer = request(&console, "GET", "/api/live", &[], "").unwrap();
    assert_eq!(answer.status, 401, "{}", answer.body);
}

/// A person's session: a hall of three variants moving live, a board opened, a disputed move
/// scrubbed back to, a ruling overturned, and a second console seeing it.
#[test]
fn console_in_a_real_browser() {
    let Some((chromium, driver)) = browser_paths() else {
        skip_or_fail("console_in_a_real_browser", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let rt = runtime();
    let mut c = rt.block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "hall-xq").await;
        create_game(&mut c, "chess_gjq", "hall-gjq").await;
        create_game(&mut c, "draughts", "hall-dr").await;
        create_game(&mut c, "renju", "hall-rj").await;
        c
    });
    let first = Browser::start(&chromium, &driver);
    first.open(&format!("http://{console}/#/hall/hall-"));
    first.wait_for(
        "four boards in the hall",
        "return document.querySelectorAll('#hall-grid .card').length === 4",
        Duration::from_secs(10),
    );
    let card = |id: &str, what: &str| {
        format!(
            "const c = document.querySelector('.card[data-game=\"{id}\"]'); return c && {what};"
        )
    };
    let mut latencies = Vec::new();
    let mut timed = |what: &str, script: String, f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        first.wait_for(what, &script, Duration::from_secs(5));
        latencies.push(start.elapsed());
    };
    let mut xq = 0;
    timed(
        "the xiangqi move on its board",
        card("hall-xq", "c.textContent.includes('炮二平五')"),
        &mut || {
            xq = rt.block_on(append(
                &mut c,
                "hall-xq",
                0,
                vec![movement("red", "h2", "e2")],
            ))
        },
    );
    timed(
        "the Gjq move on its board",
        card("hall-gjq", "c.textContent.includes('e4')"),
        &mut || {
            let events = vec![movement("white", "e2", "e4"), reveal("white", "e4", "P")];
            rt.block_on(append(&mut c, "hall-gjq", 0, events));
        },
    );
    timed(
        "the draughts move on its board",
        card("hall-dr", "c.textContent.includes('32-28')"),
        &mut || {
            rt.block_on(append(
                &mut c,
                "hall-dr",
                0,
                vec![movement("white", "32", "28")],
            ));
        },
    );
    // Renju: black's f8 makes two live threes (f8 g8 h8, f8 g9 h10); the card shows the
    // forbidden stone at once, for white to claim.
    timed(
        "the renju forbidden stone's alert",
        card(
            "hall-rj",
            "c.classList.contains('alert-forbidden') && c.querySelectorAll('.piece').length === 9 \
             && c.querySelector('.clock').dataset.side === 'black'",
        ),
        &mut || {
            let stones = crate::common::RENJU_DOUBLE_THREE.iter();
            let events = stones.map(|(s, to)| movement(s, "", to)).collect();
            rt.block_on(append(&mut c, "hall-rj", 0, events));
        },
    );
    // Black's horse b9 cannot reach b5: an illegal move, and the board turns red.
    timed(
        "the illegal move's alert",
        card("hall-xq", "c.classList.contains('alert-illegal')"),
        &mut || {
            xq = rt.block_on(append(
                &mut c,
                "hall-xq",
                xq,
                vec![movement("black", "b9", "b5")],
            ))
        },
    );
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    eprintln!("console: event to screen {latencies:?}, median {median:?}");
    assert!(median <= LIVE, "boards updated in {latencies:?}");
    first.screenshot(&shots().join("hall.png"));

    // A second console watches the xiangqi board.
    let second = Browser::start(&chromium, &driver);
    second.open(&format!("http://{console}/#/game/hall-xq"));
    second.wait_for(
        "the board view on the second console",
        "return document.querySelectorAll('#events li').length === 2",
        Duration::from_secs(10),
    );

    // The first console opens the board, scrubs back to the start, and overturns.
    first.click(".card[data-game=\"hall-xq\"]");
    first.wait_for(
        "the board view",
        "return document.querySelectorAll('#events li').length === 2 && document.querySelector('#board svg')",
        Duration::from_secs(10),
    );
    first.screenshot(&shots().join("board-xiangqi.png"));
    first.eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home'})); return 0;");
    first.wait_for(
        "the start position on the slider",
        "return document.querySelector('#seq').textContent.startsWith('seq 0') \
         && !!document.querySelector('#board [data-square=\"h2\"]') \
         && !document.querySelector('#board [data-square=\"e2\"]')",
        Duration::from_secs(5),
    );
    first.eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'End'})); return 0;");
    first.wait_for(
        "the illegal-move ruling in force",
        "return [...document.querySelectorAll('#rulings li')].some(l => l.textContent.includes('illegal_move'))",
        Duration::from_secs(5),
    );
    first.click("#rulings button[data-act=\"overturn\"]");
    // The console says what the overturn will do before it writes anything.
    first.wait_for(
        "the overturn's confirmation",
        "const c = document.querySelector('#confirm'); return !c.hidden \
         && c.textContent.includes('Overturn ruling') && c.textContent.includes('illegal_move')",
        Duration::from_secs(5),
    );
    first.click("#confirm-yes");
    let start = Instant::now();
    second.wait_for(
        "the overturn on the second console",
        "return [...document.querySelectorAll('#events li')].some(l => l.textContent.includes('overturn'))",
        Duration::from_secs(5),
    );
    eprintln!(
        "console: overturn reached the second console in {:?}",
        start.elapsed()
    );
    first.wait_for(
        "the overturned ruling no longer in force",
        "return ![...document.querySelectorAll('#rulings li')].some(l => l.textContent.includes('illegal_move'))",
        Duration::from_secs(5),
    );
    // The other boards, drawn in full.
    for (id, name) in [
        ("hall-gjq", "board-chess_gjq.png"),
        ("hall-dr", "board-draughts.png"),
        ("hall-rj", "board-renju.png"),
    ] {
        first.open(&format!("http://{console}/#/game/{id}"));
        first.wait_for(
            "the board",
            "return document.querySelectorAll('#board svg .piece').length > 0",
            Duration::from_secs(10),
        );
        first.screenshot(&shots().join(name));
    }
    // A renju game under Soosõrv-8, stopped while white chooses among black's offers: the
    // board view draws the two offers, marks the colours tentative and names the players as
    // they hold the colours after the swap; white's choice puts the fifth stone in the moves.
    rt.block_on(async {
        c.create_game(proto::CreateGameRequest {
            header: Some(proto::GameHeader {
                variant: "renju".into(),
                id: "open-rj".into(),
                rules: Some(proto::RuleOptions {
                    opening: Some("soosorv-8".into()),
                    ..Default::default()
                }),
                tags: vec![
                    proto::Tag {
                        name: "Black".into(),
                        value: "Alice".into(),
                    },
                    proto::Tag {
                        name: "White".into(),
                        value: "Bob".into(),
                    },
                ],
                ..Default::default()
            }),
        })
        .await
        .expect("create");
        let lines = [
            r#"{"type":"move","side":"black","to":"h8"}"#,
            r#"{"type":"move","side":"white","to":"h9"}"#,
            r#"{"type":"move","side":"black","to":"h10"}"#,
            r#"{"type":"move","side":"white","to":"h6"}"#,
            r#"{"type":"declare","side":"white","offers":2}"#,
            r#"{"type":"swap","side":"black"}"#,
            r#"{"type":"offer","side":"black","points":["g7","j11"]}"#,
        ];
        let events = lines
            .iter()
            .map(|l| crate::fixtures::proto_event(l, Variant::Renju))
            .collect();
        append(&mut c, "open-rj", 0, events).await;
    });
    first.open(&format!("http://{console}/#/game/open-rj"));
    first.wait_for(
        "the two offers drawn, the colours tentative, Bob holding black",
        "return document.querySelectorAll('#board svg .offer').length === 2 \
         && document.querySelector('#game-tags').textContent.includes('black: Bob') \
         && document.querySelector('#game-tags').textContent.includes('colours tentative')",
        Duration::from_secs(10),
    );
    first.screenshot(&shots().join("board-renju-offers.png"));
    rt.block_on(append(
        &mut c,
        "open-rj",
        7,
        vec![crate::fixtures::proto_event(
            r#"{"type":"choose","side":"white","to":"j11"}"#,
            Variant::Renju,
        )],
    ));
    first.wait_for(
        "the chosen fifth stone in the moves, the offers gone, the colours settled",
        "return document.querySelector('#moves').textContent.includes('j11 (chosen)') \
         && document.querySelectorAll('#board svg .offer').length === 0 \
         && !document.querySelector('#game-tags').textContent.includes('tentative')",
        Duration::from_secs(10),
    );
    // The overturn is in the log, for every other reader too.
    let (_, game) = get_json(&console, "/api/games/hall-xq", None);
    let overturned = game["rulings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "illegal_move" && r["overturned_at"].is_u64());
    assert!(overturned, "{game}");
}

#[test]
fn public_view_runs_behind_by_its_delay_and_takes_no_word() {
    let dir = tempfile::tempdir().expect("tempdir");
    let flags = ["--console", "127.0.0.1:0", "--public-delay-s", "2"];
    let server = ServeProcess::start(dir.path(), &flags);
    let console = server.console.clone().expect("console address");
    let moved = Instant::now();
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "pub-xq").await;
        append(&mut c, "pub-xq", 0, vec![movement("red", "h2", "e2")]).await;
    });
    let frames = || {
        let (status, game) = get_json(&console, "/public/api/games/pub-xq", None);
        assert_eq!(status, 200, "{game}");
        game["frames"].as_array().expect("frames").len()
    };
    assert_eq!(frames(), 1, "the move is not shown before the delay");
    let log = request(
        &console,
        "GET",
        "/public/api/games/pub-xq/download/log",
        &[],
        "",
    )
    .unwrap();
    assert_eq!(
        (log.status, log.body.lines().count()),
        (200, 1),
        "the header alone"
    );
    while moved.elapsed() < Duration::from_millis(2300) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(frames(), 2, "the move is shown once the delay has passed");
    // The files a spectator may take: as far as the delay lets them see, no audit bundle.
    let log = request(
        &console,
        "GET",
        "/public/api/games/pub-xq/download/log",
        &[],
        "",
    )
    .unwrap();
    assert_eq!(
        (log.status, log.body.lines().count()),
        (200, 2),
        "{}",
        log.body
    );
    let (status, audit) = get_json(&console, "/public/api/games/pub-xq/download/audit", None);
    assert_eq!(status, 404, "{audit}");
    assert_eq!(audit["available"], serde_json::json!(["log", "pgn"]));
    let page = request(&console, "GET", "/public", &[], "").unwrap();
    assert_eq!(page.status, 200);
    assert!(page.body.contains(r#"data-public="true""#));
    let word = r#"{"type":"arbiter","side":"arbiter","decision":"warn","text":"x"}"#;
    let answer = request(
        &console,
        "POST",
        "/public/api/games/pub-xq/arbiter",
        &[],
        word,
    )
    .unwrap();
    assert!(
        answer.status == 404 || answer.status == 405,
        "{}",
        answer.status
    );
}

/// A hall of 150 boards on one page and one connection: every board drawn, and a move on
/// any of them shown within a second.
#[test]
fn console_hall_of_150_boards() {
    let Some((chromium, driver)) = browser_paths() else {
        skip_or_fail("console_hall_of_150_boards", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let rt = runtime();
    let ids: Vec<String> = (1..=150).map(|n| format!("big-{n:03}")).collect();
    let mut c = rt.block_on(async {
        let mut c = client(&server).await;
        for (i, id) in ids.iter().enumerate() {
            create_game(&mut c, variant_of(i).name(), id).await;
        }
        c
    });
    let browser = Browser::start(&chromium, &driver);
    browser.open(&format!("http://{console}/#/hall/big-"));
    browser.wait_for(
        "150 boards drawn",
        "return document.querySelectorAll('#hall-grid .card svg').length === 150",
        Duration::from_secs(20),
    );
    let mut latencies = Vec::new();
    // Moves on three xiangqi boards spread over the hall: the first, one in the middle, the last.
    let xiangqi: Vec<&String> = (ids.iter().enumerate())
        .filter(|(i, _)| variant_of(*i) == Variant::Xiangqi)
        .map(|(_, id)| id)
        .collect();
    for id in [
        xiangqi[0],
        xiangqi[xiangqi.len() / 2],
        xiangqi[xiangqi.len() - 1],
    ] {
        let script = format!(
            "const c = document.querySelector('.card[data-game=\"{id}\"]'); \
             return c && c.textContent.includes('炮二平五');"
        );
        let start = Instant::now();
        rt.block_on(append(&mut c, id, 0, vec![movement("red", "h2", "e2")]));
        browser.wait_for("the move on its board", &script, Duration::from_secs(5));
        latencies.push(start.elapsed());
    }
    eprintln!("console: 150 boards, event to screen {latencies:?}");
    latencies.sort();
    assert!(latencies[1] <= LIVE, "150 boards updated in {latencies:?}");
    browser.screenshot(&shots().join("hall-150.png"));
    // A hall screen (1920 x 1080): no sideways scrolling, and ten or more boards a row.
    browser.resize(1920, 1080);
    let layout = browser.wait_for(
        "the hall laid out for a 1920 px screen",
        "const cards = [...document.querySelectorAll('#hall-grid .card')]; \
         const top = cards[0].getBoundingClientRect().top; \
         const row = cards.filter(c => c.getBoundingClientRect().top === top).length; \
         return window.innerWidth > 1800 && document.documentElement.scrollWidth <= window.innerWidth \
           && row >= 10 && row;",
        Duration::from_secs(5),
    );
    eprintln!("console: 150 boards on a 1920 px screen, {layout} a row");
    browser.screenshot(&repo_path("docs/screenshots/hall-150-1920.png"));
}

/// Whitespace runs as one space: `referee replay` wraps long lines for a terminal.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_console_reads_each_event_as_referee_replay_writes_it_after_a_reload() {
    let fixtures = [
        "replay-fixtures/xiangqi/complete-game-with-procedures.jsonl",
        "replay-fixtures/xiangqi/clock-periods.jsonl",
        "replay-fixtures/draughts/judgment-draw-asked-under-a-minute.jsonl",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data_str = data.to_str().expect("utf-8");
    let mut games = Vec::new();
    for fixture in fixtures {
        let path = repo_path(fixture);
        let path_str = path.to_str().expect("utf-8");
        let out = referee(&["import", path_str, "--data", data_str]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let id = String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_string();
        let replayed = String::from_utf8(referee(&["replay", path_str]).stdout).expect("utf-8");
        games.push((fixture, id, one_line(&replayed)));
    }
    // The server starts on a store written before: every board view is a reload.
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let (status, specs) = get_json(&console, "/api/variants", None);
    assert_eq!(status, 200, "{specs}");
    let printed = String::from_utf8(referee(&["games"]).stdout).expect("utf-8");
    assert_eq!(
        specs,
        serde_json::from_str::<Value>(&printed).expect("JSON")
    );
    for (fixture, id, replayed) in &games {
        let (status, game) = get_json(&console, &format!("/api/games/{id}"), None);
        assert_eq!(status, 200, "{game}");
        let events = game["events"].as_array().expect("events");
        let mut compared = 0;
        for event in events {
            let text = event["text"].as_str().expect("text");
            assert!(
                !text.contains("ts_ms") && !text.contains("from "),
                "{fixture}: raw event {text:?}"
            );
            if matches!(event["type"].as_str(), Some("move" | "clock")) {
                assert!(
                    replayed.contains(&one_line(text)),
                    "{fixture}: the console writes {text:?}, which `referee replay` does not:\n{replayed}"
                );
                compared += 1;
            }
        }
        assert!(
            compared >= 3,
            "{fixture}: only {compared} moves and presses"
        );
        let last = events.last().expect("an event")["text"].clone();
        let frames = game["frames"].as_array().expect("frames");
        // The last frame carries the last event's words, and the board's last move (which
        // a resignation or press after it does not replace).
        assert_eq!(frames.last().expect("frame")["words"], last, "{fixture}");
        let last_move = events
            .iter()
            .rev()
            .find(|e| e["type"] == "move")
            .map(|e| e["text"].clone());
        if let Some(last_move) = last_move {
            let shown = frames.last().expect("frame")["move"]
                .as_str()
                .unwrap_or_default();
            assert!(
                shown.starts_with(last_move.as_str().unwrap_or_default()),
                "{fixture}: the card shows {shown:?} as the last move"
            );
        }
    }
}

// ---- electronic boards ----

const XQ_START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
/// Red's cannon put down on e2 (炮二平五).
const XQ_CANNON_E2: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR";
/// Then black's horse on g7 and red's pawn on a3 gone: no legal move explains it.
const XQ_NOTHING: &str = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/2P1P1P1P/1C2C4/9/RNBAKABNR";
/// The arbiter's set: black's horse h9-g7 was played.
const XQ_SET: &str = r#"{"type":"move","side":"black","from":"h9","to":"g7"}"#;

pub(crate) fn report(placement: &str, ts_ms: u64) -> proto::Event {
    proto::Event {
        side: String::new(),
        ts_ms: Some(ts_ms),
        kind: Some(proto::event::Kind::Board(proto::BoardReport {
            placement: placement.into(),
            device: Some("SN1".into()),
        })),
    }
}

/// A clock press with the times the clock showed after it (first, second).
pub(crate) fn clock_press(side: &str, first_ms: u64, second_ms: u64) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::Clock(proto::ClockPress {
            first_ms: Some(first_ms),
            second_ms: Some(second_ms),
        })),
    }
}

pub(crate) fn press(side: &str, ts_ms: u64) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: Some(ts_ms),
        kind: Some(proto::event::Kind::Clock(proto::ClockPress::default())),
    }
}

/// A xiangqi board's reports: the start, red's cannon to e2 and a press (a `board_move`).
fn reports_to_the_move() -> Vec<proto::Event> {
    vec![
        report(XQ_START, 1000),
        report(XQ_CANNON_E2, 2000),
        press("red", 2100),
    ]
}

/// Then a placement no legal move explains, read at black's press and still standing after
/// the hold time: a `board_mismatch` raised at the report after the hold time (seq 6).
fn reports_to_the_mismatch() -> Vec<proto::Event> {
    vec![
        report(XQ_NOTHING, 3000),
        press("black", 3100),
        report(XQ_NOTHING, 5000),
    ]
}

/// The arbiter's `set` as the console's form posts it.
fn set_body(moves: &str) -> String {
    format!(
        r#"{{"type":"arbiter","side":"arbiter","decision":"set","moves":[{moves}],"text":"seen"}}"#
    )
}

#[test]
fn console_api_shows_a_board_its_reports_and_takes_a_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "api-board").await;
        let seq = append(&mut c, "api-board", 0, reports_to_the_move()).await;
        append(&mut c, "api-board", seq, reports_to_the_mismatch()).await;
    });
    let (status, game) = get_json(&console, "/api/games/api-board", None);
    assert_eq!(status, 200, "{game}");
    // The derived move is in the move list, under the press that committed it.
    let press = &game["events"][2];
    assert_eq!(press["type"], "clock", "{game}");
    let made = press["made"][0].as_str().expect("a derived move");
    assert!(made.contains("炮二平五"), "{made}");
    // The raw reports: seq, device, device time, and what changed from the report before.
    let reports = game["reports"].as_array().expect("reports");
    let seqs: Vec<u64> = reports.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 4, 6], "{game}");
    assert_eq!(reports[0]["changed"], Value::Null, "the first report");
    assert_eq!(reports[1]["changed"], serde_json::json!(["e2", "h2"]));
    assert_eq!(reports[1]["device"], "SN1");
    assert_eq!(reports[1]["ts_ms"], 2000);
    assert!(reports[1]["received_ms"].as_u64().unwrap() > 0);
    assert_eq!(reports[3]["changed"], serde_json::json!([]));
    // The board at each seq: at the report of the cannon on e2, before the press, the board
    // is ahead of the game on e2 and h2; after the press it matches.
    let frames = game["frames"].as_array().expect("frames");
    assert_eq!(frames[0]["board"], Value::Null, "no report yet");
    assert_eq!(
        frames[2]["board"]["differs"],
        serde_json::json!(["e2", "h2"])
    );
    assert_eq!(frames[3]["board"]["differs"], serde_json::json!([]));
    assert_eq!(
        frames[3]["move"].as_str().map(|m| m.contains("炮二平五")),
        Some(true)
    );
    assert_eq!(frames[3]["last"], serde_json::json!(["h2", "e2"]));
    assert_eq!(frames[3]["made"], true);
    // The hall's frame: device, last report, when it was received, the standing mismatch.
    let last = frames.last().expect("a frame");
    let board = &last["board"];
    assert_eq!(board["device"], "SN1", "{last}");
    assert_eq!(board["seq"], 6);
    assert_eq!(board["placement"], XQ_NOTHING);
    assert_eq!(board["shown"], XQ_NOTHING);
    assert_eq!(reports[3]["received_ms"], board["received_ms"]);
    assert_eq!(board["differs"], serde_json::json!(["h9", "g7", "a3"]));
    assert_eq!(board["mismatch"]["seq"], 6, "{board}");
    assert!(board["mismatch"]["what"].as_str().unwrap().contains("a3"));
    assert!(
        game["rulings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "board_mismatch" && r["at"] == 6),
        "{game}"
    );
    // A set with a square that does not exist is refused with the field named; nothing stored.
    let bad = set_body(r#"{"type":"move","side":"black","from":"h9","to":"z7"}"#);
    let answer = request(&console, "POST", "/api/games/api-board/arbiter", &[], &bad).unwrap();
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        answer.body.contains("\\\"moves\\\" item 1"),
        "{}",
        answer.body
    );
    // The arbiter's set clears the mismatch; the set move is written in the move list.
    let answer = request(
        &console,
        "POST",
        "/api/games/api-board/arbiter",
        &[],
        &set_body(XQ_SET),
    )
    .unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    let (_, game) = get_json(&console, "/api/games/api-board", None);
    let set = game["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(set["type"], "arbiter");
    assert_eq!(set["made"].as_array().map(Vec::len), Some(1), "{set}");
    let last = game["frames"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["board"]["mismatch"], Value::Null, "{last}");
    assert_eq!(
        last["board"]["differs"],
        serde_json::json!(["a3"]),
        "{last}"
    );
    assert_eq!(last["last"], serde_json::json!(["h9", "g7"]));
    assert!(game["open"].as_array().unwrap().is_empty(), "{game}");
}

/// The whole path an electronic board takes: `referee board` reads a device's feed from a
/// file (whole placements, field updates, clock lines) and streams it into a running
/// `referee serve`; the console's API then shows the moves derived from the reports, the
/// mismatch raised when the board showed what no move explains, and the device.
#[test]
fn console_shows_what_the_bridge_streamed_from_a_board() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "hall-b7").await;
    });
    let line = |v: Value| v.to_string();
    let feed = [
        line(serde_json::json!({"placement": XQ_START, "device": "DGT-SN-4711", "ts_ms": 1000})),
        // Red's cannon lifted from h2 and put down on e2, as field updates.
        line(serde_json::json!({"square": "h2", "piece": null, "ts_ms": 1800})),
        line(serde_json::json!({"square": "e2", "piece": "C", "ts_ms": 2000})),
        line(serde_json::json!({"clock": "red", "red_ms": 5_399_000, "black_ms": 5_400_000, "ts_ms": 2100})),
        // Black's horse h9-g7, and red's pawn on a3 knocked off the board.
        line(serde_json::json!({"placement": XQ_NOTHING, "ts_ms": 3000})),
        line(serde_json::json!({"clock": "black", "red_ms": 5_399_000, "black_ms": 5_399_000, "ts_ms": 3100})),
        // Still so past the hold time: the mismatch stands.
        line(serde_json::json!({"placement": XQ_NOTHING, "ts_ms": 5000})),
    ]
    .join("\n")
        + "\n";
    let path = dir.path().join("board-7.jsonl");
    std::fs::write(&path, feed).expect("write the feed");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["board", "--game", "hall-b7", "--server", &server.url])
        .arg("--feed")
        .arg(format!("file:{}", path.display()))
        .env_remove("REFEREE_TOKEN")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run referee board");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The bridge said what the referee derived from what it sent.
    assert!(stdout.contains("炮二平五"), "{stdout}");
    assert!(stdout.contains("board_mismatch"), "{stdout}");

    let (status, game) = get_json(&console, "/api/games/hall-b7", None);
    assert_eq!(status, 200, "{game}");
    let events = game["events"].as_array().expect("events");
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "board", "board", "board", "clock", "board", "clock", "board"
        ],
        "{game}"
    );
    // Red's move derived at red's press, from the field updates folded into placements.
    let made = events[3]["made"][0].as_str().expect("a derived move");
    assert!(made.contains("炮二平五"), "{made}");
    // Black's press read a placement nothing explains: nothing derived there.
    assert_eq!(events[5]["made"], serde_json::json!([]), "{}", events[5]);
    let reports = game["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 5, "{game}");
    assert!(
        reports.iter().all(|r| r["device"] == "DGT-SN-4711"),
        "the device named once carries over: {reports:?}"
    );
    assert_eq!(reports[2]["changed"], serde_json::json!(["e2"]));
    let last = game["frames"].as_array().unwrap().last().unwrap().clone();
    let board = &last["board"];
    assert_eq!(board["device"], "DGT-SN-4711", "{last}");
    assert_eq!(board["seq"], 7);
    assert_eq!(board["differs"], serde_json::json!(["h9", "g7", "a3"]));
    assert!(
        board["mismatch"]["what"].as_str().unwrap().contains("a3"),
        "{board}"
    );
    let rulings = game["rulings"].as_array().expect("rulings");
    assert!(
        rulings
            .iter()
            .any(|r| r["kind"] == "board_move" && r["text"].as_str().unwrap().contains("炮二平五")),
        "{game}"
    );
    assert!(
        rulings
            .iter()
            .any(|r| r["kind"] == "board_mismatch" && r["at"] == 7),
        "{game}"
    );
    // The hall lists the board with its device and the standing mismatch.
    let (status, hall) = get_json(&console, "/api/games?prefix=hall-", None);
    assert_eq!(status, 200, "{hall}");
    assert_eq!(hall["games"][0]["id"], "hall-b7", "{hall}");
}

/// An arbiter's view of an electronic board: the derived move on the hall card and in the
/// move list, the device badge, the mismatch as the card's own alert, the board's report
/// beside the game's position with the differing squares outlined, the raw reports (a click
/// scrubs to one), and a `set` through the form (a bad one refused with the field named)
/// that clears the mismatch.
#[test]
fn console_shows_an_electronic_board_in_a_real_browser() {
    let Some((chromium, driver)) = browser_paths() else {
        skip_or_fail(
            "console_shows_an_electronic_board_in_a_real_browser",
            CHROMIUM_MISSING,
        );
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let rt = runtime();
    let mut c = rt.block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "eb-xq").await;
        c
    });
    let browser = Browser::start(&chromium, &driver);
    browser.open(&format!("http://{console}/#/hall/eb-"));
    browser.wait_for(
        "the board in the hall",
        "return document.querySelectorAll('#hall-grid .card').length === 1",
        Duration::from_secs(10),
    );
    let card = |what: &str| {
        format!(
            "const c = document.querySelector('.card[data-game=\"eb-xq\"]'); return !!c && {what};"
        )
    };
    let seq = rt.block_on(append(&mut c, "eb-xq", 0, reports_to_the_move()));
    browser.wait_for(
        "the derived move and the device badge on the card",
        &card(
            "c.querySelector('.last').textContent.includes('炮二平五') \
             && c.querySelector('.device').textContent.includes('SN1') \
             && /\\d+ s/.test(c.querySelector('.device .age').textContent) \
             && !c.querySelector('.device-silent') \
             && !c.className.includes('alert-')",
        ),
        Duration::from_secs(5),
    );
    rt.block_on(append(&mut c, "eb-xq", seq, reports_to_the_mismatch()));
    browser.wait_for(
        "the mismatch alert in its own colour",
        &card(
            "c.classList.contains('alert-board-mismatch') \
             && getComputedStyle(c).borderTopColor === 'rgb(230, 85, 13)'",
        ),
        Duration::from_secs(5),
    );
    let legend = browser
        .eval("return [...document.querySelectorAll('.legend .alert-board-mismatch')].length");
    assert_eq!(legend, 1, "the legend names the board mismatch");
    browser.screenshot(&shots().join("hall-board-mismatch.png"));

    browser.click(".card[data-game=\"eb-xq\"]");
    browser.wait_for(
        "the board view with the board's report beside the game",
        "return document.querySelectorAll('#board svg').length === 1 \
         && document.querySelectorAll('#sensor svg').length === 1 \
         && [...document.querySelectorAll('#events li .made')].some(m => m.textContent.includes('炮二平五')) \
         && document.querySelectorAll('#reports li').length === 4",
        Duration::from_secs(10),
    );
    let marked = browser.eval(
        "return [...document.querySelectorAll('#sensor .mark.differs')].length + ' ' \
         + document.querySelector('#sensor-status').textContent",
    );
    let marked = marked.as_str().unwrap_or_default().to_string();
    assert!(
        marked.starts_with("3 board mismatch since event 6"),
        "{marked}"
    );
    assert!(marked.contains("a3 (board empty, game P)"), "{marked}");
    let pieces = browser.eval(
        "return !!document.querySelector('#sensor [data-square=\"g7\"]') \
         && !document.querySelector('#board [data-square=\"g7\"]')",
    );
    assert_eq!(pieces, true, "the report's horse on g7, the game's not");
    browser.screenshot(&shots().join("board-electronic.png"));

    // A click on the second report scrubs to it: its placement, ahead of the game there.
    browser.click("#reports li[data-seq=\"2\"]");
    browser.wait_for(
        "the second report's placement",
        "return document.querySelector('#reports li.current')?.dataset.seq === '2' \
         && document.querySelector('#sensor-status').textContent === 'board differs on e2, h2' \
         && !!document.querySelector('#sensor [data-square=\"e2\"]') \
         && !document.querySelector('#board [data-square=\"e2\"]') \
         && document.querySelectorAll('#sensor .mark.differs').length === 2",
        Duration::from_secs(5),
    );
    browser.eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'End'})); return 0;");

    // A set naming a square that does not exist: refused, the field named, nothing stored.
    let set = |moves: &str| {
        browser.eval(&format!(
            "document.querySelector('#set-moves').value = {}; return 0;",
            serde_json::to_string(moves).expect("JSON")
        ));
        browser.click("#set-ask");
        browser.wait_for(
            "the confirm step",
            "return !document.querySelector('#set-confirm').hidden",
            Duration::from_secs(5),
        );
    };
    set(r#"{"type":"move","side":"black","from":"h9","to":"z7"}"#);
    browser.click("#set-yes");
    browser.wait_for(
        "the refusal naming the field",
        "return document.querySelector('#set-error').textContent.includes('\"moves\" item 1')",
        Duration::from_secs(5),
    );
    set(XQ_SET);
    let asked = browser.eval("return document.querySelector('#set-what').textContent");
    assert!(
        asked.as_str().unwrap_or_default().contains("black h9-g7"),
        "{asked}"
    );
    browser.click("#set-yes");
    browser.wait_for(
        "the set move in the move list and the mismatch gone",
        "const last = [...document.querySelectorAll('#events li')].pop(); \
         return last.classList.contains('ev-arbiter') && !!last.querySelector('.made') \
         && document.querySelector('#sensor-status').textContent === 'board differs on a3'",
        Duration::from_secs(5),
    );
    browser.screenshot(&shots().join("board-electronic-set.png"));

    // Back in the hall (its silent time one second): the alert is gone, and the board, heard
    // from no more, turns its badge to a warning.
    browser.open(&format!("http://{console}/?silent_s=1#/hall/eb-"));
    browser.wait_for(
        "the card without the mismatch alert, its device silent",
        &card(
            "!c.classList.contains('alert-board-mismatch') \
             && !!c.querySelector('.device.device-silent')",
        ),
        Duration::from_secs(10),
    );
    let (_, game) = get_json(&console, "/api/games/eb-xq", None);
    assert_eq!(game["events"].as_array().map(Vec::len), Some(7), "{game}");
}

// ---- the arbiter's desk: the word checked, the game's files ----

/// POSTs `body` as the arbiter's word on `game`: (status, the JSON answer).
fn post_word(console: &str, game: &str, body: &str) -> (u16, Value) {
    let path = format!("/api/games/{game}/arbiter");
    let answer = request(console, "POST", &path, &[], body).expect("console answers");
    let value = serde_json::from_str(&answer.body).expect("JSON");
    (answer.status, value)
}

#[test]
fn console_refuses_a_word_on_no_ruling_in_force_or_a_declare_after_the_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "word-xq").await;
        // The horse's leg is blocked at c0: an illegal move, which loses (xiangqi 4.1).
        let moves = vec![
            movement("red", "h2", "e2"),
            movement("black", "h9", "g7"),
            movement("red", "b0", "d1"),
        ];
        append(&mut c, "word-xq", 0, moves).await;
    });
    let events = || {
        let (_, game) = get_json(&console, "/api/games/word-xq", None);
        game["events"].as_array().expect("events").len()
    };
    let uphold = r#"{"type":"arbiter","side":"arbiter","decision":"uphold","ruling":99}"#;
    let (status, refused) = post_word(&console, "word-xq", uphold);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["error"],
        "body.ruling: no ruling in force at 99 (rulings in force: 3)"
    );
    let draw = r#"{"type":"arbiter","side":"arbiter","decision":"declare","result":"1/2-1/2"}"#;
    let (status, refused) = post_word(&console, "word-xq", draw);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["error"],
        "body.decision: the game is over (0-1 by the ruling at 3); overturn that ruling to \
         declare another result"
    );
    assert_eq!(events(), 3, "nothing refused was stored");
    // The ending overturned, the game goes on and the arbiter may declare.
    let overturn = r#"{"type":"arbiter","side":"arbiter","decision":"overturn","ruling":3}"#;
    let (status, taken) = post_word(&console, "word-xq", overturn);
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken, serde_json::json!({"seqs": [4], "result": null}));
    let (status, refused) = post_word(&console, "word-xq", overturn);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["error"],
        "body.ruling: no ruling in force at 3 (rulings in force: 4)"
    );
    let (status, taken) = post_word(&console, "word-xq", draw);
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["result"], "1/2-1/2");
    assert_eq!(events(), 5);
}

/// GETs a game's file: the answer, whose headers are lower-cased.
fn download(console: &str, path: &str, token: Option<&str>) -> crate::common::http::Answer {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    request(console, "GET", path, &headers, "").expect("console answers")
}

#[test]
fn console_downloads_a_games_log_pdn_and_audit_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    // An id with a space and quotes, which a file name must not carry as they are.
    let xq = r#"dl r1 "b2""#;
    let xq_path = "dl%20r1%20%22b2%22";
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", xq).await;
        let moves = vec![
            movement("red", "h2", "e2"),
            movement("black", "h9", "g7"),
            movement("red", "b0", "d1"),
        ];
        append(&mut c, xq, 0, moves).await;
        create_game(&mut c, "draughts", "dl-dr").await;
        let moves = vec![
            movement("white", "32", "28"),
            clock_press("white", 299_000, 300_000),
            movement("black", "19", "23"),
            movement("white", "28", "19"),
        ];
        append(&mut c, "dl-dr", 0, moves).await;
        // A xiangqi game for PGN, with clock presses that give the times.
        create_game(&mut c, "xiangqi", "dl-pgn").await;
        let clock = clock_press;
        let events = vec![
            movement("red", "h2", "e2"),
            clock("red", 5_399_000, 5_400_000),
            movement("black", "h9", "g7"),
            clock("black", 5_399_000, 5_391_500),
            movement("red", "h0", "g2"),
        ];
        append(&mut c, "dl-pgn", 0, events).await;
    });

    let log = download(
        &console,
        &format!("/api/games/{xq_path}/download/log"),
        None,
    );
    assert_eq!(log.status, 200, "{}", log.body);
    assert!(log.headers.contains("content-type: application/x-ndjson"));
    assert!(
        log.headers
            .contains("content-disposition: attachment; filename=\"dl_r1__b2_.jsonl\""),
        "{}",
        log.headers
    );
    let read = referee::event::parse_log(&log.body).expect("the project's reader reads it");
    let written = format!(
        "{{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":{}}}\n{}\n{}\n{}\n",
        serde_json::json!(xq),
        r#"{"type":"move","side":"red","from":"h2","to":"e2"}"#,
        r#"{"type":"move","side":"black","from":"h9","to":"g7"}"#,
        r#"{"type":"move","side":"red","from":"b0","to":"d1"}"#,
    );
    let sent = referee::event::parse_log(&written).expect("the log sent");
    assert_eq!((read.header, read.events), (sent.header, sent.events));

    let pdn = download(&console, "/api/games/dl-dr/download/pdn", None);
    assert_eq!(pdn.status, 200, "{}", pdn.body);
    assert!(pdn.headers.contains("content-type: text/plain"));
    assert!(
        pdn.headers
            .contains("content-disposition: attachment; filename=\"dl-dr.pdn\"")
    );
    let games = referee::records::read(
        "dl-dr.pdn",
        pdn.body.as_bytes(),
        Some(referee::records::Format::Pdn),
        None,
    )
    .expect("the PDN importer reads it");
    let moves: Vec<(String, String)> = games[0]
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            referee::event::EventKind::Move { from, to, .. } => {
                Some((from.to_string(), to.to_string()))
            }
            _ => None,
        })
        .collect();
    let played = [("32", "28"), ("19", "23"), ("28", "19")];
    let played: Vec<(String, String)> = played
        .iter()
        .map(|(f, t)| ((*f).to_string(), (*t).to_string()))
        .collect();
    assert_eq!(moves, played, "{}", pdn.body);
    // The mover's clock after the press that ended the move.
    assert!(
        pdn.body
            .contains("1. 32-28 {[%clk 0:04:59]} 19-23 2. 28x19"),
        "{}",
        pdn.body
    );

    let pgn = download(&console, "/api/games/dl-pgn/download/pgn", None);
    assert_eq!(pgn.status, 200, "{}", pgn.body);
    assert!(
        pgn.headers
            .contains("content-type: application/x-chess-pgn")
    );
    assert!(
        pgn.headers
            .contains("content-disposition: attachment; filename=\"dl-pgn.pgn\"")
    );
    assert!(
        pgn.body.contains("[Game \"Chinese Chess\"]")
            && pgn
                .body
                .contains("1. H2-E2 {[%clk 1:29:59]} H9-G7 {[%clk 1:29:51]} 2. H0-G2 *"),
        "{}",
        pgn.body
    );
    let games = referee::records::read(
        "dl-pgn.pgn",
        pgn.body.as_bytes(),
        Some(referee::records::Format::XiangqiPgn),
        None,
    )
    .expect("the PGN importer reads it");
    let moves: Vec<String> = games[0]
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            referee::event::EventKind::Move { from, to, .. } => Some(format!("{from}{to}")),
            _ => None,
        })
        .collect();
    assert_eq!(moves, ["h2e2", "h9g7", "h0g2"], "{}", pgn.body);

    let bundle = download(
        &console,
        &format!("/api/games/{xq_path}/download/audit"),
        None,
    );
    assert_eq!(bundle.status, 200, "{}", bundle.body);
    assert!(
        bundle
            .headers
            .contains("content-type: application/x-ndjson")
    );
    assert!(
        bundle
            .headers
            .contains("content-disposition: attachment; filename=\"dl_r1__b2_.bundle\"")
    );
    let report = referee::audit::verify(&bundle.body, None).expect("a bundle");
    assert!(report.ok(), "{:?}", report.problems);

    // A file the game does not have: a 404 naming those it has.
    let (status, missing) = get_json(&console, "/api/games/dl-dr/download/pgn", None);
    assert_eq!(status, 404, "{missing}");
    assert_eq!(
        missing["available"],
        serde_json::json!(["log", "pdn", "audit"])
    );
    assert!(
        missing["error"].as_str().unwrap().contains("\"pgn\""),
        "{missing}"
    );
    let path = format!("/api/games/{xq_path}/download/pdn");
    let (status, missing) = get_json(&console, &path, None);
    assert_eq!(status, 404, "{missing}");
    assert_eq!(
        missing["available"],
        serde_json::json!(["log", "pgn", "audit"])
    );
    let (status, missing) = get_json(&console, "/api/games/no-such/download/log", None);
    assert_eq!(status, 404, "{missing}");
}

#[test]
fn console_downloads_need_the_token_a_read_and_an_audit_call_need() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let arbiter = crate::common::issue(
        &data,
        &["--id", "arb", "--role", "arbiter", "--tournament", "open-"],
    );
    let board = crate::common::issue(
        &data,
        &[
            "--id", "b1", "--role", "board", "--game", "open-b1", "--side", "red",
        ],
    );
    let flags = ["--console", "127.0.0.1:0", "--public-delay-s", "1"];
    let server = ServeProcess::start(dir.path(), &flags);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        let mut create = tonic::Request::new(proto::CreateGameRequest {
            header: Some(proto::GameHeader {
                variant: "xiangqi".into(),
                id: "open-b1".into(),
                ..Default::default()
            }),
        });
        let bearer = format!("Bearer {arbiter}").parse().expect("ascii");
        create.metadata_mut().insert("authorization", bearer);
        c.create_game(create).await.expect("create");
    });
    let status = |file: &str, token: Option<&str>| {
        let path = format!("/api/games/open-b1/download/{file}");
        download(&console, &path, token).status
    };
    assert_eq!(status("log", None), 401, "no token");
    assert_eq!(status("log", Some("not-a-token")), 401);
    assert_eq!(status("log", Some(&arbiter)), 200);
    assert_eq!(status("log", Some(&board)), 200, "a board reads its game");
    assert_eq!(status("audit", Some(&arbiter)), 200);
    assert_eq!(
        status("audit", Some(&board)),
        403,
        "as ExportAudit refuses it"
    );
    // A spectator needs no token, and gets no bundle.
    let public = |file: &str| {
        let path = format!("/public/api/games/open-b1/download/{file}");
        download(&console, &path, None).status
    };
    assert_eq!((public("log"), public("audit")), (200, 404));
}
