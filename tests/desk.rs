//! The arbiter's desk (issue 32) in a real browser: clocks that tick in the board view with
//! the hall's figures, the public view beside access control, the game's words after a
//! reload, a numbered move list, board flip and whose move, colours by effect (a draughts
//! correction), the arbiter's word confirmed before it is written, the hall's search, filter,
//! sound and status line, and layouts for a phone. Screenshots of the hall and of a board
//! view per game go to docs/screenshots/ for the README.

use std::path::Path;
use std::time::{Duration, Instant};

use referee::service::proto::{self, referee_client::RefereeClient};
use serde_json::Value;
use tonic::transport::Channel;

use crate::common::components::skip_or_fail;
use crate::common::process::ServeProcess;
use crate::common::webdriver::{Browser, browser_paths};
use crate::common::{create_game, repo_path};
use crate::console::{
    CHROMIUM_MISSING, append, client, clock_press, get_json, movement, reveal, runtime, shots,
};

fn draw_offer(side: &str) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::DrawOffer(proto::DrawOffer {})),
    }
}

/// `h:mm:ss` or `mm:ss` as seconds.
fn seconds(text: &str) -> i64 {
    let clock = text
        .split_whitespace()
        .find(|w| w.contains(':'))
        .unwrap_or_else(|| panic!("no clock in {text:?}"));
    let clock = clock.split('.').next().unwrap_or(clock);
    clock
        .split(':')
        .map(|p| p.parse::<i64>().expect("digits"))
        .fold(0, |acc, p| acc * 60 + p)
}

fn text(browser: &Browser, css: &str) -> String {
    let script =
        format!("const e = document.querySelector('{css}'); return e ? e.textContent : '';");
    browser
        .eval(&script)
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn browser() -> Option<Browser> {
    let (chromium, driver) = browser_paths()?;
    Some(Browser::start(&chromium, &driver))
}

/// Issues a token of `role` with its `scope` (`--tournament PREFIX`, or `--game ID --side
/// both`) on the store in `dir` (before the server starts): access control is then on.
fn issue_token(dir: &Path, id: &str, role: &str, scope: &[&str]) -> String {
    let issued = std::process::Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["token", "issue", "--id", id, "--role", role])
        .args(scope)
        .arg("--data")
        .arg(dir.join("data"))
        .output()
        .expect("token issue");
    assert!(issued.status.success(), "{issued:?}");
    String::from_utf8_lossy(&issued.stdout)
        .split_whitespace()
        .last()
        .expect("the token")
        .to_string()
}

fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    let value = format!("Bearer {token}").parse().expect("metadata");
    request.metadata_mut().insert("authorization", value);
    request
}

async fn create_tagged(
    c: &mut RefereeClient<Channel>,
    variant: &str,
    id: &str,
    players: [&str; 2],
) {
    let tag = |name: &str, value: &str| proto::Tag {
        name: name.into(),
        value: value.into(),
    };
    let [first, second] = if variant == "xiangqi" {
        ["Red", "Black"]
    } else {
        ["White", "Black"]
    };
    c.create_game(proto::CreateGameRequest {
        header: Some(proto::GameHeader {
            variant: variant.into(),
            id: id.into(),
            tags: vec![tag(first, players[0]), tag(second, players[1])],
            ..Default::default()
        }),
    })
    .await
    .expect("create");
}

