//! The gRPC service: boards append events, consoles watch, disputes replay.
//!
//! Only this module knows tonic. Every write goes to the log first and is acknowledged only
//! once durable; rulings are then derived by the cached referee, never stored.

mod arbiter_word;
mod audit;
mod caller;
mod codec;
pub mod console;
mod convert;
mod error;
mod feed;
mod health;
mod limits;
mod live;
mod metered;
mod outbox;
pub mod proto;
mod watcher;

pub use convert::{event_to_proto, header_from_proto, header_to_proto};
pub use error::{Error, RESUME_FROM_SEQ};
pub use limits::Limits;
pub use live::CacheLimits;

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};

use crate::event::{Event, event_to_json, header_to_json};
use crate::log::{Log, NewEvent, Record};
use crate::records;
use crate::referee::{Referee, Ruling};
use crate::stored::Fold;

use self::arbiter_word::EventPath;
use self::caller::Caller;
use self::convert::{event_from_proto, ruling_to_proto};
use self::limits::{Governor, StreamPermit};
use self::live::{LiveGames, LiveGuard};
use self::outbox::Outbox;
use self::proto::referee_server::{Referee as RefereeApi, RefereeServer};
use crate::access::TokenStore;

/// Most events one append may carry; a board sends a handful, an import a game.
pub const MAX_EVENTS_PER_APPEND: usize = 2000;
/// Largest encoded request the service decodes.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;
/// `serve --watchers-memory-mb`'s default: what all watchers may hold together beyond their
/// 64 KiB reserves.
pub const WATCHERS_MEMORY_MB: usize = outbox::DEFAULT_BUDGET_BYTES / (1024 * 1024);

/// How long a watcher's outbox may stay full before its stream is ended: long enough for a
/// console on a slow link or a busy machine, short enough that a console that stopped reading
/// does not hold its memory for long.
pub const WATCHER_LAG: Duration = Duration::from_secs(3);
/// How long requests in flight get to finish after the stop signal before the server closes
/// the connections still open (a console that does not read cannot be drained).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The referee service over a log.
pub struct Service<L: Log> {
    log: L,
    live: Arc<LiveGames<L>>,
    /// Set when the server shuts down, so that endless streams (watchers, boards) end and
    /// graceful shutdown does not wait for them forever.
    closing: Arc<tokio::sync::watch::Sender<bool>>,
    /// Issued tokens; None = access control off (tests, benchmarks).
    tokens: Option<Arc<TokenStore>>,
    /// The key audit exports are signed with; None = the audit export calls are unavailable.
    audit_key: Option<Arc<ed25519_dalek::SigningKey>>,
    /// Open streams and request rate per token.
    governor: Arc<Governor>,
    /// How long a watcher may leave its outbox full before its stream is ended.
    watcher_lag: Duration,
    /// Watchers whose feeding task is running.
    watchers: Arc<AtomicUsize>,
    /// What all watchers' outboxes may hold together beyond each one's reserve.
    watch_budget: outbox::Budget,
    /// How long graceful shutdown may take before open connections are dropped.
    shutdown_grace: Duration,
}

impl<L: Log> Service<L> {
    pub fn new(log: L) -> Service<L> {
        Service {
            live: Arc::new(LiveGames::new(log.clone(), CacheLimits::DEFAULT)),
            log,
            closing: Arc::new(tokio::sync::watch::channel(false).0),
            tokens: None,
            audit_key: None,
            governor: Arc::new(Governor::new(Limits::NONE)),
            watcher_lag: WATCHER_LAG,
            watchers: Arc::new(AtomicUsize::new(0)),
            watch_budget: outbox::Budget::new(outbox::DEFAULT_BUDGET_BYTES),
            shutdown_grace: SHUTDOWN_GRACE,
        }
    }

    /// The service with access control by `tokens`, on once any token has been issued.
    pub fn with_tokens(log: L, tokens: impl Into<Arc<TokenStore>>) -> Service<L> {
        Service {
            tokens: Some(tokens.into()),
            ..Service::new(log)
        }
    }

    /// The service holding each token to `limits` (none by default; `serve` sets them).
    pub fn with_limits(mut self, limits: Limits) -> Service<L> {
        self.governor = Arc::new(Governor::new(limits));
        self
    }

