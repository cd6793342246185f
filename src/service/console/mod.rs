//! The arbiter console, served over plain HTTP by `referee serve --console ADDR`: the page and
//! its scripts (embedded in the binary: no install, no build step, works offline in a hall),
//! a JSON API, and one Server-Sent Events stream per console that carries every board of an
//! event. The same access control as gRPC: the request's `Authorization: Bearer` token is
//! checked by the service's own [`Caller`], and the arbiter's word is appended through the
//! service's own append path, so every console and watcher sees it at once.
//!
//! Routes: `/` the console, `/public` the spectators' view (only with a delay set);
//! `GET /api/games?prefix=&after=&limit=`, `GET /api/games/{id}`, `GET /api/live?prefix=|game=`
//! (SSE: `snapshot`, then `update` per stored event), `POST /api/games/{id}/arbiter` (one
//! log-format `arbiter` event, a `set` with its moves included; an `uphold` or `overturn` of
//! no ruling in force, or a `declare` once the game is over, is refused like any bad field),
//! `GET /api/games/{id}/download/{log|pdn|audit}` (the game's files, see `download`); the
//! same reads under `/public/api/` for spectators (no audit bundle there). A game an
//! electronic board reports to carries, in each frame, its last report against the game's
//! position (`board`), and in its board view the raw reports (`reports`).

mod download;
mod view;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::broadcast;
use tonic::Request;

use crate::event::{EventKind, Side, event_from_json};
use crate::log::Log;
use crate::stored::load_log;

use super::caller::Caller;
use super::live::HallForms;
use super::metered::{Metered, metered};
use super::outbox::NotPut;
use super::{Error, Service, closed, proto};

const INDEX: &str = include_str!("assets/index.html");
const APP: &str = include_str!("assets/app.js");
const BOARDS: &str = include_str!("assets/boards.js");
const STYLE: &str = include_str!("assets/console.css");

/// Boards one hall stream may carry; an event prefix of a championship is a few hundred.
const MAX_BOARDS: usize = 1000;
/// Games one page of `GET /api/games` lists by default, and at most.
const PAGE: u32 = 200;

/// How the console is served.
#[derive(Clone, Copy, Debug)]
pub struct ConsoleConfig {
    /// The spectators' delay; `None`: no public view.
    pub public_delay: Option<Duration>,
    /// A board whose clock runs with no event for this long is shown as silent.
    pub silent: Duration,
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        ConsoleConfig {
            public_delay: None,
            silent: Duration::from_secs(60),
        }
    }
}

struct Console<L: Log> {
    service: Service<L>,
    config: ConsoleConfig,
}

type Shared<L> = State<Arc<Console<L>>>;

/// Serves the console on `listener` until the service shuts down.
pub async fn serve_console<L: Log>(
    listener: TcpListener,
    service: Service<L>,
    config: ConsoleConfig,
) -> std::io::Result<()> {
    let mut closing = service.closing.subscribe();
    let console = Arc::new(Console { service, config });
    let app = Router::new()
        .route("/", get(page::<L>))
        .route("/public", get(public_page::<L>))
        .route("/app.js", get(|| async { asset(APP, "text/javascript") }))
        .route(
            "/boards.js",
            get(|| async { asset(BOARDS, "text/javascript") }),
        )
        .route("/console.css", get(|| async { asset(STYLE, "text/css") }))
        .route("/api/variants", get(variants))
        .route("/public/api/variants", get(variants))
        .route("/api/games", get(list::<L>))
        .route("/api/games/{id}", get(game::<L>))
        .route("/api/games/{id}/arbiter", post(arbiter::<L>))
        .route("/api/games/{id}/download/{file}", get(download::<L>))
        .route("/api/live", get(live::<L>))
        .route("/public/api/games", get(public_list::<L>))
        .route("/public/api/games/{id}", get(public_game::<L>))
        .route(
            "/public/api/games/{id}/download/{file}",
            get(public_download::<L>),
        )
        .route("/public/api/live", get(public_live::<L>))
        .with_state(console);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { closed(&mut closing).await })
        .await
}

/// The games' specs, which the console reads instead of keeping its own lists: static facts
/// about the rules, open to anyone like the page itself.
async fn variants() -> Response {
    json_response(&crate::event::describe_games())
}