#[test]
fn desk_clocks_tick_in_the_board_view_with_the_halls_figures() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_clocks_tick_in_the_board_view", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let rt = runtime();
    let mut c = rt.block_on(async {
        let mut c = client(&server).await;
        let header = proto::GameHeader {
            variant: "xiangqi".into(),
            id: "clock-1".into(),
            clock: Some(proto::ClockControl {
                initial_ms: Some(5_400_000),
                ..Default::default()
            }),
            ..Default::default()
        };
        c.create_game(proto::CreateGameRequest {
            header: Some(header),
        })
        .await
        .expect("create");
        let events = vec![
            movement("red", "h2", "e2"),
            clock_press("red", 5_399_000, 5_400_000),
        ];
        append(&mut c, "clock-1", 0, events).await;
        c
    });
    browser.open(&format!("http://{console}/#/game/clock-1"));
    let running = "const b = document.querySelector('.clock.running'); return b && b.dataset.side;";
    let side = browser.wait_for("black's clock running", running, Duration::from_secs(10));
    assert_eq!(side, "black");
    let black = "#game .clock[data-side=\"black\"]";
    let red = "#game .clock[data-side=\"red\"]";
    let first = seconds(&text(&browser, black));
    let red_before = seconds(&text(&browser, red));
    assert!(
        text(&browser, black).starts_with('▶'),
        "the running side marked"
    );
    std::thread::sleep(Duration::from_millis(2300));
    let later = seconds(&text(&browser, black));
    assert!(
        (1..=4).contains(&(first - later)),
        "black's clock went {first} -> {later} in 2.3 s"
    );
    assert_eq!(
        seconds(&text(&browser, red)),
        red_before,
        "red's clock stands"
    );
    // An event that is no press (a draw offer) does not set the running clock back.
    rt.block_on(append(&mut c, "clock-1", 2, vec![draw_offer("black")]));
    browser.wait_for(
        "the draw offer in the board view",
        "return document.querySelectorAll('#events li').length === 3",
        Duration::from_secs(5),
    );
    let after_offer = seconds(&text(&browser, black));
    assert!(
        after_offer <= later,
        "{later} -> {after_offer} after the offer"
    );
    // To the millisecond on request.
    browser.click("#clock-ms");
    let precise = text(&browser, black);
    assert!(
        precise
            .rsplit('.')
            .next()
            .is_some_and(|ms| ms.len() == 3 && ms.chars().all(|c| c.is_ascii_digit())),
        "{precise}"
    );
    // The hall shows the same figure.
    let board_view = seconds(&text(&browser, black));
    browser.open(&format!("http://{console}/#/hall/clock-"));
    let hall = browser.wait_for(
        "the hall's clock",
        "const c = document.querySelector('.card .clock[data-side=\"black\"]'); return c && c.textContent;",
        Duration::from_secs(10),
    );
    let hall = seconds(hall.as_str().unwrap_or_default());
    assert!(
        (board_view - hall).abs() <= 2,
        "board view {board_view} s, hall {hall} s"
    );
}

#[test]
fn desk_public_view_needs_no_token_when_tokens_are_on() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_public_view_needs_no_token", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let token = issue_token(
        dir.path(),
        "board-1",
        "board",
        &["--game", "pub-1", "--side", "both"],
    );
    let arbiter = issue_token(dir.path(), "chief", "arbiter", &["--tournament", ""]);
    let flags = ["--console", "127.0.0.1:0", "--public-delay-s", "1"];
    let server = ServeProcess::start(dir.path(), &flags);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        let header = proto::GameHeader {
            variant: "xiangqi".into(),
            id: "pub-1".into(),
            ..Default::default()
        };
        let create = proto::CreateGameRequest {
            header: Some(header),
        };
        c.create_game(with_token(create, &arbiter))
            .await
            .expect("create");
        let append = proto::AppendEventsRequest {
            game: "pub-1".into(),
            expected_seq: 1,
            events: vec![proto::NewEvent {
                event_id: "pub-1-1".into(),
                event: Some(movement("red", "h2", "e2")),
            }],
        };
        c.append_events(with_token(append, &token))
            .await
            .expect("append");
    });
    // The arbiter's API still wants the token; the public one does not.
    let (status, _) = get_json(&console, "/api/games/pub-1", None);
    assert_eq!(status, 401);
    let (status, game) = get_json(&console, "/public/api/games/pub-1", None);
    assert_eq!(status, 200, "{game}");
    browser.open(&format!("http://{console}/public#/hall/pub-"));
    browser.wait_for(
        "the public hall with the move, once the delay has passed",
        "const c = document.querySelector('.card[data-game=\"pub-1\"]'); \
         return c && c.textContent.includes('炮二平五') \
           && document.querySelector('#status').textContent.startsWith('connected');",
        Duration::from_secs(10),
    );
    assert_eq!(
        browser
            .eval("return !document.querySelector('#token') && !document.querySelector('#sound');"),
        Value::Bool(true),
        "no token field and no arbiter controls on the public page"
    );
    browser.open(&format!("http://{console}/public#/game/pub-1"));
    browser.wait_for(
        "the public board view",
        "return document.querySelectorAll('#board .piece').length === 32 \
         && document.querySelector('#game-error').textContent === '' \
         && !document.querySelector('#rulings button');",
        Duration::from_secs(10),
    );
}