    /// The service ending a watcher's stream once its outbox has stayed full for `lag`
    /// ([`WATCHER_LAG`] by default).
    /// What all watchers together may hold beyond each one's 64 KiB reserve (default
    /// 256 MiB; at least one watcher's 1 MiB).
    pub fn with_watchers_memory(mut self, bytes: usize) -> Service<L> {
        self.watch_budget = outbox::Budget::new(bytes);
        self
    }

    pub fn with_watcher_lag(mut self, lag: Duration) -> Service<L> {
        self.watcher_lag = lag;
        self
    }

    /// The service keeping at most `limits` games' referees in memory
    /// ([`CacheLimits::DEFAULT`] by default); others are replayed from the log when used.
    pub fn with_cache_limits(mut self, limits: CacheLimits) -> Service<L> {
        self.live = Arc::new(LiveGames::new(self.log.clone(), limits));
        self
    }

    /// Games whose referee is in memory now.
    pub fn live_games(&self) -> usize {
        self.live.loaded()
    }

    /// The server giving requests in flight `grace` to finish after the stop signal
    /// ([`SHUTDOWN_GRACE`] by default).
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Service<L> {
        self.shutdown_grace = grace;
        self
    }

    /// Watchers whose feeding task is still running (it ends when the stream does).
    pub fn open_watchers(&self) -> usize {
        self.watchers.load(Ordering::Relaxed)
    }

    /// Who calls, once the call is admitted under the caller's token's request rate.
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Error> {
        let caller = Caller::of(request, self.tokens.as_deref())?;
        self.admit(&caller)?;
        Ok(caller)
    }

    /// Limits are per token: with access control off there is no token to hold to them.
    fn admit(&self, caller: &Caller) -> Result<(), Error> {
        caller
            .token_id()
            .map_or(Ok(()), |token| self.governor.admit(token))
    }

    fn open_stream(&self, caller: &Caller) -> Result<Option<StreamPermit>, Error> {
        caller
            .token_id()
            .map(|token| self.governor.open_stream(token))
            .transpose()
    }

    async fn create(
        &self,
        header: proto::GameHeader,
        caller: &Caller,
    ) -> Result<proto::CreateGameResponse, Error> {
        let header = header_from_proto(header)?;
        caller.may_create(&header.id)?;
        Referee::new(&header)?; // a header the referee cannot start from is refused, not stored
        let line = header_to_json(&header);
        let record = self.log.create(&header.id, line, &caller.writer).await??;
        Ok(proto::CreateGameResponse {
            game: record.game,
            header_line: record.body,
            hash: hex::encode(record.hash),
        })
    }

    async fn append(
        &self,
        game: &str,
        expected_seq: u64,
        events: Vec<proto::NewEvent>,
        caller: &Caller,
    ) -> Result<proto::AppendEventsResponse, Error> {
        if events.len() > MAX_EVENTS_PER_APPEND {
            return Err(Error::TooLarge(format!(
                "events: {} events in one append; at most {MAX_EVENTS_PER_APPEND}",
                events.len()
            )));
        }
        let guard = self.live.lock_to_write(game).await?;
        let variant = guard.fold().referee.header().variant;
        let parsed = parse_new_events(events, variant)?;
        let batch = Batch {
            expected_seq,
            parsed: &parsed,
            path: |i| format!("events[{i}].event.arbiter"),
        };
        self.append_locked(guard, game, &batch, caller).await
    }

    /// Appends events already parsed (the console's arbiter word, read from its log line):
    /// the same checks and path as a board's append, with no proto in between; a refused
    /// field is named under `path` (`body` for the console's one event).
    pub(super) async fn append_parsed(
        &self,
        game: &str,
        expected_seq: u64,
        parsed: &[(String, Event)],
        path: EventPath,
        caller: &Caller,
    ) -> Result<proto::AppendEventsResponse, Error> {
        let guard = self.live.lock_to_write(game).await?;
        let batch = Batch {
            expected_seq,
            parsed,
            path,
        };
        self.append_locked(guard, game, &batch, caller).await
    }

