//! DGT LiveChess's local API as a feed: JSON messages over a websocket
//! (`ws://localhost:1982/api/v1.0`). The bridge asks for the e-boards LiveChess knows
//! (`eboards`), picks one, and subscribes to its `eboardevent` feed, whose updates carry the
//! board's placement (the board part of a FEN) and its clock.
//!
//! The messages, as DGT's API documentation (served by LiveChess 2 itself) gives them and
//! the clients written from it repeat (the `EBoardResponse`, `EBoardEventResponse` and
//! `ClockResponse` interfaces quoted in herohde/livechess-go, pkg/livechess/eboard.go and
//! events.go; the same fields in luno1977's Java client, model/EBoardResponse.java):
//! - call: `{"id":1,"call":"eboards","param":null}`, answered by
//!   `{"response":"call","id":1,"param":[{"serialnr":"...","source":"...","state":"ACTIVE",
//!   "board":"rnbqkbnr/...","flipped":false,"clock":{...}}],"time":...}`;
//! - call: `{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,
//!   "param":{"serialnr":"..."}}}`, answered by `{"response":"call","id":2,"param":null}`;
//! - updates: `{"response":"feed","id":1,"param":{"serialnr":"...","flipped":false,
//!   "board":"...","clock":{"white":5400,"black":5395,"run":true,"time":...},"start":"...",
//!   "san":[...],"match":true}}`, `board` and `clock` each omitted when unchanged;
//! - a failed call: `{"response":"error","id":N,"param":{"message":"..."}}`.
//!
//! A clock's `white`/`black` are seconds; `run` is `true` while white's clock runs, `false`
//! while black's does, `null` when it is stopped. A press is read where `run` turns from one
//! side to the other: the side whose clock ran pressed. Where the documentation leaves a shape
//! open, both are read: `eboards` answered by a list or by an object holding `eboards`, a
//! number of seconds whole or with a fraction. LiveChess's own move reconstruction (`san`,
//! `match`) is not used: the referee derives moves from the placements itself.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::games::Variant;

use super::feed::{FeedItem, Source};
use super::game::GameInfo;
use super::lines::clock_words;
use super::reading::Reading;
use super::report::{self, Report};

/// How long LiveChess gets to answer a call.
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// The call ids the bridge uses, and the id it gives its feed subscription.
const EBOARDS_CALL: u64 = 1;
const SUBSCRIBE_CALL: u64 = 2;
const FEED_ID: u64 = 1;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A board LiveChess reports, subscribed to.
pub struct Board {
    socket: Socket,
    serial: String,
    /// Its placement when it was listed: the first report.
    listed: Option<String>,
    /// Milliseconds since 1970 when the bridge opened it, part of every event id.
    session: u64,
}

/// Connects to LiveChess at `url`, picks the board (`serial`, or the only one), and
/// subscribes to its updates. Errors are sentences for the operator.
pub async fn open(url: &str, serial: Option<&str>, game: &GameInfo) -> Result<Board, String> {
    if game.variant != Variant::ChessGjq {
        return Err(format!(
            "LiveChess reads 8x8 chess boards; this game is {}",
            game.variant.name()
        ));
    }
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(|e| format!("cannot reach DGT LiveChess at {url} (is it running?): {e}"))?;
    let list = json!({"id": EBOARDS_CALL, "call": "eboards", "param": null});
    send(&mut socket, &list).await?;
    let boards = answer(&mut socket, EBOARDS_CALL).await?;
    let chosen = choose(&boards, serial)?;
    let serial = text_field(chosen, "serialnr").unwrap_or_default();
    let subscribe = json!({
        "id": SUBSCRIBE_CALL,
        "call": "subscribe",
        "param": {"feed": "eboardevent", "id": FEED_ID, "param": {"serialnr": serial}},
    });
    send(&mut socket, &subscribe).await?;
    eprintln!("livechess: reading e-board {serial} at {url}");
    Ok(Board {
        socket,
        listed: text_field(chosen, "board"),
        serial,
        session: unix_ms(),
    })
}