fn asset(text: &'static str, mime: &'static str) -> Response {
    ([(header::CONTENT_TYPE, mime)], text).into_response()
}

fn html<L: Log>(console: &Console<L>, public: bool) -> Response {
    let page = INDEX
        .replace("__PUBLIC__", if public { "true" } else { "false" })
        .replace("__SILENT_S__", &console.config.silent.as_secs().to_string());
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

async fn page<L: Log>(State(console): Shared<L>) -> Response {
    html(&console, false)
}

async fn public_page<L: Log>(State(console): Shared<L>) -> Response {
    match console.config.public_delay {
        Some(_) => html(&console, true),
        None => no_public_view(),
    }
}

fn no_public_view() -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "the public view is off (serve --public-delay-s N turns it on)",
    )
}

// ---- answers ----

fn json_response(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        json!({ "error": message }).to_string(),
    )
        .into_response()
}

/// The service's error as HTTP: the status its gRPC code means, and the same message.
fn failed(error: Error) -> Response {
    // A full disk is the server's storage, not the caller's rate (429).
    let no_space = matches!(error, Error::Log(crate::log::Error::NoSpace(_)));
    let status = tonic::Status::from(error);
    let http = match status.code() {
        tonic::Code::InvalidArgument | tonic::Code::OutOfRange => StatusCode::BAD_REQUEST,
        tonic::Code::NotFound => StatusCode::NOT_FOUND,
        tonic::Code::AlreadyExists | tonic::Code::FailedPrecondition | tonic::Code::Aborted => {
            StatusCode::CONFLICT
        }
        tonic::Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        tonic::Code::PermissionDenied => StatusCode::FORBIDDEN,
        tonic::Code::ResourceExhausted if no_space => StatusCode::INSUFFICIENT_STORAGE,
        tonic::Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        tonic::Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut response = refuse(http, status.message());
    // The same retry delay gRPC clients are given, as HTTP says it (whole seconds).
    if let Some(ms) = status
        .metadata()
        .get(super::error::RETRY_PUSHBACK_MS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, ms.div_ceil(1000).into());
    }
    response
}

// ---- who asks ----

impl<L: Log> Console<L> {
    /// The caller of an HTTP request, by the same token check as a gRPC call's.
    fn caller(&self, headers: &HeaderMap) -> Result<Caller, Error> {
        let mut request = Request::new(());
        if let Some(Ok(value)) = headers
            .get(header::AUTHORIZATION)
            .map(|v| tonic::metadata::MetadataValue::try_from(v.as_bytes()))
        {
            request.metadata_mut().insert("authorization", value);
        }
        self.service.caller(&request)
    }