    /// Appends parsed events the caller may write, with the game locked for writing.
    async fn append_locked(
        &self,
        guard: LiveGuard,
        game: &str,
        batch: &Batch<'_>,
        caller: &Caller,
    ) -> Result<proto::AppendEventsResponse, Error> {
        for (_, event) in batch.parsed {
            caller.may_append(game, event.side)?;
        }
        match self.store_checked(guard, game, batch, caller).await {
            // Another instance took the game since this one loaded it: nothing was written;
            // once more with the game claimed back and reloaded, decided on the log's head.
            Err(Error::Rejected(crate::log::Rejection::Fenced { .. })) => {
                let guard = self.live.lock_to_write(game).await?;
                self.store_checked(guard, game, batch, caller).await
            }
            stored => stored,
        }
    }

    /// Stores a batch whose arbiter words fit the game as the live fold holds it. Only a
    /// batch that goes at the head is checked: a retry carries the expected seq of its first
    /// try (the log acknowledges it again, as it was), and any other seq the log refuses.
    async fn store_checked(
        &self,
        guard: LiveGuard,
        game: &str,
        batch: &Batch<'_>,
        caller: &Caller,
    ) -> Result<proto::AppendEventsResponse, Error> {
        let referee = &guard.fold().referee;
        if batch.expected_seq == referee.last_seq() + 1 {
            arbiter_word::check(referee, batch.parsed, batch.path)?;
        }
        let (seq, parsed) = (batch.expected_seq, batch.parsed);
        self.store(guard, game, seq, parsed, &caller.writer).await
    }

    /// Appends events already checked and allowed, and folds them into the live referee.
    async fn store(
        &self,
        mut guard: LiveGuard,
        game: &str,
        expected_seq: u64,
        parsed: &[(String, Event)],
        writer: &str,
    ) -> Result<proto::AppendEventsResponse, Error> {
        let variant = guard.fold().referee.header().variant;
        // Each event is encoded once, here: the line the log stores and hashes.
        let new: Vec<NewEvent> = parsed
            .iter()
            .map(|(id, e)| NewEvent {
                event_id: id.clone(),
                body: event_to_json(e, variant),
                writer: writer.to_string(),
            })
            .collect();
        let appended = match guard.lease() {
            Some(lease) => self.log.append_leased(game, lease, expected_seq, new).await,
            None => self.log.append(game, expected_seq, new).await,
        };
        let appended = match appended {
            Ok(Err(fenced @ crate::log::Rejection::Fenced { .. })) => {
                guard.unload();
                return Err(fenced.into());
            }
            Ok(result) => result?,
            Err(e) => {
                // The outcome is unknown: reload from the log on next use.
                guard.unload();
                return Err(e.into());
            }
        };
        let seqs: Vec<u64> = appended.records.iter().map(|r| r.seq).collect();
        let rulings: Vec<Ruling> = if appended.duplicate {
            let referee = &guard.fold().referee;
            let earlier = referee.rulings().iter().filter(|r| seqs.contains(&r.at));
            earlier.cloned().collect()
        } else {
            self.apply(&mut guard, game, &appended.records, parsed)
        };
        let referee = &guard.fold().referee;
        Ok(proto::AppendEventsResponse {
            seqs,
            duplicate: appended.duplicate,
            rulings: rulings
                .iter()
                .map(|r| ruling_to_proto(r, variant))
                .collect(),
            result: referee.ending().map(|e| e.result.as_str().into()),
        })
    }

    /// Folds newly stored records into the live referee and publishes each (see
    /// [`LiveGames::apply`]).
    fn apply(
        &self,
        guard: &mut LiveGuard,
        game: &str,
        records: &[Record],
        parsed: &[(String, Event)],
    ) -> Vec<Ruling> {
        let events = parsed.iter().map(|(_, event)| event);
        self.live.apply(guard, game, records, events)
    }

