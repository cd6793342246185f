//! Following a game's log: catch up on stored records, then yield each new one as it becomes
//! durable.
//!
//! The writer publishes each game's durable head on a `tokio::sync::watch` channel. A watcher
//! keeps only a cursor: whenever the head is past it, it reads `cursor..=head` from storage.
//! Heads that change while it is busy coalesce into the latest, and the records come from
//! the store, not the channel, so a slow watcher cannot lag, skip or repeat.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::watch;
use tokio_stream::Stream;
use tokio_stream::wrappers::WatchStream;

use super::chain::Chain;
use super::layout::Head;
use super::{Error, Record};

/// Records read per storage visit, so catching up on a long game does not load it whole.
const CHUNK: u64 = 1024;

/// The stream behind `Log::watch`.
pub(super) struct Follow {
    tree: sled::Tree,
    game: String,
    number: u64,
    /// The next seq to yield.
    cursor: u64,
    /// The latest durable head seen.
    head: Option<Head>,
    ready: VecDeque<Record>,
    heads: WatchStream<Head>,
    done: bool,
}

impl Follow {
    pub fn new(
        tree: sled::Tree,
        game: &str,
        number: u64,
        from: u64,
        head: watch::Receiver<Head>,
    ) -> Self {
        Follow {
            tree,
            game: game.to_owned(),
            number,
            cursor: from,
            head: None,
            ready: VecDeque::new(),
            // `new` (not `from_changes`) yields the current head first: that starts the catch-up.
            heads: WatchStream::new(head),
            done: false,
        }
    }

    /// Reads the next chunk of records between the cursor and the head into `ready`.
    fn fill(&mut self, head: Head) -> Result<(), Error> {
        let end = head.last_seq.min(self.cursor.saturating_add(CHUNK - 1));
        let chain = Chain {
            tree: &self.tree,
            game: &self.game,
            number: self.number,
        };
        self.ready.extend(chain.read(self.cursor, end, &head)?);
        self.cursor = end + 1;
        Ok(())
    }

    fn behind(&self) -> Option<Head> {
        self.head.filter(|head| head.last_seq >= self.cursor)
    }
}

impl Stream for Follow {
    type Item = Result<Record, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(record) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(record)));
            }
            if this.done {
                return Poll::Ready(None);
            }
            if let Some(head) = this.behind() {
                if let Err(e) = this.fill(head) {
                    this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
                continue;
            }
            match Pin::new(&mut this.heads).poll_next(cx) {
                Poll::Ready(Some(head)) => this.head = Some(head),
                // The log was dropped: say so once, then end.
                Poll::Ready(None) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(Error::Closed)));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
