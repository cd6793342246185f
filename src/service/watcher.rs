//! A watcher: one console following one game. Its task takes each record and its rulings
//! from the live referee's feed (one fold per event, however many consoles watch). What
//! happened before the console subscribed, or while it was too far behind for the feed to
//! hold, it catches up on from the store, folding the log once from the header.
//!
//! Nothing on the way grows with the console's backlog: the log is read in chunks of
//! [`CHUNK`] records, one record is folded at a time, the feed holds a bounded number of
//! records for all watchers, and the outbox is bounded. A console that does not read is cut
//! after the lag allowed and told where to resume; its task and its outbox are dropped then,
//! or as soon as the console hangs up.
//!
//! On a log several instances share, the log's head for the game (notified, or polled)
//! brings this instance's live fold up to date (see `bring_up_to_date`), so a console sees
//! what any instance stored from the same one fold.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::broadcast::{self, error::RecvError};
use tonic::Status;

use crate::log::{self, Log, Record};
use crate::stored::Fold;

use super::feed::Published;
use super::live::LiveGames;
use super::outbox::{NotPut, Outbox};
use super::proto::WatchGameResponse;
use super::proto::watch_game_response::Item;
use super::{Error, header_to_proto};

/// Records read from the store at a time while catching up: with 64 KiB bodies at most,
/// a chunk holds 1 MiB.
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

/// Where a console is: what it asked for, and the next seq it is to be sent.
struct Cursor<'a> {
    game: &'a str,
    from_seq: u64,
    next: u64,
}

/// Feeds `outbox` with `game` from `from_seq` on, live, until the console stops reading,
/// hangs up, or the log fails.
pub async fn feed<L: Log>(live: &LiveGames<L>, game: &str, from_seq: u64, outbox: &Outbox) -> Stop {
    let mut cursor = Cursor {
        game,
        from_seq,
        next: from_seq,
    };
    let following = async {
        loop {
            if let Err(stop) = follow(live, &mut cursor, outbox).await {
                return stop;
            }
        }
    };
    match live.log().head(game) {
        None => following.await,
        Some(head) => tokio::select! {
            stop = following => stop,
            stop = bring_up_to_date(live, game, head) => stop,
        },
    }
}

/// On a log other instances write too, this instance's live fold learns of their appends
/// only when asked: each new head the log reports (a notification, or its poll) brings the
/// fold up to date, which publishes the records it missed on the feed the watcher follows.
/// So a game is folded once per instance, however many consoles watch it.
async fn bring_up_to_date<L: Log>(
    live: &LiveGames<L>,
    game: &str,
    mut head: tokio::sync::watch::Receiver<u64>,
) -> Stop {
    loop {
        // The head known now first (another watcher of the game may have made it known),
        // then each change.
        let seq = *head.borrow_and_update();
        if let Err(e) = live.heard(game, seq).await {
            return Stop::Failed(e);
        }
        if head.changed().await.is_err() {
            return Stop::Failed(log::Error::Closed.into());
        }
    }
}

/// Subscribes to the live feed, catches up from the store on what came before it, then
/// passes on the feed until it cannot be followed without a gap (the watcher fell more than
/// the feed holds behind, or the game was reloaded): then returns, to subscribe again.
async fn follow<L: Log>(
    live: &LiveGames<L>,
    cursor: &mut Cursor<'_>,
    outbox: &Outbox,
) -> Result<(), Stop> {
    // Subscribing under the game's lock: every record after `live_seq` comes on the feed.
    let (mut feed, live_seq) = live.lock(cursor.game).await?.subscribe();
    if cursor.next <= live_seq {
        catch_up(live.log(), cursor, live_seq, outbox).await?;
    }
    pass_on(&mut feed, cursor, outbox).await
}

/// Sends what the feed publishes, in seq order, until it has a gap for this console.
async fn pass_on(
    feed: &mut broadcast::Receiver<Arc<Published>>,
    cursor: &mut Cursor<'_>,
    outbox: &Outbox,
) -> Result<(), Stop> {
    loop {
        let published = match feed.recv().await {
            Ok(published) => published,
            Err(RecvError::Lagged(_) | RecvError::Closed) => return Ok(()),
        };
        if published.seq < cursor.next {
            continue;
        }
        if published.seq > cursor.next {
            return Ok(());
        }
        outbox
            .put(published.seq, published.items(cursor.from_seq))
            .await?;
        cursor.next = published.seq + 1;
    }
}

/// Folds the stored game from its header through `to`, sending what the console has not
/// been sent yet.
async fn catch_up<L: Log>(
    log: &L,
    cursor: &mut Cursor<'_>,
    to: u64,
    outbox: &Outbox,
) -> Result<(), Stop> {
    let mut fold: Option<Fold> = None;
    let mut at = 0;
    while at <= to {
        let chunk = log
            .read(cursor.game, at, Some(to.min(at.saturating_add(CHUNK - 1))))
            .await??;
        let Some(last) = chunk.last() else { break };
        at = last.seq + 1;
        for record in &chunk {
            let items = step(&mut fold, record, cursor)?;
            if record.seq >= cursor.next {
                if !items.is_empty() {
                    outbox.put(record.seq, items).await?;
                }
                cursor.next = record.seq + 1;
            }
        }
    }
    Ok(())
}

/// Folds `record`; returns its items if the console is still to be sent it.
fn step(
    fold: &mut Option<Fold>,
    record: &Record,
    cursor: &Cursor<'_>,
) -> Result<Vec<WatchGameResponse>, Error> {
    let from_seq = cursor.from_seq;
    match fold {
        None => {
            let started = Fold::start(record)?;
            let header = header_to_proto(started.referee.header());
            *fold = Some(started);
            let item = WatchGameResponse {
                item: Some(Item::Header(header)),
            };
            Ok(if cursor.next == 0 { vec![item] } else { vec![] })
        }
        Some(fold) if record.seq < cursor.next => {
            fold.step(record)?;
            Ok(Vec::new())
        }
        Some(fold) => {
            let (event, step) = fold.step(record)?;
            Ok(Published::new(record, &event, &step, &fold.referee).items(from_seq))
        }
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