    /// Reads a record into games, checks each may be created, then creates and fills them
    /// one by one through the live cache (see ImportGame in the proto).
    async fn import(
        &self,
        request: proto::ImportGameRequest,
        caller: &Caller,
    ) -> Result<proto::ImportGameResponse, Error> {
        if request.name.trim().is_empty() {
            return Err(Error::invalid(
                "name",
                "is empty; the file's name names the games",
            ));
        }
        let format = match request.format.as_str() {
            "" => None,
            text => Some(records::Format::parse(text).ok_or_else(|| {
                Error::invalid("format", format!("{text:?} is not log, pdn, pgn or renju"))
            })?),
        };
        let only = usize::try_from(request.game).ok().filter(|&n| n > 0);
        let games = records::read(&request.name, &request.record, format, only)
            .map_err(|e| Error::invalid(e.name, e.message))?;
        for game in &games {
            caller.may_create(&game.header.id)?;
            Referee::new(&game.header)?;
            if self.log.info(&game.header.id).await?.is_some() {
                let game = game.header.id.clone();
                return Err(crate::log::Rejection::GameExists { game }.into());
            }
        }
        let mut reply = proto::ImportGameResponse::default();
        for game in games {
            let id = game.header.id.clone();
            self.log
                .create(&id, header_to_json(&game.header), &caller.writer)
                .await??;
            let mut seq = 1;
            let events: Vec<(String, Event)> = (1u64..)
                .map(|s| format!("import-{s}"))
                .zip(game.events)
                .collect();
            for chunk in events.chunks(MAX_EVENTS_PER_APPEND) {
                let guard = self.live.lock_to_write(&id).await?;
                let appended = self.store(guard, &id, seq, chunk, &caller.writer).await?;
                seq += u64::try_from(appended.seqs.len()).unwrap_or(u64::MAX);
            }
            reply.notes.extend(game.note.map(|n| format!("{id}: {n}")));
            reply.games.push(id);
        }
        Ok(reply)
    }

    async fn state(&self, game: &str) -> Result<proto::GameState, Error> {
        let guard = self.live.lock(game).await?;
        let fold = guard.fold();
        Ok(state_of(&fold.referee, fold.head_hash))
    }

    async fn replay_to(&self, game: &str, up_to: u64) -> Result<proto::GameState, Error> {
        let last = self
            .log
            .info(game)
            .await?
            .ok_or_else(|| crate::log::Rejection::UnknownGame {
                game: game.to_string(),
            })?
            .last_seq;
        if up_to > last {
            return Err(Error::invalid(
                "up_to_seq",
                format!("game \"{game}\" has only {last} events"),
            ));
        }
        let fold = Fold::load(&self.log, game, Some(up_to)).await?;
        Ok(state_of(&fold.referee, fold.head_hash))
    }

    /// The games `caller` may list whose id starts with `page.prefix`, in id order, at most
    /// `page.limit` (0: all) after `page.after`; `next` is set when more follow.
    async fn list(
        &self,
        caller: &Caller,
        page: &proto::ListGamesRequest,
    ) -> Result<proto::ListGamesResponse, Error> {
        let mut infos: Vec<_> = self
            .log
            .games()
            .await?
            .into_iter()
            .filter(|i| caller.lists(&i.game))
            .filter(|i| i.game.starts_with(&page.prefix) && i.game > page.after)
            .collect();
        infos.sort_by(|a, b| a.game.cmp(&b.game));
        let limit = match usize::try_from(page.limit) {
            Ok(0) | Err(_) => usize::MAX,
            Ok(n) => n,
        };
        let next = (infos.len() > limit).then(|| infos[limit - 1].game.clone());
        let mut games = Vec::new();
        for info in infos.into_iter().take(limit) {
            games.push(self.summary(info).await?);
        }
        Ok(proto::ListGamesResponse { games, next })
    }

    /// One line of ListGames, from the game's kept summary (replayed only if none is kept
    /// for the log's head). A damaged game is listed with what is wrong, so one damaged game
    /// does not hide the others.
    async fn summary(&self, info: crate::log::GameInfo) -> Result<proto::GameSummary, Error> {
        let damaged = |damage: String| proto::GameSummary {
            game: info.game.clone(),
            variant: String::new(),
            last_seq: info.last_seq,
            result: None,
            head_hash: hex::encode(info.head_hash),
            created_ms: info.created_ms,
            damage: Some(damage),
        };
        if let Some(damage) = &info.damage {
            return Ok(damaged(damage.clone()));
        }
        let summary = match self
            .live
            .summary(&info.game, info.last_seq, info.head_hash)
            .await
        {
            Ok(summary) => summary,
            // Only a closed log fails the whole list; a game that cannot be read is listed
            // with why, and logged for the operator.
            Err(e @ Error::Log(crate::log::Error::Closed)) => return Err(e),
            Err(e @ (Error::Log(_) | Error::Unreadable { .. })) => {
                tracing::warn!(game = %info.game, error = %e, "ListGames: a game cannot be read");
                return Ok(damaged(e.to_string()));
            }
            Err(e) => return Err(e),
        };
        Ok(proto::GameSummary {
            game: info.game.clone(),
            variant: summary.variant.into(),
            last_seq: summary.last_seq,
            result: summary.result.map(Into::into),
            head_hash: hex::encode(summary.head_hash),
            created_ms: info.created_ms,
            damage: None,
        })
    }

