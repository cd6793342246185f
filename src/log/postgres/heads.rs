//! The last seq of each watched game as this instance knows it, and what keeps it fresh when
//! other instances append.
//!
//! Three sources move a head, all of them only forward and only after a COMMIT returned:
//! - this instance's own appends, published at once;
//! - PostgreSQL's NOTIFY: after each group of appends committed, the writing instance runs
//!   `pg_notify('referee_log', 'SEQ GAME')` per game (see `notify`), which the server delivers
//!   to every session that LISTENs, one connection per instance (a wake-up only: a
//!   notification may be lost while a connection is down);
//! - a poll of the watched games' head rows every [`POLL`], which is all there is on engines
//!   without LISTEN/NOTIFY (CockroachDB), and catches whatever a lost notification missed.
//!
//! So a watcher sees a record committed by any instance within [`POLL`] at worst.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;
use tokio_postgres::AsyncMessage;

use super::connections::Connections;
use super::{Error, failed};

/// The channel every instance LISTENs on and `notify` NOTIFYs (written out again in
/// `schema::APPEND_BATCH`, for referees of version 1).
pub(super) const CHANNEL: &str = "referee_log";
/// How often the watched games' heads are read even without a notification.
pub(super) const POLL: Duration = Duration::from_millis(500);
/// Wait before reconnecting the listener after its connection failed: short, since until it
/// listens again only the poll wakes watchers; not zero, so a server that keeps cutting it is
/// not hammered.
const RECONNECT: Duration = Duration::from_millis(200);
/// Polls a listener that could not connect waits before it tries again (about 10 s).
const DEAF_POLLS: u32 = 20;

/// Each watched game's last seq known committed. A game's entry goes when its last watcher
/// has gone (at the next poll).
pub(super) struct Heads {
    games: Mutex<HashMap<String, watch::Sender<u64>>>,
    /// Every game's new head as this instance learns it (its own appends and NOTIFY), for the
    /// hall: see [`Log::changes`](super::super::Log::changes).
    all: broadcast::Sender<(String, u64)>,
}

/// Heads the `all` channel holds for a slow reader; one further behind misses some, and
/// catches up at the game's next event.
const ALL_HEADS: usize = 4096;

impl Default for Heads {
    fn default() -> Heads {
        Heads {
            games: Mutex::default(),
            all: broadcast::Sender::new(ALL_HEADS),
        }
    }
}

impl Heads {
    /// Every head from now on, of every game.
    pub fn changes(&self) -> broadcast::Receiver<(String, u64)> {
        self.all.subscribe()
    }

    /// A receiver of the game's head, starting at `last_seq` or a later head already known.
    pub fn subscribe(&self, game: &str, last_seq: u64) -> watch::Receiver<u64> {
        let mut games = self.games.lock().unwrap_or_else(PoisonError::into_inner);
        let sender = games
            .entry(game.to_owned())
            .or_insert_with(|| watch::Sender::new(last_seq));
        sender.send_if_modified(|head| raise(head, last_seq));
        sender.subscribe()
    }

    /// Moves a game's head forward (never back), waking its watchers.
    pub fn publish(&self, game: &str, last_seq: u64) {
        if self.all.receiver_count() > 0 {
            // An error means nobody follows every game: nothing to tell.
            let _ = self.all.send((game.to_owned(), last_seq));
        }
        let games = self.games.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = games.get(game) {
            sender.send_if_modified(|head| raise(head, last_seq));
        }
    }

    /// The games someone watches, forgetting those nobody watches any more.
    fn watched(&self) -> Vec<String> {
        let mut games = self.games.lock().unwrap_or_else(PoisonError::into_inner);
        games.retain(|_, sender| sender.receiver_count() > 0);
        games.keys().cloned().collect()
    }
}

fn raise(head: &mut u64, last_seq: u64) -> bool {
    let moved = last_seq > *head;
    if moved {
        *head = last_seq;
    }
    moved
}

/// A connection LISTENing on [`CHANNEL`], and what it hears.
pub(super) struct Listener {
    /// `None` on an engine without LISTEN, or while the database cannot be reached.
    client: Option<tokio_postgres::Client>,
    bells: mpsc::UnboundedReceiver<Bell>,
}

impl Listener {
    /// Whether this engine delivers notifications: if not, appends must not call pg_notify.
    pub fn hears(&self) -> bool {
        self.client.is_some()
    }