#[test]
fn desk_words_move_list_flip_and_whose_move_after_a_reload() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_words_move_list_flip", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "words-xq").await;
        let events = vec![
            movement("red", "h2", "e2"),
            clock_press("red", 5_399_000, 5_400_000),
            movement("black", "h9", "g7"),
            clock_press("black", 5_399_000, 5_398_000),
        ];
        append(&mut c, "words-xq", 0, events).await;
        create_game(&mut c, "chess_gjq", "words-gjq").await;
        let events = vec![movement("white", "e2", "e4"), reveal("white", "e4", "Q")];
        append(&mut c, "words-gjq", 0, events).await;
    });
    // A hall opened after the moves (a reload): the game's words, never raw fields.
    browser.open(&format!("http://{console}/#/hall/words-"));
    browser.wait_for(
        "the hall's cards in the game's words",
        "const c = document.querySelector('.card[data-game=\"words-xq\"]'); \
         return c && c.querySelector('.last').textContent.includes('马8进7') \
           && c.querySelector('.act').textContent === 'red to move';",
        Duration::from_secs(10),
    );
    let cards = browser.eval("return document.querySelector('#hall-grid').textContent;");
    let cards = cards.as_str().unwrap_or_default();
    assert!(
        !cards.contains("from h") && !cards.contains("ts_ms"),
        "raw fields on a card: {cards}"
    );
    browser.open(&format!("http://{console}/#/game/words-xq"));
    browser.wait_for(
        "the numbered two-column move list",
        "const row = document.querySelector('#moves tbody tr'); \
         return row && row.cells[0].textContent === '1.' \
           && row.cells[1].textContent.includes('炮二平五') \
           && row.cells[2].textContent.includes('马8进7');",
        Duration::from_secs(10),
    );
    let events = browser.eval(
        "return [...document.querySelectorAll('#events li')].map(l => l.textContent).join('\\n');",
    );
    let events = events.as_str().unwrap_or_default();
    assert!(events.contains("red pressed"), "{events}");
    assert!(!events.contains("ts_ms"), "{events}");
    assert_eq!(text(&browser, "#to-move"), "red to move");
    // Flip: the board turned round, red's clock on top.
    let cannon_y = "const p = document.querySelector('#board [data-square=\"e2\"] circle'); \
                    return p && Number(p.getAttribute('cy'));";
    let before = browser.eval(cannon_y).as_f64().expect("the cannon");
    browser.click("#flip");
    browser.wait_for(
        "the board flipped",
        "return !!document.querySelector('#board svg.flipped') \
         && document.querySelector('#clock-second').dataset.side === 'red';",
        Duration::from_secs(5),
    );
    let after = browser.eval(cannon_y).as_f64().expect("the cannon");
    assert!(
        after < before,
        "the cannon on e2 moved up: {before} -> {after}"
    );
    // A click on a move scrubs to it.
    browser.click("#moves tbody td[data-seq=\"1\"]");
    browser.wait_for(
        "the slider on the first move",
        "return document.querySelector('#seq').textContent.startsWith('seq 1 ') \
         && document.querySelector('#to-move').textContent === 'black to move';",
        Duration::from_secs(5),
    );
    // The game's PGN, fetched with the page's credentials and saved.
    browser.click("#downloads [data-download=\"pgn\"]");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(text(&browser, "#game-error"), "", "the PGN download failed");
    // Chess Gjq: the reveal belongs to its move in the list.
    browser.open(&format!("http://{console}/#/game/words-gjq"));
    let gjq = browser.wait_for(
        "the Gjq move with its reveal",
        // The page re-renders after the hash changes: until then the row is the last game's.
        "const row = document.querySelector('#moves tbody tr'); \
         const t = row && row.cells[1].textContent; return t && t.includes('e4') ? t : null;",
        Duration::from_secs(10),
    );
    let gjq = gjq.as_str().unwrap_or_default();
    assert!(gjq.contains("e4") && gjq.contains('后'), "{gjq}");
}