    async fn watch(
        &self,
        game: &str,
        from_seq: u64,
        permit: Option<StreamPermit>,
    ) -> Result<WatchStream, Error> {
        let info =
            self.log
                .info(game)
                .await?
                .ok_or_else(|| crate::log::Rejection::UnknownGame {
                    game: game.to_string(),
                })?;
        // From the first event to the next one to come; further on is no seq this game has
        // reached, and the stream would wait for it forever.
        let next = info.last_seq.saturating_add(1);
        if from_seq > next {
            return Err(Error::OutOfRange {
                field: "from_seq".into(),
                message: format!(
                    "game {} has {} events: watch from 0 or 1 (the start) up to {next} (the next \
                     event to come), not {from_seq}",
                    crate::quote::quote(game),
                    info.last_seq
                ),
            });
        }
        let (outbox, stream) = Outbox::new(game, from_seq, self.watcher_lag, &self.watch_budget);
        let (live, game) = (Arc::clone(&self.live), game.to_string());
        let running = watcher::Running::new(&self.watchers);
        let mut closing = self.closing.subscribe();
        tokio::spawn(async move {
            let _counted_until_the_watcher_ends = (permit, running);
            let stop = tokio::select! {
                stop = watcher::feed(&live, &game, from_seq, &outbox) => stop,
                _ = closed(&mut closing) => {
                    outbox.finish(Status::unavailable("the server is shutting down"));
                    return;
                }
                // A watcher that hangs up on an idle game ends here, not at the next event,
                // so its stream stops counting against its token's limit.
                () = outbox.gone() => watcher::Stop::Gone,
            };
            watcher::end(outbox, stop, &game);
        });
        Ok(Box::pin(stream))
    }
}

/// Events to append after `expected_seq - 1`, with where each is in the request.
struct Batch<'a> {
    expected_seq: u64,
    parsed: &'a [(String, Event)],
    path: EventPath,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGameResponse, Status>> + Send>>;
type HallStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGamesResponse, Status>> + Send>>;
type PlayStream = Pin<Box<dyn Stream<Item = Result<proto::PlayResponse, Status>> + Send>>;

fn stored_event(
    record: &Record,
    event: &Event,
    variant: crate::games::Variant,
) -> proto::StoredEvent {
    proto::StoredEvent {
        seq: record.seq,
        event_id: record.event_id.clone(),
        event: Some(event_to_proto(event, variant)),
        line: record.body.clone(),
        received_ms: record.received_ms,
        writer: record.writer.clone(),
        prev_hash: hex::encode(record.prev_hash),
        hash: hex::encode(record.hash),
        words: None,
    }
}

fn parse_new_events(
    events: Vec<proto::NewEvent>,
    variant: crate::games::Variant,
) -> Result<Vec<(String, Event)>, Error> {
    events
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let path = format!("events[{i}]");
            if n.event_id.is_empty() {
                return Err(Error::invalid(
                    format!("{path}.event_id"),
                    "is empty; give each event a unique id so retries are safe",
                ));
            }
            let event = n
                .event
                .ok_or_else(|| Error::invalid(format!("{path}.event"), "is missing"))?;
            Ok((
                n.event_id,
                event_from_proto(event, variant, &format!("{path}.event"))?,
            ))
        })
        .collect()
}