async fn send(socket: &mut Socket, message: &Value) -> Result<(), String> {
    socket
        .send(Message::text(message.to_string()))
        .await
        .map_err(|e| format!("LiveChess closed the connection: {e}"))
}

/// The `param` of the answer to call `id`, skipping anything else that comes first.
async fn answer(socket: &mut Socket, id: u64) -> Result<Value, String> {
    let read = async {
        while let Some(message) = socket.next().await {
            let message = message.map_err(|e| format!("LiveChess closed the connection: {e}"))?;
            let Some(value) = json_of(&message) else {
                continue;
            };
            if value.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            match value.get("response").and_then(Value::as_str) {
                Some("call") => return Ok(value.get("param").cloned().unwrap_or(Value::Null)),
                Some("error") => return Err(format!("LiveChess answered: {}", error_text(&value))),
                _ => {}
            }
        }
        Err("LiveChess closed the connection".into())
    };
    tokio::time::timeout(ANSWER_WAIT, read)
        .await
        .map_err(|_| "LiveChess did not answer within 10 s".to_string())?
}

/// The board to read: the one named, or the only one; an error lists what there is.
fn choose<'a>(boards: &'a Value, serial: Option<&str>) -> Result<&'a Value, String> {
    let list = match boards {
        Value::Array(list) => list.as_slice(),
        Value::Object(object) => object
            .get("eboards")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice),
        _ => &[],
    };
    let named = |b: &&Value| text_field(b, "serialnr");
    let listing = || {
        let names: Vec<String> = list
            .iter()
            .map(|b| {
                let state = text_field(b, "state").unwrap_or_else(|| "not activated".into());
                format!("{} ({state})", named(&b).unwrap_or_default())
            })
            .collect();
        names.join(", ")
    };
    match (serial, list) {
        (_, []) => Err("LiveChess lists no e-board".into()),
        (Some(serial), _) => list
            .iter()
            .find(|b| named(b).as_deref() == Some(serial))
            .ok_or_else(|| {
                format!(
                    "LiveChess lists no e-board {serial}; it lists {}",
                    listing()
                )
            }),
        (None, [only]) => Ok(only),
        (None, _) => Err(format!(
            "LiveChess lists several e-boards: {}; pick one with livechess[:URL]#SERIAL",
            listing()
        )),
    }
}

impl Board {
    /// Reads the board's updates into reports on `out` until LiveChess goes away.
    pub async fn read(mut self, source: Source, mut reading: Reading, out: mpsc::Sender<FeedItem>) {
        let mut updates = Updates {
            serial: self.serial.clone(),
            session: self.session,
            count: 0,
            running: None,
            source,
        };
        if let Some(board) = self.listed.take() {
            let reports = updates.board(&board, &mut reading);
            if !deliver(&out, reports).await {
                return;
            }
        }
        let end = loop {
            let message = match self.socket.next().await {
                Some(Ok(message)) => message,
                Some(Err(e)) => break updates.source.lost(e.to_string()),
                None => break updates.source.lost("it closed the connection".into()),
            };
            if let Message::Close(_) = message {
                break updates.source.lost("it closed the connection".into());
            }
            let Some(value) = json_of(&message) else {
                continue;
            };
            let reports = updates.message(&value, &mut reading);
            if !deliver(&out, reports).await {
                return;
            }
        };
        let _ = out.send(FeedItem::End(end)).await;
    }
}

/// Sends reports on; false once nobody listens.
async fn deliver(out: &mpsc::Sender<FeedItem>, reports: Vec<Report>) -> bool {
    for report in reports {
        if out.send(FeedItem::Report(report)).await.is_err() {
            return false;
        }
    }
    true
}