#[test]
fn desk_draughts_correction_is_drawn_as_a_correction() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_draughts_correction", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "draughts", "corr-1").await;
        // White moves twice in a row: irregular, black may demand correction (7.4).
        let events = vec![movement("white", "32", "28"), movement("white", "33", "29")];
        append(&mut c, "corr-1", 0, events).await;
    });
    browser.open(&format!("http://{console}/#/hall/corr-"));
    browser.wait_for(
        "the correction's colour and who must act",
        "const c = document.querySelector('.card[data-game=\"corr-1\"]'); \
         return c && c.classList.contains('alert-correction') && !c.classList.contains('alert-illegal') \
           && c.querySelector('.act').textContent.startsWith('black: demand correction');",
        Duration::from_secs(10),
    );
    browser.open(&format!("http://{console}/#/game/corr-1"));
    browser.wait_for(
        "the ruling drawn as a correction and the correction listed as open",
        "const r = document.querySelector('#rulings li.ruling'); const o = document.querySelector('#open'); \
         return r && r.classList.contains('alert-correction') && !o.hidden \
           && o.textContent.includes(\"awaits black's decision\");",
        Duration::from_secs(10),
    );
}

#[test]
fn desk_arbiters_word_is_confirmed_before_it_is_written() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_arbiters_word_is_confirmed", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_game(&mut c, "xiangqi", "word-1").await;
        // Black's horse b9 cannot reach b5: an illegal move.
        let events = vec![movement("red", "h2", "e2"), movement("black", "b9", "b5")];
        append(&mut c, "word-1", 0, events).await;
    });
    let stored = || {
        let (_, game) = get_json(&console, "/api/games/word-1", None);
        game["events"].as_array().map_or(0, Vec::len)
    };
    browser.open(&format!("http://{console}/#/game/word-1"));
    browser.wait_for(
        "the illegal move's ruling",
        "return !!document.querySelector('#rulings button[data-act=\"overturn\"]');",
        Duration::from_secs(10),
    );
    browser.click("#rulings button[data-act=\"overturn\"]");
    let said = browser.wait_for(
        "the overturn's confirmation",
        "const c = document.querySelector('#confirm'); return !c.hidden && c.textContent;",
        Duration::from_secs(5),
    );
    let said = said.as_str().unwrap_or_default();
    assert!(
        said.contains("Overturn ruling 2")
            && said.contains("illegal_move")
            && said.contains("event 3"),
        "{said}"
    );
    browser.click("#confirm-no");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(stored(), 2, "cancel wrote nothing");
    // The game is over (the illegal move lost it): a declaration is refused on the page,
    // saying what to do, and nothing is written.
    browser.click("#declare");
    let said = browser.wait_for(
        "the declaration refused",
        "const e = document.querySelector('#game-error').textContent; \
         return document.querySelector('#confirm').hidden && e;",
        Duration::from_secs(5),
    );
    assert!(
        said.as_str()
            .unwrap_or_default()
            .contains("overturn the ruling that ended it first"),
        "{said}"
    );
    // Escape closes a confirmation without writing.
    browser.click("#rulings button[data-act=\"uphold\"]");
    browser.wait_for(
        "the uphold's confirmation",
        "const c = document.querySelector('#confirm'); return !c.hidden && c.textContent.includes('Uphold ruling 2');",
        Duration::from_secs(5),
    );
    browser
        .eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'})); return 0;");
    assert_eq!(
        browser.eval("return document.querySelector('#confirm').hidden;"),
        Value::Bool(true)
    );
    assert_eq!(stored(), 2, "escape wrote nothing");
    // Confirmed, it is written.
    browser.click("#warn");
    browser.click("#confirm-yes");
    browser.wait_for(
        "the warning in the log",
        "return [...document.querySelectorAll('#events li')].some(l => l.textContent.includes('warn'));",
        Duration::from_secs(5),
    );
    assert_eq!(stored(), 3);
    // An overturn naming a ruling that does not exist, sent as the page sends a word: the
    // service refuses it, the page says why, nothing is written.
    browser.eval(
        "arbiter({type: 'arbiter', side: 'arbiter', decision: 'overturn', ruling: 99, text: 'x'}); return 0;",
    );
    let refused = browser.wait_for(
        "the refusal of an overturn of ruling 99",
        "const e = document.querySelector('#game-error').textContent; \
         return e.includes('no ruling in force at 99') && e;",
        Duration::from_secs(5),
    );
    eprintln!("desk: {refused}");
    assert_eq!(stored(), 3, "the refused overturn wrote nothing");
    // Looking at a ruling's evidence keeps the ruling in view, even where the slider is
    // before it.
    browser.click("#rulings li.ruling[data-at=\"2\"] [data-jump]");
    browser.wait_for(
        "the ruling kept in view while its evidence is shown",
        "return !document.querySelector('#seq').textContent.startsWith('seq 3 ') \
         && !!document.querySelector('#rulings li.ruling[data-at=\"2\"]');",
        Duration::from_secs(5),
    );
}