fn state_of(referee: &Referee, head_hash: [u8; 32]) -> proto::GameState {
    let variant = referee.header().variant;
    proto::GameState {
        header: Some(header_to_proto(referee.header())),
        seq: referee.last_seq(),
        fen: referee.fen(),
        side_to_move: referee.side_to_move().name(variant).into(),
        result: referee.ending().map(|e| e.result.as_str().into()),
        rulings: referee
            .rulings()
            .iter()
            .map(|r| ruling_to_proto(r, variant))
            .collect(),
        head_hash: hex::encode(head_hash),
        clock: convert::clock_to_proto(referee),
    }
}

#[tonic::async_trait]
impl<L: Log> RefereeApi for Service<L> {
    async fn create_game(
        &self,
        request: Request<proto::CreateGameRequest>,
    ) -> Result<Response<proto::CreateGameResponse>, Status> {
        let caller = self.caller(&request)?;
        let header = request
            .into_inner()
            .header
            .ok_or_else(|| Error::invalid("header", "is missing"))?;
        Ok(Response::new(self.create(header, &caller).await?))
    }

    async fn append_events(
        &self,
        request: Request<proto::AppendEventsRequest>,
    ) -> Result<Response<proto::AppendEventsResponse>, Status> {
        let caller = self.caller(&request)?;
        let r = request.into_inner();
        Ok(Response::new(
            self.append(&r.game, r.expected_seq, r.events, &caller)
                .await?,
        ))
    }

    type PlayStream = PlayStream;

    async fn play(
        &self,
        request: Request<Streaming<proto::PlayRequest>>,
    ) -> Result<Response<PlayStream>, Status> {
        let caller = self.caller(&request)?;
        let permit = self.open_stream(&caller)?;
        let mut incoming = request.into_inner();
        let this = self.clone();
        let (tx, rx) = mpsc::channel(64);
        let mut closing = self.closing.subscribe();
        tokio::spawn(async move {
            let _counted_until_the_stream_ends = permit;
            let mut game = String::new();
            // The last seq acknowledged on this stream, for the status that ends it at shutdown.
            let mut acked: Option<u64> = None;
            loop {
                let message = tokio::select! {
                    // A message already received is answered before the stream ends.
                    biased;
                    m = incoming.next() => m,
                    () = closed(&mut closing) => {
                        let status = shutting_down(&this, &game, acked).await;
                        let _ = tx.send(Err(status)).await;
                        break;
                    }
                };
                let Some(message) = message else { break };
                let message = match message {
                    Ok(message) => message,
                    // A message that does not decode ends the stream with its status
                    // (INVALID_ARGUMENT from the codec), not a silent OK.
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        break;
                    }
                };
                let outcome = if let Err(wrong) = play_game(&mut game, &message.game) {
                    Err(wrong)
                } else if let Err(over) = this.admit(&caller) {
                    Err(over)
                } else {
                    this.append(&game, message.expected_seq, message.events, &caller)
                        .await
                };
                if let Ok(ack) = &outcome {
                    acked = ack.seqs.last().copied().max(acked);
                }
                let reply = play_reply(outcome, &this, &game).await;
                if tx.send(Ok(reply)).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    type WatchGameStream = WatchStream;

    async fn watch_game(
        &self,
        request: Request<proto::WatchGameRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let caller = self.caller(&request)?;
        let r = request.into_inner();
        caller.may_read(&r.game)?;
        let permit = self.open_stream(&caller)?;
        Ok(Response::new(
            self.watch(&r.game, r.from_seq, permit).await?,
        ))
    }

    async fn get_game(
        &self,
        request: Request<proto::GetGameRequest>,
    ) -> Result<Response<proto::GameState>, Status> {
        let caller = self.caller(&request)?;
        let game = request.into_inner().game;
        caller.may_read(&game)?;
        Ok(Response::new(self.state(&game).await?))
    }

    async fn replay_game(
        &self,
        request: Request<proto::ReplayGameRequest>,
    ) -> Result<Response<proto::GameState>, Status> {
        let caller = self.caller(&request)?;
        let r = request.into_inner();
        caller.may_read(&r.game)?;
        Ok(Response::new(self.replay_to(&r.game, r.up_to_seq).await?))
    }

    async fn list_games(
        &self,
        request: Request<proto::ListGamesRequest>,
    ) -> Result<Response<proto::ListGamesResponse>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(self.list(&caller, request.get_ref()).await?))
    }

    type WatchGamesStream = HallStream;

    async fn watch_games(
        &self,
        request: Request<proto::WatchGamesRequest>,
    ) -> Result<Response<HallStream>, Status> {
        let caller = self.caller(&request)?;
        let permit = self.open_stream(&caller)?;
        let prefix = request.into_inner().prefix;
        Ok(Response::new(self.watch_hall(caller, prefix, permit)))
    }

    async fn get_audit_key(
        &self,
        request: Request<proto::GetAuditKeyRequest>,
    ) -> Result<Response<proto::GetAuditKeyResponse>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(self.public_key(&caller)?))
    }

    async fn export_audit(
        &self,
        request: Request<proto::ExportAuditRequest>,
    ) -> Result<Response<proto::AuditExport>, Status> {
        let caller = self.caller(&request)?;
        let game = request.into_inner().game;
        Ok(Response::new(self.audit_bundle(&game, &caller).await?))
    }

    async fn export_tournament(
        &self,
        request: Request<proto::ExportTournamentRequest>,
    ) -> Result<Response<proto::AuditExport>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(
            self.tournament_export(request.into_inner(), &caller)
                .await?,
        ))
    }

    async fn verify_audit(
        &self,
        request: Request<proto::VerifyAuditRequest>,
    ) -> Result<Response<proto::AuditReport>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(
            self.check_bundle(request.into_inner(), &caller)?,
        ))
    }

    async fn import_game(
        &self,
        request: Request<proto::ImportGameRequest>,
    ) -> Result<Response<proto::ImportGameResponse>, Status> {
        let caller = self.caller(&request)?;
        Ok(Response::new(
            self.import(request.into_inner(), &caller).await?,
        ))
    }
}

