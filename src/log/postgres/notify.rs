//! Telling other instances that games moved: `pg_notify` AFTER the appends are acknowledged,
//! on a connection of its own, in a transaction of its own.
//!
//! A notification is a wake-up, not data (a watcher reads the records from the tables, and
//! each instance also polls its watched heads; see `heads`), so it need not share the appends'
//! transaction. Keeping it out of there matters for speed: a transaction that notifies takes
//! PostgreSQL's notify lock at commit and holds it through its WAL flush, so every group of
//! appends that notified committed one after the other, and the notification cost about a
//! tenth of a millisecond of each one-board append's acknowledgement (BENCHMARKS.md, issue 33).
//! Here the heads of the groups committed are gathered (the latest seq of each game) and sent
//! in one statement at most every [`EVERY`], while the next groups are being written; the
//! session commits with `synchronous_commit = off`, since losing a notification in a crash
//! loses no data.
//!
//! A notification is sent only after its records were committed, so another instance woken
//! by it always finds them. If the connection fails, the notifications of that moment are
//! lost (watchers elsewhere then see the records at their next poll, within `heads::POLL`),
//! and the next ones connect again.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::connections::Connections;
use super::heads::CHANNEL;

/// Heads sent in one statement at most; more wait for the next.
const MOST: usize = 4096;
/// The shortest time between two notifying statements: heads committed meanwhile are
/// gathered into the next. With one busy board each append would otherwise cost a statement
/// of its own, and the statements, the server's wake-ups of every listening instance and
/// their replies competed with the appends for the CPU; other instances' watchers hear of a
/// record at most this much later.
const EVERY: std::time::Duration = std::time::Duration::from_millis(5);

/// The sending side: where committed heads are handed over.
pub(super) struct Notifier {
    queue: mpsc::UnboundedSender<(String, u64)>,
}

impl Notifier {
    /// Starts the task that notifies; it ends when the notifier is dropped.
    pub fn start(connections: Arc<Connections>) -> Notifier {
        let (queue, heads) = mpsc::unbounded_channel();
        tokio::spawn(run(connections, heads));
        Notifier { queue }
    }

    /// `game`'s last seq is now `last_seq`, committed.
    pub fn tell(&self, game: &str, last_seq: u64) {
        // The task has gone only when the log is being dropped: nobody left to tell.
        drop(self.queue.send((game.to_owned(), last_seq)));
    }
}

async fn run(connections: Arc<Connections>, mut heads: mpsc::UnboundedReceiver<(String, u64)>) {
    let mut session: Option<Session> = None;
    let mut failing = false;
    let mut sent = tokio::time::Instant::now();
    while let Some(first) = heads.recv().await {
        tokio::time::sleep_until(sent + EVERY).await;
        sent = tokio::time::Instant::now();
        let mut latest: HashMap<String, u64> = HashMap::new();
        latest.insert(first.0, first.1);
        while latest.len() < MOST
            && let Ok((game, seq)) = heads.try_recv()
        {
            let known = latest.entry(game).or_insert(seq);
            *known = (*known).max(seq);
        }
        match send(&connections, &mut session, latest).await {
            Ok(()) => failing = false,
            Err(e) => {
                // Said once per run of failures, not once per group.
                if !failing {
                    tracing::warn!(
                        error = %e,
                        "postgres: could not notify other instances of appends; their \
                         watchers see them at their next poll of the heads"
                    );
                }
                failing = true;
                session = None;
            }
        }
    }
}

/// The notifying connection and its statement, prepared once.
struct Session {
    client: tokio_postgres::Client,
    notify: tokio_postgres::Statement,
}

async fn send(
    connections: &Connections,
    session: &mut Option<Session>,
    latest: HashMap<String, u64>,
) -> Result<(), tokio_postgres::Error> {
    let open = match session.take() {
        Some(open) if !open.client.is_closed() => open,
        _ => connect(connections).await?,
    };
    let (games, seqs): (Vec<String>, Vec<i64>) = latest
        .into_iter()
        .map(|(game, seq)| (game, i64::try_from(seq).unwrap_or(i64::MAX)))
        .unzip();
    open.client
        .execute(&open.notify, &[&CHANNEL, &games, &seqs])
        .await?;
    *session = Some(open);
    Ok(())
}

async fn connect(connections: &Connections) -> Result<Session, tokio_postgres::Error> {
    let (client, connection) = connections.connect_unpooled().await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "postgres notifying connection ended");
        }
    });
    // This session writes no data: only its notifications, which need not survive a crash.
    client.batch_execute("SET synchronous_commit = off").await?;
    // The payload `heads::parse` reads: `SEQ GAME`.
    let notify = client
        .prepare(
            "SELECT pg_notify($1, n.seq || ' ' || n.game) \
             FROM unnest($2::text[], $3::bigint[]) AS n(game, seq)",
        )
        .await?;
    Ok(Session { client, notify })
}