/// The state of a subscription: which board, how many reports so far, whose clock runs.
struct Updates {
    serial: String,
    session: u64,
    count: u64,
    /// `run` of the last clock seen: `Some(true)` white's clock running.
    running: Option<bool>,
    source: Source,
}

impl Updates {
    /// The reports one message gives: a feed update of our board gives its placement (if it
    /// changed) and then its clock press (if `run` turned), in that order: the placement is
    /// what the board showed at the press.
    fn message(&mut self, value: &Value, reading: &mut Reading) -> Vec<Report> {
        match value.get("response").and_then(Value::as_str) {
            Some("error") => {
                eprintln!("livechess: {}", error_text(value));
                return Vec::new();
            }
            Some("feed") => {}
            _ => return Vec::new(),
        }
        let Some(param) = value.get("param").filter(|p| p.is_object()) else {
            return Vec::new();
        };
        if text_field(param, "serialnr").is_some_and(|s| s != self.serial) {
            return Vec::new();
        }
        let mut reports = match text_field(param, "board") {
            Some(board) => self.board(&board, reading),
            None => Vec::new(),
        };
        if let Some(clock) = param.get("clock").filter(|c| c.is_object()) {
            let press = self.clock(clock);
            if let Some(ts) = press.as_ref().and_then(|r| r.event.ts_ms) {
                reading.pressed(ts);
            }
            reports.extend(press);
        }
        reports
    }

    fn board(&mut self, board: &str, reading: &mut Reading) -> Vec<Report> {
        let now = self.source.time.now_ms();
        match reading.whole(board, now) {
            Ok(Some(change)) => {
                let event = report::board_event(change.placement, Some(self.serial.clone()), now);
                vec![self.report(event, change.what)]
            }
            Ok(None) => Vec::new(),
            Err(why) => {
                eprintln!("livechess: board {board:?}: {why}; skipped");
                Vec::new()
            }
        }
    }

    fn clock(&mut self, clock: &Value) -> Option<Report> {
        let run = clock.get("run").and_then(Value::as_bool);
        let before = std::mem::replace(&mut self.running, run);
        let pressed = match (before, run) {
            (Some(was), Some(now)) if was != now => was,
            _ => return None,
        };
        let sides = self.source.sides;
        let side = if pressed { sides[0] } else { sides[1] };
        let times = [millis(clock.get("white")), millis(clock.get("black"))];
        let event = report::clock_event(side, times, self.source.time.now_ms());
        Some(self.report(event, clock_words(side, sides, times)))
    }

    /// Event ids are `SERIAL-SESSION-N`: LiveChess is a live feed that is never read twice,
    /// so a restarted bridge reads new reports, and the session (when this bridge opened the
    /// board) keeps their ids apart from the last run's; a report sent again after the
    /// server was away keeps the id it got here.
    fn report(&mut self, event: crate::service::proto::Event, what: String) -> Report {
        self.count += 1;
        Report {
            event_id: format!(
                "{}-{}-{}",
                report::id_part(&self.serial),
                self.session,
                self.count
            ),
            event,
            what,
            origin: format!("livechess update {}", self.count),
        }
    }
}

/// A clock's seconds as milliseconds.
fn millis(seconds: Option<&Value>) -> Option<u64> {
    let seconds = seconds?;
    if let Some(whole) = seconds.as_u64() {
        return whole.checked_mul(1000);
    }
    let duration = Duration::try_from_secs_f64(seconds.as_f64()?).ok()?;
    u64::try_from(duration.as_millis()).ok()
}

fn json_of(message: &Message) -> Option<Value> {
    match message {
        Message::Text(text) => serde_json::from_str(text.as_str()).ok(),
        _ => None,
    }
}

/// A text field; a number is read as its digits (a serial number sent as a number).
fn text_field(value: &Value, key: &str) -> Option<String> {
    match value.get(key)? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn error_text(value: &Value) -> String {
    value
        .get("param")
        .and_then(|p| p.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("an error without a message")
        .to_string()
}

fn unix_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