/// The game a Play stream plays, fixed by the first message that names one; a later message
/// may repeat it or leave it empty, and one naming another game is refused (in-band, like
/// every refusal on the stream), never written to either game.
fn play_game(game: &mut String, named: &str) -> Result<(), Error> {
    if game.is_empty() {
        if named.is_empty() {
            return Err(Error::invalid(
                "game",
                "the first message of a stream must name its game",
            ));
        }
        named.clone_into(game);
    } else if !named.is_empty() && named != game {
        return Err(Error::invalid(
            "game",
            format!(
                "this stream plays {}; a message named {}: open a stream per game",
                crate::quote::quote(game),
                crate::quote::quote(named)
            ),
        ));
    }
    Ok(())
}

/// Metadata (trailer) of the status that ends a Play stream at shutdown: the last seq
/// acknowledged on that stream (absent when none was), so a board knows what to resend
/// without parsing the message.
pub const LAST_ACKED_SEQ: &str = "referee-last-acked-seq";

/// The status that ends an open Play stream when the server shuts down: UNAVAILABLE (retry
/// elsewhere or after the restart, with the retry delay), naming the last acknowledged seq,
/// so a board whose last message got no answer knows it must resend it.
async fn shutting_down<L: Log>(service: &Service<L>, game: &str, acked: Option<u64>) -> Status {
    let mut message = String::from("the server is shutting down; ");
    match acked {
        Some(seq) => message.push_str(&format!(
            "the last event acknowledged on this stream is seq {seq}{}",
            if game.is_empty() {
                String::new()
            } else {
                format!(" of game {}", crate::quote::quote(game))
            }
        )),
        None => message.push_str("nothing was acknowledged on this stream"),
    }
    if !game.is_empty()
        && let Ok(Some(info)) = service.log.info(game).await
    {
        message.push_str(&format!(
            " (the game's last stored seq is {})",
            info.last_seq
        ));
    }
    message.push_str(
        ": resend anything not acknowledged, with the same event ids, to this service once it \
         is back or to another instance",
    );
    let mut status = error::unavailable(message);
    if let Some(seq) = acked {
        status.metadata_mut().insert(LAST_ACKED_SEQ, seq.into());
    }
    status
}