    /// The log's last seq a spectator may see: events stored before now minus the delay.
    fn public_horizon(&self, records: &[crate::log::Record]) -> u64 {
        let delay = self.config.public_delay.unwrap_or_default();
        let cutoff = now_ms().saturating_sub(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX));
        records
            .iter()
            .take_while(|r| r.received_ms <= cutoff)
            .last()
            .map_or(0, |r| r.seq)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `prefix=..&game=..` as pairs, percent-decoded.
fn query(raw: Option<&str>) -> Vec<(String, String)> {
    raw.unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let spaced = text.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

fn param(pairs: &[(String, String)], key: &str) -> Option<String> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

// ---- the game list ----

async fn list<L: Log>(State(c): Shared<L>, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    match c.caller(&headers) {
        Ok(caller) => games_page(&c, &caller, &query(q.as_deref())).await,
        Err(e) => failed(e),
    }
}

async fn public_list<L: Log>(State(c): Shared<L>, RawQuery(q): RawQuery) -> Response {
    if c.config.public_delay.is_none() {
        return no_public_view();
    }
    games_page(&c, &Caller::spectator(), &query(q.as_deref())).await
}

/// The games whose id starts with `prefix`, in id order, `limit` after the id `after`.
async fn games_page<L: Log>(c: &Console<L>, caller: &Caller, q: &[(String, String)]) -> Response {
    let limit = match param(q, "limit").map(|l| l.parse::<u32>()) {
        None => PAGE,
        Some(Ok(n)) if (1..=PAGE).contains(&n) => n,
        Some(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("limit: a number from 1 to {PAGE}"),
            );
        }
    };
    let page = proto::ListGamesRequest {
        prefix: param(q, "prefix").unwrap_or_default(),
        after: param(q, "after").unwrap_or_default(),
        limit,
    };
    let listed = match c.service.list(caller, &page).await {
        Ok(listed) => listed,
        Err(e) => return failed(e),
    };
    let games: Vec<Value> = listed
        .games
        .iter()
        .map(|g| {
            json!({"id": g.game, "variant": g.variant, "last_seq": g.last_seq,
                   "result": g.result, "damage": g.damage})
        })
        .collect();
    json_response(&json!({ "games": games, "next": listed.next }))
}

// ---- one game ----

async fn game<L: Log>(State(c): Shared<L>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let caller = match c.caller(&headers) {
        Ok(caller) => caller,
        Err(e) => return failed(e),
    };
    if let Err(e) = caller.may_read(&id) {
        return failed(e);
    }
    game_view(&c, &id, false).await
}

async fn public_game<L: Log>(State(c): Shared<L>, Path(id): Path<String>) -> Response {
    if c.config.public_delay.is_none() {
        return no_public_view();
    }
    game_view(&c, &id, true).await
}

async fn game_view<L: Log>(c: &Console<L>, id: &str, public: bool) -> Response {
    let loaded = match load_log(&c.service.log, id, None).await {
        Ok(loaded) => loaded,
        Err(e) => return failed(e.into()),
    };
    let up_to = public.then(|| {
        let records: Vec<crate::log::Record> =
            loaded.events.iter().map(|(r, _)| r.clone()).collect();
        c.public_horizon(&records)
    });
    match view::game(&loaded, up_to) {
        Ok(value) => json_response(&value),
        Err(e) => failed(e.into()),
    }
}

// ---- a game's files ----

async fn download<L: Log>(
    State(c): Shared<L>,
    headers: HeaderMap,
    Path((id, file)): Path<(String, String)>,
) -> Response {
    let caller = c.caller(&headers);
    match caller.and_then(|caller| caller.may_read(&id).map(|()| caller)) {
        Ok(caller) => download::file(&c, &caller, &id, &file, false).await,
        Err(e) => failed(e),
    }
}

async fn public_download<L: Log>(
    State(c): Shared<L>,
    Path((id, file)): Path<(String, String)>,
) -> Response {
    if c.config.public_delay.is_none() {
        return no_public_view();
    }
    download::file(&c, &Caller::spectator(), &id, &file, true).await
}

// ---- the arbiter's word ----

async fn arbiter<L: Log>(
    State(c): Shared<L>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: String,
) -> Response {
    let caller = match c.caller(&headers) {
        Ok(caller) => caller,
        Err(e) => return failed(e),
    };
    match arbiter_event(&c, &id, &body, &caller).await {
        Ok(value) => json_response(&value),
        Err(e) => failed(e),
    }
}

/// Appends one `arbiter` event, checked by the log reader's own rules, through the service's
/// append (which checks the word against the game, naming the field under `body`): durable
/// before the answer, refereed by the live fold, seen by every console.
async fn arbiter_event<L: Log>(
    c: &Console<L>,
    game: &str,
    body: &str,
    caller: &Caller,
) -> Result<Value, Error> {
    let (variant, last_seq) = {
        let guard = c.service.live.lock(game).await?;
        let referee = &guard.fold().referee;
        (referee.header().variant, referee.last_seq())
    };
    let event = event_from_json(body, variant, None).map_err(|e| Error::invalid("body", e))?;
    if !matches!(event.kind, EventKind::Arbiter { .. }) || event.side != Side::Arbiter {
        return Err(Error::invalid(
            "body",
            "the console writes only arbiter events (\"type\":\"arbiter\",\"side\":\"arbiter\")",
        ));
    }
    let event_id = format!("console-{}-{}", now_ms(), last_seq + 1);
    let appended = c
        .service
        .append_parsed(
            game,
            last_seq + 1,
            &[(event_id, event)],
            |_| "body".into(),
            caller,
        )
        .await?;
    Ok(json!({ "seqs": appended.seqs, "result": appended.result }))
}

// ---- live: one stream for a hall or a board ----

async fn live<L: Log>(State(c): Shared<L>, headers: HeaderMap, RawQuery(q): RawQuery) -> Response {
    match c.caller(&headers) {
        Ok(caller) => hall_stream(c, caller, &query(q.as_deref()), None),
        Err(e) => failed(e),
    }
}

async fn public_live<L: Log>(State(c): Shared<L>, RawQuery(q): RawQuery) -> Response {
    let Some(delay) = c.config.public_delay else {
        return no_public_view();
    };
    hall_stream(c, Caller::spectator(), &query(q.as_deref()), Some(delay))
}

/// Which boards a stream carries: one game, or every game whose id starts with a prefix.
#[derive(Clone)]
pub(super) enum Boards {
    Game(String),
    Prefix(String),
}

impl Boards {
    pub(super) fn has(&self, game: &str) -> bool {
        match self {
            Boards::Game(id) => id == game,
            Boards::Prefix(prefix) => game.starts_with(prefix.as_str()),
        }
    }
}

/// The page's hall stream, queued for one page: bounded in events, and in bytes by the
/// watchers' shared budget (see `metered`).
type SseQueue = Metered<Result<SseEvent, Infallible>>;

/// Events waiting for one hall page (each update is one board; a snapshot is one event).
const HALL_PAGE_QUEUE: usize = 64;

/// Frames waiting for one `WatchGames` stream (one board each).
const HALL_QUEUE: usize = 256;

fn hall_stream<L: Log>(
    c: Arc<Console<L>>,
    caller: Caller,
    q: &[(String, String)],
    delay: Option<Duration>,
) -> Response {
    let boards = match param(q, "game") {
        Some(game) => Boards::Game(game),
        None => Boards::Prefix(param(q, "prefix").unwrap_or_default()),
    };
    if let Boards::Game(game) = &boards
        && let Err(e) = caller.may_read(game)
    {
        return failed(e);
    }
    // Subscribed before the snapshot is read, so no event falls between the two; the page
    // ignores an update not newer than the board it has.
    let (updates, reader) = c.service.live.hall(HallForms::JSON);
    let (tx, rx) = metered::<Result<SseEvent, Infallible>>(
        HALL_PAGE_QUEUE,
        c.service.watcher_lag,
        &c.service.watch_budget,
    );
    let mut closing = c.service.closing.subscribe();
    tokio::spawn(async move {
        let _counted_while_it_reads = reader;
        tokio::select! {
            () = feed_hall(&c, &caller, &boards, updates, delay, &tx) => {}
            () = closed(&mut closing) => {}
        }
    });
    Sse::new(rx)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// Sends the snapshot, then every update for the boards, until the page goes away. An
/// update stream that fell behind sends a fresh snapshot rather than a gap.
async fn feed_hall<L: Log>(
    c: &Console<L>,
    caller: &Caller,
    boards: &Boards,
    mut updates: broadcast::Receiver<Arc<HallFrame>>,
    delay: Option<Duration>,
    tx: &SseQueue,
) {
    let mut held: VecDeque<(tokio::time::Instant, Arc<HallFrame>)> = VecDeque::new();
    if !send_snapshot(c, caller, boards, delay, tx).await {
        return;
    }
    // A delayed snapshot shows the boards as they were `delay` ago; the events stored since
    // came before the subscription and are no update to hold. A second snapshot once the
    // delay has passed brings them (every later event is held and comes after it).
    let mut again = delay.map(|d| tokio::time::Instant::now() + d);
    loop {
        let wait = held.front().map(|(at, _)| *at);
        tokio::select! {
            () = sleep_until(again) => {
                again = None;
                if !send_snapshot(c, caller, boards, delay, tx).await { return }
            }
            update = updates.recv() => match update {
                Ok(update) if boards.has(&update.game) && caller.lists(&update.game) => match delay {
                    None => if !send_json(tx, &update).await { return },
                    Some(d) => held.push_back((tokio::time::Instant::now() + d, update)),
                },
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    held.clear();
                    if !send_snapshot(c, caller, boards, delay, tx).await { return }
                    again = delay.map(|d| tokio::time::Instant::now() + d);
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            () = sleep_until(wait) => {
                if let Some((_, update)) = held.pop_front()
                    && !send_json(tx, &update).await
                {
                    return;
                }
            }
            () = tx.closed() => return,
        }
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

async fn send(tx: &SseQueue, kind: &str, data: &Value) -> bool {
    let data = data.to_string();
    let size = kind.len() + data.len();
    let event = SseEvent::default().event(kind).data(data);
    match tx.send(Ok(event), size).await {
        Ok(()) => true,
        // The page stopped reading: its stream ends, the queue and its budget freed; the
        // browser's EventSource reconnects and starts again from a snapshot.
        Err(NotPut::Stalled) => {
            tx.cut(None);
            false
        }
        Err(NotPut::Gone) => false,
    }
}

/// A hall update as the page reads it (every frame a JSON reader receives has its JSON).
async fn send_json(tx: &SseQueue, frame: &HallFrame) -> bool {
    match &frame.json {
        Some(json) => send(tx, "update", json).await,
        None => true,
    }
}

/// Every board's current frame (for spectators, the frame as it was `delay` ago).
async fn send_snapshot<L: Log>(
    c: &Console<L>,
    caller: &Caller,
    boards: &Boards,
    delay: Option<Duration>,
    tx: &SseQueue,
) -> bool {
    let frames = match snapshot(c, caller, boards, delay).await {
        Ok(frames) => frames,
        Err(e) => {
            let status = tonic::Status::from(e);
            return send(tx, "failed", &json!({ "error": status.message() })).await;
        }
    };
    send(tx, "snapshot", &json!({ "boards": frames })).await
}

async fn snapshot<L: Log>(
    c: &Console<L>,
    caller: &Caller,
    boards: &Boards,
    delay: Option<Duration>,
) -> Result<Vec<Value>, Error> {
    if delay.is_none() {
        let frames = c.service.hall_snapshot(caller, boards, HallForms::JSON);
        return Ok(frames.await?.into_iter().filter_map(|f| f.json).collect());
    }
    let mut frames = Vec::new();
    for info in c.service.log.games().await? {
        if frames.len() >= MAX_BOARDS {
            break;
        }
        if !boards.has(&info.game) || !caller.lists(&info.game) || info.damage.is_some() {
            continue;
        }
        let loaded = load_log(&c.service.log, &info.game, None).await?;
        let records: Vec<crate::log::Record> =
            loaded.events.iter().map(|(r, _)| r.clone()).collect();
        let horizon = c.public_horizon(&records);
        let view = view::game(&loaded, Some(horizon))?;
        let last = view["frames"].as_array().and_then(|f| f.last()).cloned();
        frames.push(last.unwrap_or(Value::Null));
    }
    Ok(frames)
}

impl<L: Log> Service<L> {
    /// `WatchGames`: the snapshot of every board of the event, then each stored event's
    /// board, on one stream; a stream that falls behind gets a fresh snapshot.
    pub(super) fn watch_hall(
        &self,
        caller: Caller,
        prefix: String,
        permit: Option<super::limits::StreamPermit>,
    ) -> super::HallStream {
        let (tx, rx) = metered::<Result<proto::WatchGamesResponse, tonic::Status>>(
            HALL_QUEUE,
            self.watcher_lag,
            &self.watch_budget,
        );
        let service = self.clone();
        let mut closing = self.closing.subscribe();
        let (updates, reader) = self.live.hall(HallForms::PROTO);
        tokio::spawn(async move {
            let _counted_until_the_stream_ends = (permit, reader);
            let boards = Boards::Prefix(prefix);
            tokio::select! {
                () = service.feed_watch_games(&caller, &boards, updates, &tx) => {}
                () = closed(&mut closing) => {
                    tx.finish(Err(tonic::Status::unavailable("the server is shutting down")));
                }
            }
        });
        Box::pin(rx)
    }

    async fn feed_watch_games(
        &self,
        caller: &Caller,
        boards: &Boards,
        mut updates: broadcast::Receiver<Arc<HallFrame>>,
        tx: &Metered<Result<proto::WatchGamesResponse, tonic::Status>>,
    ) {
        // Queued, or the stream cut if the console stalled: false when the stream is over.
        let send = async |frame: proto::WatchGamesResponse| {
            let size = prost::Message::encoded_len(&frame);
            match tx.send(Ok(frame), size).await {
                Ok(()) => true,
                Err(NotPut::Stalled) => {
                    tx.cut(Some(Err(tonic::Status::aborted(format!(
                        "the hall stream fell behind: the console did not read for {} ms; \
                         reopen WatchGames for a fresh snapshot of every board",
                        self.watcher_lag.as_millis()
                    )))));
                    false
                }
                Err(NotPut::Gone) => false,
            }
        };
        let snapshot = async || match self.hall_snapshot(caller, boards, HallForms::PROTO).await {
            Ok(frames) => {
                for frame in frames.into_iter().filter_map(|f| f.proto) {
                    if !send(frame).await {
                        return false;
                    }
                }
                true
            }
            Err(e) => {
                tx.finish(Err(tonic::Status::from(e)));
                false
            }
        };
        if !snapshot().await {
            return;
        }
        loop {
            tokio::select! {
                update = updates.recv() => match update {
                    Ok(u) if boards.has(&u.game) && caller.lists(&u.game) => {
                        let Some(frame) = u.proto.clone() else { continue };
                        if !send(frame).await { return }
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        if !snapshot().await { return }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                () = tx.closed() => return,
            }
        }
    }

    /// A game's board as the hall shows it now, from the live fold (which keeps its last
    /// event and words: nothing is read from the log again).
    pub(super) async fn board_frame(
        &self,
        game: &str,
        forms: HallForms,
    ) -> Result<HallFrame, Error> {
        let guard = self.live.lock(game).await?;
        Ok(hall_frame(guard.fold(), &[], true, forms))
    }

    /// The boards of the games `boards` names that `caller` may list, as they stand.
    pub(super) async fn hall_snapshot(
        &self,
        caller: &Caller,
        boards: &Boards,
        forms: HallForms,
    ) -> Result<Vec<HallFrame>, Error> {
        let mut frames = Vec::new();
        for info in self.log.games().await? {
            if frames.len() >= MAX_BOARDS {
                break;
            }
            if boards.has(&info.game) && caller.lists(&info.game) && info.damage.is_none() {
                frames.push(self.board_frame(&info.game, forms).await?);
            }
        }
        Ok(frames)
    }
}

/// A board of the hall after a stored event (or as it stands, in a snapshot): as the console
/// draws it, and as `WatchGames` sends it. Made once per event, only when someone follows,
/// and only in the forms someone reads.
pub struct HallFrame {
    pub game: String,
    pub json: Option<Value>,
    pub proto: Option<proto::WatchGamesResponse>,
}

/// The hall's frame for the board as `fold` left it, with the rulings of its last event
/// (a snapshot shows the game's latest ruling instead).
pub fn hall_frame(
    fold: &crate::stored::Fold,
    rulings: &[crate::referee::Ruling],
    snapshot: bool,
    forms: HallForms,
) -> HallFrame {
    let referee = &fold.referee;
    // A snapshot's alert is the game's latest ruling, whichever event gave it.
    let latest = referee.rulings().last().filter(|_| snapshot);
    let json = forms.json.then(|| {
        let mut json = view::frame(fold, rulings);
        // A move derived from a board's reports is a move, not an alert: the card's alert
        // is the latest other ruling.
        let alert = (referee.rulings().iter().rev())
            .find(|r| r.kind != crate::referee::RulingKind::BoardMove)
            .filter(|_| snapshot);
        if let Some(latest) = alert {
            json["latest"] = latest.to_value(referee.header().variant);
        }
        json
    });
    let proto = forms
        .proto
        .then(|| hall_proto(fold, rulings, latest, snapshot));
    HallFrame {
        game: referee.header().id.clone(),
        json,
        proto,
    }
}

/// A hall frame as `WatchGames` sends it.
fn hall_proto(
    fold: &crate::stored::Fold,
    rulings: &[crate::referee::Ruling],
    latest: Option<&crate::referee::Ruling>,
    snapshot: bool,
) -> proto::WatchGamesResponse {
    let referee = &fold.referee;
    let variant = referee.header().variant;
    let text = fold.last.as_ref().map(|last| last.words.clone());
    let shown: Vec<&crate::referee::Ruling> = if snapshot {
        latest.into_iter().collect()
    } else {
        rulings.iter().collect()
    };
    proto::WatchGamesResponse {
        game: referee.header().id.clone(),
        variant: variant.name().into(),
        board: Some(super::convert::board_to_proto(referee)),
        text,
        rulings: shown
            .iter()
            .map(|r| super::convert::ruling_to_proto(r, variant))
            .collect(),
        result: referee.ending().map(|e| e.result.as_str().into()),
        snapshot,
        received_ms: fold.last.as_ref().map_or(0, |l| l.record.received_ms),
    }
}