#[test]
fn desk_hall_status_search_filter_and_sound() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_hall_status_search_filter_and_sound", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let token = issue_token(dir.path(), "chief", "arbiter", &["--tournament", ""]);
    let board = issue_token(
        dir.path(),
        "board-1",
        "board",
        &["--game", "find-1", "--side", "both"],
    );
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    let rt = runtime();
    let mut c = rt.block_on(client(&server));
    let create = |c: &mut RefereeClient<Channel>, variant: &str, id: &str, players: [&str; 2]| {
        let tag = |name: &str, value: &str| proto::Tag {
            name: name.into(),
            value: value.into(),
        };
        let header = proto::GameHeader {
            variant: variant.into(),
            id: id.into(),
            tags: vec![tag("White", players[0]), tag("Black", players[1])],
            ..Default::default()
        };
        let request = with_token(
            proto::CreateGameRequest {
                header: Some(header),
            },
            &token,
        );
        rt.block_on(c.create_game(request)).expect("create");
    };
    create(&mut c, "draughts", "find-1", ["Baljakin", "Georgiev"]);
    create(&mut c, "draughts", "find-2", ["Schwarzman", "Sijbrands"]);
    create(&mut c, "chess_gjq", "find-3", ["Li", "Wang"]);
    // The hall opened before signing in: refused; after signing in the status follows.
    browser.open(&format!("http://{console}/#/hall/find-"));
    browser.wait_for(
        "the refusal said",
        "return document.querySelector('#status').textContent.startsWith('reconnecting');",
        Duration::from_secs(10),
    );
    browser.eval(&format!(
        "document.querySelector('#token').value = '{token}'; \
         document.querySelector('#login button').click(); return 0;"
    ));
    browser.wait_for(
        "connected, three boards",
        "const s = document.querySelector('#status').textContent; \
         return s.startsWith('connected · 3 boards') && document.querySelectorAll('#hall-grid .card').length === 3;",
        Duration::from_secs(10),
    );
    std::thread::sleep(Duration::from_millis(2500));
    let status = text(&browser, "#status");
    assert!(status.starts_with("connected · 3 boards"), "{status}");
    // Search by player.
    browser.eval(
        "const f = document.querySelector('#filter'); f.value = 'sijbrands'; \
         f.dispatchEvent(new Event('input')); return 0;",
    );
    let shown = "return [...document.querySelectorAll('#hall-grid .card')].filter(c => !c.hidden).map(c => c.dataset.game).join(',');";
    assert_eq!(browser.eval(shown), "find-2");
    assert_eq!(text(&browser, "#hall-count"), "1 of 3 boards shown");
    browser.eval(
        "const f = document.querySelector('#filter'); f.value = ''; \
         f.dispatchEvent(new Event('input')); return 0;",
    );
    // Sound on; an irregular move turns a board to an alert: one tone, and the filter of
    // alerts shows that board alone.
    browser.click("#sound");
    let start = Instant::now();
    let append = proto::AppendEventsRequest {
        game: "find-1".into(),
        expected_seq: 1,
        events: ["32-28", "33-29"]
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let (from, to) = m.split_once('-').expect("move");
                proto::NewEvent {
                    event_id: format!("find-1-{i}"),
                    event: Some(movement("white", from, to)),
                }
            })
            .collect(),
    };
    rt.block_on(c.append_events(with_token(append, &board)))
        .expect("append");
    browser.wait_for(
        "the alert's tone",
        "return state.beeps === 1;",
        Duration::from_secs(5),
    );
    eprintln!("desk: alert to tone in {:?}", start.elapsed());
    browser.eval(
        "const s = document.querySelector('#filter-alert'); s.value = 'alerts'; \
         s.dispatchEvent(new Event('change')); return 0;",
    );
    assert_eq!(browser.eval(shown), "find-1");
    let status = text(&browser, "#status");
    assert!(status.contains("last event"), "{status}");
}

