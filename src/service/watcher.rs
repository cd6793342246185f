//! A watcher: one console following one game. Its task folds the game from the header in a
//! private referee (rulings are derived, never stored) and puts what is at or after the
//! console's `from_seq` in the console's outbox.
//!
//! Nothing on the way grows with the console's backlog: the log is read in chunks of
//! [`CHUNK`] records, one record is folded at a time, and the outbox is bounded. A console
//! that does not read is cut after the lag allowed and told where to resume; its task, its
//! referee and its outbox are dropped then, or as soon as the console hangs up.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_stream::StreamExt;
use tonic::Status;

use crate::event::{event_from_json, header_from_json};
use crate::log::{self, Log, Record};
use crate::referee::Referee;

use super::convert::ruling_to_proto;
use super::live::unreadable;
use super::outbox::{NotPut, Outbox};
use super::proto::WatchGameResponse;
use super::proto::watch_game_response::Item;
use super::{Error, header_to_proto, stored_event};

/// Records read from the store at a time while catching up: with 64 KiB bodies at most,
/// a chunk holds 1 MiB. (The log's own `watch` reads up to 1024 records at a time.)
const CHUNK: u64 = 16;

/// Why a watcher's feed stopped.
pub enum Stop {
    /// The console did not read for longer than the lag allowed.
    Stalled,
    /// The console hung up.
    Gone,
    /// The log failed, or holds a record this build cannot read.
    Failed(Error),
}

impl From<NotPut> for Stop {
    fn from(not_put: NotPut) -> Stop {
        match not_put {
            NotPut::Stalled => Stop::Stalled,
            NotPut::Gone => Stop::Gone,
        }
    }
}

impl From<Error> for Stop {
    fn from(error: Error) -> Stop {
        Stop::Failed(error)
    }
}

impl From<log::Error> for Stop {
    fn from(error: log::Error) -> Stop {
        Stop::Failed(error.into())
    }
}

impl From<log::Rejection> for Stop {
    fn from(rejection: log::Rejection) -> Stop {
        Stop::Failed(rejection.into())
    }
}

/// Counts the watchers whose task is running; one is held by each task.
pub struct Running(Arc<AtomicUsize>);

impl Running {
    pub fn new(count: &Arc<AtomicUsize>) -> Running {
        count.fetch_add(1, Ordering::Relaxed);
        Running(Arc::clone(count))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Feeds `outbox` with `game` from `from_seq` on, live, until the console stops reading,
/// hangs up, or the log fails.
pub async fn feed<L: Log>(log: &L, game: &str, from_seq: u64, outbox: &Outbox) -> Stop {
    let mut fold = Fold {
        game,
        from_seq,
        referee: None,
    };
    match follow(log, &mut fold, outbox).await {
        Ok(never) => match never {},
        Err(stop) => stop,
    }
}

/// Catches up from the store in chunks, then waits on the log for the next record, and
/// catches up again from there: a console that was slow a while is fed from the store, not
/// from records the log's watch buffered for it.
async fn follow<L: Log>(
    log: &L,
    fold: &mut Fold<'_>,
    outbox: &Outbox,
) -> Result<std::convert::Infallible, Stop> {
    let mut next = 0;
    loop {
        loop {
            let chunk = log.read(fold.game, next, Some(next.saturating_add(CHUNK - 1)))??;
            if chunk.is_empty() {
                break;
            }
            for record in &chunk {
                next = record.seq + 1;
                send(fold, record, outbox).await?;
            }
        }
        let record = {
            let waiting = log.watch(fold.game, next)??;
            let mut waiting = std::pin::pin!(waiting);
            waiting.next().await.unwrap_or(Err(log::Error::Closed))?
        };
        next = record.seq + 1;
        send(fold, &record, outbox).await?;
    }
}

async fn send(fold: &mut Fold<'_>, record: &Record, outbox: &Outbox) -> Result<(), Stop> {
    let items = fold.step(record)?;
    if !items.is_empty() {
        outbox.put(record.seq, items).await?;
    }
    Ok(())
}

/// The game folded so far, and what of it the console asked for.
struct Fold<'a> {
    game: &'a str,
    from_seq: u64,
    referee: Option<Referee>,
}

impl Fold<'_> {
    /// Applies `record`; returns its items at or after `from_seq` (header, event, rulings).
    fn step(&mut self, record: &Record) -> Result<Vec<WatchGameResponse>, Error> {
        let from_seq = self.from_seq;
        let mut items = Vec::new();
        match &mut self.referee {
            None => {
                let header =
                    header_from_json(&record.body).map_err(|m| unreadable(self.game, 0, &m))?;
                if from_seq == 0 {
                    items.push(Item::Header(header_to_proto(&header)));
                }
                self.referee = Some(Referee::new(&header)?);
            }
            Some(referee) => {
                let variant = referee.header().variant;
                let event = event_from_json(&record.body, variant, Some(record.seq))
                    .map_err(|m| unreadable(self.game, record.seq, &m))?;
                let rulings = referee.apply(record.seq, &event);
                if record.seq >= from_seq {
                    items.push(Item::Event(stored_event(record, &event, variant)));
                }
                items.extend(
                    rulings
                        .iter()
                        .filter(|r| r.at >= from_seq)
                        .map(|r| Item::Ruling(ruling_to_proto(r, variant))),
                );
            }
        }
        Ok(items
            .into_iter()
            .map(|item| WatchGameResponse { item: Some(item) })
            .collect())
    }
}

/// Ends the console's stream as `stop` says, and says so in the server's log.
pub fn end(outbox: Outbox, stop: Stop, game: &str) {
    match stop {
        Stop::Stalled => {
            let resume = outbox.cut();
            tracing::info!(
                game,
                resume,
                "a watcher stopped reading; its stream is ended"
            );
        }
        Stop::Failed(e) => outbox.finish(Status::from(e)),
        Stop::Gone => {}
    }
}