    /// A listener that hears nothing: polling alone, until the next attempt to listen.
    fn deaf() -> Listener {
        let (_, bells) = mpsc::unbounded_channel();
        Listener {
            client: None,
            bells,
        }
    }
}

/// Keeps `heads` fresh until it is dropped (the `PgLog` is gone): takes each notification
/// `listener` hears, polls the watched games' heads every [`POLL`], and listens again on a
/// new connection when the listener's fails.
pub(super) async fn keep_fresh(
    heads: Weak<Heads>,
    connections: Arc<Connections>,
    mut listener: Listener,
) {
    loop {
        let Some(()) = follow_bells(&heads, &connections, &mut listener).await else {
            return;
        };
        tokio::time::sleep(RECONNECT).await;
        listener = match listen(&connections).await {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!(error = %e, "postgres listener cannot connect; polling only");
                Listener::deaf()
            }
        };
    }
}

/// Publishes what `listener` hears and polls every [`POLL`] besides; returns when the
/// listener's connection is lost (or, for a deaf listener, after [`DEAF_POLLS`] polls, to try
/// listening again), and `None` when the log is gone.
async fn follow_bells(
    heads: &Weak<Heads>,
    connections: &Arc<Connections>,
    listener: &mut Listener,
) -> Option<()> {
    let mut polls_left = if listener.hears() {
        None
    } else {
        Some(DEAF_POLLS)
    };
    let mut next_poll = Instant::now() + POLL;
    loop {
        match tokio::time::timeout_at(next_poll, listener.bells.recv()).await {
            Ok(Some(Bell::Head(game, seq))) => {
                heads.upgrade()?.publish(&game, seq);
                continue;
            }
            Ok(Some(Bell::Lost)) => return Some(()),
            // A deaf listener's channel is closed from the start.
            Ok(None) => tokio::time::sleep_until(next_poll).await,
            Err(_) => {}
        }
        if let Err(e) = poll(&*heads.upgrade()?, connections).await {
            tracing::warn!(error = %e, "polling postgres heads failed");
        }
        next_poll = Instant::now() + POLL;
        if let Some(left) = polls_left.as_mut() {
            *left -= 1;
            if *left == 0 {
                return Some(());
            }
        }
    }
}

/// What the listener's connection reports.
enum Bell {
    /// A committed append: the game's new last seq.
    Head(String, u64),
    /// The connection ended: notifications may be lost until a new one listens.
    Lost,
}

/// Connects and LISTENs; a listener that hears nothing on an engine without LISTEN (polling
/// is then all there is).
pub(super) async fn listen(connections: &Connections) -> Result<Listener, Error> {
    let (client, mut connection) = connections
        .connect_unpooled()
        .await
        .map_err(|e| failed("connecting the listener", e))?;
    let (bell, bells) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            match message {
                Ok(AsyncMessage::Notification(note)) => {
                    if let Some(head) = parse(note.payload()) {
                        drop(bell.send(head));
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "postgres listener connection failed");
                    break;
                }
            }
        }
        drop(bell.send(Bell::Lost));
    });
    match client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
        Ok(()) => Ok(Listener {
            client: Some(client),
            bells,
        }),
        Err(e) if e.as_db_error().is_some() => {
            tracing::info!(error = %e, "postgres engine has no LISTEN; polling heads only");
            Ok(Listener::deaf())
        }
        Err(e) => Err(failed("listening", e)),
    }
}

/// Reads the payload `referee_append_batch` gives `pg_notify`: `SEQ GAME` (seq first: a game
/// id may hold spaces).
fn parse(payload: &str) -> Option<Bell> {
    let (seq, game) = payload.split_once(' ')?;
    Some(Bell::Head(game.to_owned(), seq.parse().ok()?))
}

/// Reads the heads of the watched games in one query and publishes them.
async fn poll(heads: &Heads, connections: &Arc<Connections>) -> Result<(), Error> {
    let games = heads.watched();
    if games.is_empty() {
        return Ok(());
    }
    let conn = connections.get().await?;
    let rows = conn
        .query(
            "SELECT game, last_seq FROM referee_heads WHERE game = ANY($1)",
            &[&games],
        )
        .await
        .map_err(|e| failed("polling heads", e))?;
    conn.release();
    for row in rows {
        if let Ok(seq) = u64::try_from(row.get::<_, i64>(1)) {
            heads.publish(row.get(0), seq);
        }
    }
    Ok(())
}
