//! A hall watcher's queue (`WatchGames`, the console's hall page): what waits to be sent to one
//! console, bounded in frames and in bytes, its bytes beyond a small reserve drawn from the
//! [`Budget`] every watcher shares, as a game watcher's [`super::outbox::Outbox`] is.
//!
//! A console that does not read fills its queue, and its feeder waits; after the lag allowed
//! the queue is cut: what waits in it is dropped at once, with the budget it held, and the
//! stream ends with the status it was given (or, for the page's event stream, simply ends: the
//! browser reconnects). Nothing is lost: a hall stream opens with a snapshot of every board.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_stream::Stream;

use super::outbox::{Budget, Held, Meter, NotPut};

/// The feeding side of one hall watcher's queue.
pub struct Metered<T> {
    lag: Duration,
    items: mpsc::Sender<Item<T>>,
    meter: Meter,
    shared: Arc<Mutex<Shared<T>>>,
}

/// The stream side, handed to the transport as the response body.
pub struct MeteredStream<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

/// An item and the bytes it holds until it is handed to the transport.
struct Item<T> {
    item: T,
    _held: Held,
}

struct Shared<T> {
    /// None once cut or hung up: what was queued is dropped with it.
    items: Option<mpsc::Receiver<Item<T>>>,
    /// The last item, once the queue is drained or cut.
    end: Option<T>,
    waker: Option<Waker>,
}

/// A queue of at most `capacity` items and `outbox::MAX_BYTES` for one hall watcher whose feeder
/// waits at most `lag` for room.
pub fn metered<T>(
    capacity: usize,
    lag: Duration,
    budget: &Budget,
) -> (Metered<T>, MeteredStream<T>) {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    let shared = Arc::new(Mutex::new(Shared {
        items: Some(rx),
        end: None,
        waker: None,
    }));
    let feeder = Metered {
        lag,
        items: tx,
        meter: Meter::new(budget),
        shared: Arc::clone(&shared),
    };
    (feeder, MeteredStream { shared })
}

impl<T> Metered<T> {
    /// Queues `item` of `size` bytes (as sent), waiting at most the lag for room.
    pub async fn send(&self, item: T, size: usize) -> Result<(), NotPut> {
        let room = async { (self.meter.room(size).await, self.items.reserve().await) };
        match tokio::time::timeout(self.lag, room).await {
            Err(_) => Err(NotPut::Stalled),
            Ok((Some(held), Ok(slot))) => {
                slot.send(Item { item, _held: held });
                Ok(())
            }
            Ok(_) => Err(NotPut::Gone),
        }
    }

    /// Completes once the console has hung up.
    pub async fn closed(&self) {
        self.items.closed().await;
    }

    /// Ends the stream, once the feeder is dropped and what is queued sent, with `last` as
    /// its final item.
    pub fn finish(&self, last: T) {
        self.shared().end = Some(last);
    }

    /// Drops what is queued, and the budget it held, and ends the stream with `last`.
    pub fn cut(&self, last: Option<T>) {
        let mut shared = self.shared();
        shared.items = None;
        shared.end = last;
        if let Some(waker) = shared.waker.take() {
            waker.wake();
        }
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, Shared<T>> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Stream for MeteredStream<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(items) = shared.items.as_mut() else {
            return Poll::Ready(shared.end.take());
        };
        match items.poll_recv(cx) {
            // The item's bytes go back to the queue and the budget here.
            Poll::Ready(Some(queued)) => Poll::Ready(Some(queued.item)),
            Poll::Ready(None) => {
                shared.items = None;
                Poll::Ready(shared.end.take())
            }
            Poll::Pending => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for MeteredStream<T> {
    /// The console hung up: drop what waits for it; the feeder sees the queue closed.
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.items = None;
    }
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::super::outbox::MAX_BYTES;
    use super::*;

    const LAG: Duration = Duration::from_millis(50);

    #[tokio::test]
    async fn a_reading_watcher_gets_everything_in_order_then_the_end() {
        let budget = Budget::new(MAX_BYTES);
        let (feeder, mut stream) = metered::<u32>(4, LAG, &budget);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(item) = stream.next().await {
                got.push(item);
            }
            got
        });
        for i in 0..100 {
            feeder.send(i, 10_000).await.unwrap();
        }
        feeder.finish(999);
        drop(feeder);
        let got = reader.await.unwrap();
        assert_eq!(got.len(), 101);
        assert_eq!(got[..100], (0..100).collect::<Vec<_>>()[..]);
        assert_eq!(got[100], 999);
    }

    #[tokio::test]
    async fn a_stalled_watcher_is_cut_after_the_lag_and_frees_the_budget() {
        // The budget's least is one queue's worth; two stalled watchers share it.
        let budget = Budget::new(MAX_BYTES);
        let (first, mut first_stream) = metered::<u32>(1_000, LAG, &budget);
        let (second, _second_stream) = metered::<u32>(1_000, LAG, &budget);
        // The first fills its own 1 MiB: its reserve, then the budget's.
        let mut sent = 0;
        while first.send(sent, 64 * 1024).await.is_ok() {
            sent += 1;
        }
        assert_eq!(sent, 16, "1 MiB of 64 KiB items");
        // Beyond its 64 KiB reserve the first drew 15 x 64 KiB of the budget's 16. The
        // second has its reserve and the last 64 KiB of the budget, then waits, and is told
        // it stalled.
        assert_eq!(second.send(0, 64 * 1024).await, Ok(()));
        assert_eq!(second.send(1, 64 * 1024).await, Ok(()));
        assert_eq!(second.send(2, 64 * 1024).await, Err(NotPut::Stalled));
        // Cutting the first frees what it held at once: the second gets room again.
        first.cut(Some(u32::MAX));
        assert_eq!(second.send(2, 64 * 1024).await, Ok(()));
        // The first's console, reading at last, gets only the last word.
        assert_eq!(first_stream.next().await, Some(u32::MAX));
        assert_eq!(first_stream.next().await, None);
    }

    #[tokio::test]
    async fn a_watcher_that_hangs_up_is_seen_gone() {
        let budget = Budget::new(MAX_BYTES);
        let (feeder, stream) = metered::<u32>(4, LAG, &budget);
        drop(stream);
        feeder.closed().await;
        assert_eq!(feeder.send(1, 10).await, Err(NotPut::Gone));
    }
}