async fn play_reply<L: Log>(
    outcome: Result<proto::AppendEventsResponse, Error>,
    service: &Service<L>,
    game: &str,
) -> proto::PlayResponse {
    use proto::play_response::Outcome;
    let outcome = match outcome {
        Ok(ack) => Outcome::Ack(ack),
        Err(e) => {
            let status = Status::from(e);
            let last_seq = service
                .log
                .info(game)
                .await
                .ok()
                .flatten()
                .map(|i| i.last_seq);
            let retry_after_ms = status
                .metadata()
                .get(error::RETRY_PUSHBACK_MS)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            Outcome::Refusal(proto::Refusal {
                code: error::code_name(status.code()).into(),
                message: status.message().to_string(),
                last_seq,
                retry_after_ms,
            })
        }
    };
    proto::PlayResponse {
        outcome: Some(outcome),
    }
}

impl<L: Log> Clone for Service<L> {
    /// A second handle on the same log and cache, for stream tasks.
    fn clone(&self) -> Service<L> {
        Service {
            log: self.log.clone(),
            live: Arc::clone(&self.live),
            closing: Arc::clone(&self.closing),
            tokens: self.tokens.clone(),
            audit_key: self.audit_key.clone(),
            governor: Arc::clone(&self.governor),
            watcher_lag: self.watcher_lag,
            watchers: Arc::clone(&self.watchers),
            watch_budget: self.watch_budget.clone(),
            shutdown_grace: self.shutdown_grace,
        }
    }
}

/// A certificate chain and its private key, PEM, for serving over TLS (rustls).
#[derive(Clone)]
pub struct Tls {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

/// The gRPC server for `service` in plain text (tests, loopback); see [`serve_with`].
pub async fn serve_on<L: Log>(
    listener: TcpListener,
    service: Service<L>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), tonic::transport::Error> {
    serve_with(listener, service, None, shutdown).await
}

/// The gRPC server for `service`, over TLS when `tls` is given, with health checking and
/// reflection (v1 and v1alpha, so older grpcurl releases work too).
///
/// After `shutdown` completes, streams are ended and requests in flight get the service's
/// shutdown grace to finish; connections still open then (a console that does not read holds
/// its stream open under HTTP/2 flow control) are left to the runtime to drop.
pub async fn serve_with<L: Log>(
    listener: TcpListener,
    service: Service<L>,
    tls: Option<Tls>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), tonic::transport::Error> {
    let (health_reporter, health) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<RefereeServer<Service<L>>>()
        .await;
    let health_follows_the_writer = health::follow_writer(service.log.clone(), health_reporter);
    // Each reflection service also knows the other's descriptor, so that both list every
    // service the server offers (v1 and v1alpha alike).
    let described = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = described()
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("descriptor set is valid");
    let reflection_v1alpha = described()
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .expect("descriptor set is valid");
    let closing = Arc::clone(&service.closing);
    let grace = service.shutdown_grace;
    let (began, shutdown_began) = tokio::sync::oneshot::channel();
    let shutdown = async move {
        shutdown.await;
        closing.send_replace(true);
        let _ = began.send(());
    };
    let api = RefereeServer::new(service).max_decoding_message_size(MAX_REQUEST_BYTES);
    // Acks are small frames answered one by one: without TCP_NODELAY, Nagle's algorithm
    // holds each behind the peer's delayed ACK. The builder's setting applies only to
    // listeners tonic binds itself, so the accepted sockets get it here too.
    let mut server = tonic::transport::Server::builder().tcp_nodelay(true);
    if let Some(tls) = tls {
        let identity = tonic::transport::Identity::from_pem(tls.cert_pem, tls.key_pem);
        server = server.tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))?;
    }
    let serving = server
        .add_service(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(api)
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        );
    tokio::select! {
        served = serving => served,
        never = health_follows_the_writer => match never {},
        () = grace_over(shutdown_began, grace) => {
            tracing::warn!(
                grace_ms = grace.as_millis(),
                "connections still open after the shutdown grace; stopping without them"
            );
            Ok(())
        }
    }
}

/// Completes `grace` after shutdown began; never if it does not.
async fn grace_over(began: tokio::sync::oneshot::Receiver<()>, grace: Duration) {
    match began.await {
        Ok(()) => tokio::time::sleep(grace).await,
        Err(_) => std::future::pending().await,
    }
}

/// Completes once the server is shutting down.
async fn closed(closing: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = closing.wait_for(|c| *c).await;
}