#[test]
fn desk_fits_a_phone_and_screenshots_for_the_readme() {
    let Some(browser) = browser() else {
        skip_or_fail("desk_fits_a_phone", CHROMIUM_MISSING);
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = ServeProcess::start(dir.path(), &["--console", "127.0.0.1:0"]);
    let console = server.console.clone().expect("console address");
    runtime().block_on(async {
        let mut c = client(&server).await;
        create_tagged(
            &mut c,
            "xiangqi",
            "round-1-b1",
            ["Wang Tianyi", "Zheng Weitong"],
        )
        .await;
        let events = vec![
            movement("red", "h2", "e2"),
            clock_press("red", 5_395_000, 5_400_000),
            movement("black", "h9", "g7"),
            clock_press("black", 5_395_000, 5_391_000),
            movement("red", "h0", "g2"),
            clock_press("red", 5_380_000, 5_391_000),
        ];
        append(&mut c, "round-1-b1", 0, events).await;
        create_tagged(&mut c, "chess_gjq", "round-1-b2", ["Li Chao", "Wei Yi"]).await;
        let events = vec![
            movement("white", "e2", "e4"),
            reveal("white", "e4", "P"),
            movement("black", "d7", "d5"),
            reveal("black", "d5", "N"),
        ];
        append(&mut c, "round-1-b2", 0, events).await;
        create_tagged(&mut c, "draughts", "round-1-b3", ["Schwarzman", "Georgiev"]).await;
        let events = vec![
            movement("white", "32", "28"),
            movement("black", "19", "23"),
            movement("white", "28", "19"),
        ];
        append(&mut c, "round-1-b3", 0, events).await;
        create_tagged(&mut c, "renju", "round-1-b4", ["Kim", "Tanaka"]).await;
        let stones = crate::common::RENJU_DOUBLE_THREE.iter();
        let events = stones.map(|(s, to)| movement(s, "", to)).collect();
        append(&mut c, "round-1-b4", 0, events).await;
    });
    let out = repo_path("docs/screenshots");
    std::fs::create_dir_all(&out).expect("screenshot dir");
    browser.open(&format!("http://{console}/#/hall/round-1-"));
    browser.wait_for(
        "four boards",
        "return document.querySelectorAll('#hall-grid .card svg').length === 4;",
        Duration::from_secs(10),
    );
    browser.screenshot(&out.join("hall.png"));
    for (n, variant) in ["xiangqi", "chess_gjq", "draughts", "renju"]
        .iter()
        .enumerate()
    {
        browser.open(&format!("http://{console}/#/game/round-1-b{}", n + 1));
        browser.wait_for(
            "the board view",
            "return document.querySelectorAll('#board svg .piece').length > 0 \
             && document.querySelectorAll('#moves tbody tr').length > 0;",
            Duration::from_secs(10),
        );
        browser.screenshot(&out.join(format!("board-{variant}.png")));
    }
    // A phone: no sideways scrolling, in the hall and in every board view.
    browser.resize(390, 844);
    let fits = "return window.innerWidth <= 420 \
                && document.documentElement.scrollWidth <= window.innerWidth;";
    browser.open(&format!("http://{console}/#/hall/round-1-"));
    browser.wait_for(
        "the hall on a phone",
        "return document.querySelectorAll('#hall-grid .card svg').length === 4;",
        Duration::from_secs(10),
    );
    assert_eq!(
        browser.eval(fits),
        Value::Bool(true),
        "the hall scrolls sideways at 390 px"
    );
    for n in 1..=4 {
        browser.open(&format!("http://{console}/#/game/round-1-b{n}"));
        browser.wait_for(
            "the board view on a phone",
            "return document.querySelectorAll('#board svg .piece').length > 0;",
            Duration::from_secs(10),
        );
        let width = browser
            .eval("return document.documentElement.scrollWidth + ' of ' + window.innerWidth;");
        assert_eq!(
            browser.eval(fits),
            Value::Bool(true),
            "board {n} at 390 px: {width}"
        );
    }
    browser.screenshot(&out.join("phone-board.png"));
    browser.screenshot(&shots().join("phone-board.png"));
}
