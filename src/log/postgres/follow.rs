//! Following a game: catch up on stored records, then yield each new one once committed.
//!
//! As with sled's `Follow`, a watcher keeps only a cursor and reads `cursor..=head` from the
//! tables whenever the head (see `heads`) is past it; heads that move while it is busy
//! coalesce into the latest, so a slow watcher cannot lag, skip or repeat. Each watcher is a
//! task feeding a channel of [`BUFFER`] records: one that is not read waits on the channel,
//! holding at most that and one chunk, and ends when its stream is dropped.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;

use super::super::{Error, Record};
use super::chain;
use super::connections::Connections;

/// Records read per query, so catching up on a long game does not load it whole.
const CHUNK: u64 = 256;
/// Records waiting in a watcher's channel.
const BUFFER: usize = 64;

/// The stream behind `watch`: records from `from` on, of a game whose head is followed by
/// `head`.
pub(super) fn start(
    connections: Arc<Connections>,
    game: &str,
    from: u64,
    head: watch::Receiver<u64>,
) -> ReceiverStream<Result<Record, Error>> {
    let (out, records) = mpsc::channel(BUFFER);
    let follower = Follower {
        connections,
        game: game.to_owned(),
        cursor: from,
        out,
    };
    tokio::spawn(follower.run(head));
    ReceiverStream::new(records)
}

struct Follower {
    connections: Arc<Connections>,
    game: String,
    /// The next seq to yield.
    cursor: u64,
    out: mpsc::Sender<Result<Record, Error>>,
}

impl Follower {
    async fn run(mut self, mut head: watch::Receiver<u64>) {
        loop {
            let last_seq = *head.borrow_and_update();
            if let Err(e) = self.catch_up(last_seq).await {
                // The watcher has gone (nothing to tell), or the read failed: say so, then end.
                if let Some(e) = e {
                    drop(self.out.send(Err(e)).await);
                }
                return;
            }
            tokio::select! {
                changed = head.changed() => {
                    if changed.is_err() {
                        // The log was dropped: say so once, then end.
                        drop(self.out.send(Err(Error::Closed)).await);
                        return;
                    }
                }
                () = self.out.closed() => return,
            }
        }
    }

    /// Yields every record from the cursor to `last_seq`, a chunk per query. `Err(None)`
    /// when the watcher has gone.
    async fn catch_up(&mut self, last_seq: u64) -> Result<(), Option<Error>> {
        while self.cursor <= last_seq {
            let end = last_seq.min(self.cursor.saturating_add(CHUNK - 1));
            for record in self.read(end).await.map_err(Some)? {
                self.cursor = record.seq + 1;
                self.out.send(Ok(record)).await.map_err(|_| None)?;
            }
        }
        Ok(())
    }

    /// Records from the cursor to `end`, verified against the chain and the stored head.
    async fn read(&self, end: u64) -> Result<Vec<Record>, Error> {
        let conn = self.connections.get().await?;
        let head = chain::head(&*conn, &self.game)
            .await?
            .ok_or_else(|| chain::loss(&self.game, self.cursor, "the game's head is missing"))?;
        // The head row is never behind what was published from it.
        let end = end.min(head.last_seq);
        let records = chain::read(&*conn, &self.game, self.cursor, end, &head).await?;
        conn.release();
        if records.is_empty() {
            return Err(chain::loss(&self.game, self.cursor, "record is missing"));
        }
        Ok(records)
    }
}
