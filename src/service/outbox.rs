//! A watcher's outbox: what waits to be sent to one console, bounded in parcels and in bytes.
//!
//! The feeding task puts one parcel per record (the event and the rulings it gave rise to).
//! When the console does not read, the outbox fills and the feeder waits; if it has waited
//! longer than the lag allowed, the outbox is cut: what waits in it is dropped at once (the
//! console could take minutes to read it, or never) and the stream ends by telling the console
//! the first seq it was not sent. The game itself stays in the log, so nothing is lost: the
//! console reopens from that seq.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use prost::Message;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_stream::Stream;
use tonic::Status;

use super::Error;
use super::proto::WatchGameResponse;

/// Most parcels waiting for one watcher: a burst of moves (a move's parcel is well under
/// 1 KiB) without a wake-up per record.
pub const MAX_PARCELS: usize = 64;
/// Most bytes (encoded) waiting for one watcher: the largest request the service takes, so
/// 100 stalled consoles hold at most ~100 MiB here even if every event is a 64 KiB one.
pub const MAX_BYTES: usize = 1024 * 1024;

/// What each watcher may hold without drawing on the shared [`Budget`]: a console that reads
/// keeps its outbox far below this, so the budget stalled consoles exhaust never slows it.
pub const RESERVE_BYTES: usize = 64 * 1024;

/// The default of [`Budget`]: what all watchers together may hold beyond their reserves
/// (`serve --watchers-memory-mb`).
pub const DEFAULT_BUDGET_BYTES: usize = 256 * 1024 * 1024;

/// Bytes all watchers' outboxes share beyond each one's [`RESERVE_BYTES`]: without it, every
/// stalled console held up to [`MAX_BYTES`], and with access control off (no per-token stream
/// limit) 300 stalled consoles held 490 MB. A watcher that cannot get its share within the
/// lag is cut like any stalled one, and the budget it held is free at once.
#[derive(Clone)]
pub struct Budget {
    bytes: Arc<Semaphore>,
}

impl Budget {
    /// A budget of `total` bytes, at least one outbox's [`MAX_BYTES`].
    pub fn new(total: usize) -> Budget {
        let total = total.clamp(MAX_BYTES, Semaphore::MAX_PERMITS);
        Budget {
            bytes: Arc::new(Semaphore::new(total)),
        }
    }

    pub(super) async fn take(
        &self,
        size: u32,
    ) -> Result<OwnedSemaphorePermit, tokio::sync::AcquireError> {
        Arc::clone(&self.bytes).acquire_many_owned(size).await
    }
}

/// One watcher's bytes: at most [`MAX_BYTES`], those beyond its [`RESERVE_BYTES`] drawn from
/// the [`Budget`] all watchers share. Used by a game's outbox and by a hall stream's queue
/// (`metered`), one feeder each.
pub struct Meter {
    bytes: Arc<Semaphore>,
    budget: Budget,
}

/// The bytes an item holds until the transport takes it: dropped, they are free again.
pub struct Held {
    _bytes: OwnedSemaphorePermit,
    _shared: Option<OwnedSemaphorePermit>,
}

impl Meter {
    pub fn new(budget: &Budget) -> Meter {
        Meter {
            bytes: Arc::new(Semaphore::new(MAX_BYTES)),
            budget: budget.clone(),
        }
    }

    /// Waits for room for `size` bytes (an item larger than [`MAX_BYTES`] still goes, alone).
    /// `None` only if the budget was closed, which it never is.
    pub async fn room(&self, size: usize) -> Option<Held> {
        let size = u32::try_from(size.clamp(1, MAX_BYTES)).expect("MAX_BYTES fits in u32");
        let bytes = Arc::clone(&self.bytes)
            .acquire_many_owned(size)
            .await
            .ok()?;
        // One feeder per meter: what it holds cannot change under it here.
        let held = MAX_BYTES - self.bytes.available_permits();
        let shared = if held > RESERVE_BYTES {
            Some(self.budget.take(size).await.ok()?)
        } else {
            None
        };
        Some(Held {
            _bytes: bytes,
            _shared: shared,
        })
    }
}

/// The feeding side of one watcher's outbox.
pub struct Outbox {
    game: String,
    lag: Duration,
    parcels: mpsc::Sender<Parcel>,
    meter: Meter,
    shared: Arc<Mutex<Shared>>,
}

/// The stream side, handed to tonic as the response.
pub struct OutboxStream {
    shared: Arc<Mutex<Shared>>,
    /// The items of the parcel being sent.
    current: std::vec::IntoIter<WatchGameResponse>,
}

/// A record's items and the bytes they hold in the outbox.
struct Parcel {
    seq: u64,
    items: Vec<WatchGameResponse>,
    _held: Held,
}

struct Shared {
    /// None once cut: the queued parcels are dropped with the receiver.
    parcels: Option<mpsc::Receiver<Parcel>>,
    /// The first seq not yet handed to tonic: where a cut watcher resumes.
    next_unsent: u64,
    /// The status that ends the stream, once the queue is drained (or cut).
    end: Option<Status>,
    /// The stream's task, to wake when the outbox is cut under it.
    waker: Option<Waker>,
}

/// Why a parcel was not put in the outbox.
#[derive(Debug, PartialEq, Eq)]
pub enum NotPut {
    /// The console did not make room within the lag allowed.
    Stalled,
    /// The console hung up.
    Gone,
}

impl Outbox {
    /// An outbox for a watcher of `game` that starts at `from_seq`, and its stream.
    pub fn new(
        game: &str,
        from_seq: u64,
        lag: Duration,
        budget: &Budget,
    ) -> (Outbox, OutboxStream) {
        let (tx, rx) = mpsc::channel(MAX_PARCELS);
        let shared = Arc::new(Mutex::new(Shared {
            parcels: Some(rx),
            next_unsent: from_seq,
            end: None,
            waker: None,
        }));
        let outbox = Outbox {
            game: game.to_owned(),
            lag,
            parcels: tx,
            meter: Meter::new(budget),
            shared: Arc::clone(&shared),
        };
        let stream = OutboxStream {
            shared,
            current: Vec::new().into_iter(),
        };
        (outbox, stream)
    }

    /// Puts record `seq`'s items, waiting at most the lag allowed for room.
    pub async fn put(&self, seq: u64, items: Vec<WatchGameResponse>) -> Result<(), NotPut> {
        let size = items.iter().map(Message::encoded_len).sum::<usize>();
        let room = async { (self.meter.room(size).await, self.parcels.reserve().await) };
        match tokio::time::timeout(self.lag, room).await {
            Err(_) => Err(NotPut::Stalled),
            Ok((Some(held), Ok(slot))) => {
                slot.send(Parcel {
                    seq,
                    items,
                    _held: held,
                });
                Ok(())
            }
            Ok(_) => Err(NotPut::Gone),
        }
    }

    /// Completes once the console has hung up (its stream was dropped).
    pub async fn gone(&self) {
        self.parcels.closed().await;
    }

    /// Ends the stream after what is queued, with `status`.
    pub fn finish(self, status: Status) {
        self.shared().end = Some(status);
        // Dropping `self.parcels` closes the queue: the stream drains it, then ends.
    }

    /// Drops what is queued and ends the stream with "fell behind at seq N"; returns N.
    pub fn cut(self) -> u64 {
        let mut shared = self.shared();
        let resume = shared.next_unsent;
        shared.parcels = None;
        let behind = Error::FellBehind {
            game: self.game.clone(),
            resume,
        };
        shared.end = Some(behind.into());
        if let Some(waker) = shared.waker.take() {
            waker.wake();
        }
        resume
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Stream for OutboxStream {
    type Item = Result<WatchGameResponse, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(item) = this.current.next() {
            return Poll::Ready(Some(Ok(item)));
        }
        let mut shared = this.shared.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(parcels) = shared.parcels.as_mut() else {
            return Poll::Ready(shared.end.take().map(Err));
        };
        match parcels.poll_recv(cx) {
            Poll::Ready(Some(parcel)) => {
                shared.next_unsent = parcel.seq + 1;
                this.current = parcel.items.into_iter();
                drop(shared);
                Poll::Ready(this.current.next().map(Ok))
            }
            Poll::Ready(None) => {
                shared.parcels = None;
                Poll::Ready(shared.end.take().map(Err))
            }
            Poll::Pending => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for OutboxStream {
    /// The console hung up: drop what waits for it, and let the feeder see it is gone (the
    /// receiver lives in `Shared`, which the feeder holds too).
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.parcels = None;
    }
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::super::proto::watch_game_response::Item;
    use super::super::proto::{GameHeader, WatchGameResponse};
    use super::*;

    /// Short: the tests wait it out in real time.
    const LAG: Duration = Duration::from_millis(50);

    fn items(id: &str) -> Vec<WatchGameResponse> {
        let header = GameHeader {
            id: id.into(),
            ..Default::default()
        };
        vec![WatchGameResponse {
            item: Some(Item::Header(header)),
        }]
    }

    #[tokio::test]
    async fn a_full_outbox_stalls_then_is_cut_with_the_first_unsent_seq() {
        let (outbox, mut stream) = Outbox::new("g", 1, LAG, &Budget::new(DEFAULT_BUDGET_BYTES));
        for seq in 1..=u64::try_from(MAX_PARCELS).expect("fits") {
            outbox.put(seq, items("x")).await.expect("room");
        }
        stream.next().await.expect("first").expect("ok");
        stream.next().await.expect("second").expect("ok");
        outbox.put(65, items("x")).await.expect("room for one");
        outbox.put(66, items("x")).await.expect("room for another");
        assert_eq!(outbox.put(67, items("x")).await, Err(NotPut::Stalled));
        assert_eq!(outbox.cut(), 3, "seqs 1 and 2 were taken");
        let end = stream.next().await.expect("the end").expect_err("a status");
        assert_eq!(end.code(), tonic::Code::Aborted);
        assert!(end.message().contains("from_seq 3"), "{}", end.message());
        let resume = end.metadata().get(super::super::error::RESUME_FROM_SEQ);
        assert_eq!(resume.and_then(|v| v.to_str().ok()), Some("3"));
        assert!(stream.next().await.is_none(), "nothing after the status");
    }

    #[tokio::test]
    async fn bytes_bound_the_outbox_as_well_as_parcels() {
        let (outbox, mut stream) = Outbox::new("g", 0, LAG, &Budget::new(DEFAULT_BUDGET_BYTES));
        let big = "x".repeat(MAX_BYTES / 4);
        let mut put = 0;
        while outbox.put(put, items(&big)).await.is_ok() {
            put += 1;
        }
        assert!(put < 4, "{put} parcels of a quarter MiB each fit in 1 MiB");
        stream.next().await.expect("one").expect("ok");
        outbox
            .put(put, items(&big))
            .await
            .expect("room again once one is taken");
    }

    #[tokio::test]
    async fn finish_delivers_what_is_queued_then_the_status() {
        let (outbox, mut stream) = Outbox::new("g", 0, LAG, &Budget::new(DEFAULT_BUDGET_BYTES));
        outbox.put(0, items("a")).await.expect("room");
        outbox.finish(Status::unavailable("shutting down"));
        stream.next().await.expect("queued item").expect("ok");
        let end = stream.next().await.expect("status").expect_err("status");
        assert_eq!(end.code(), tonic::Code::Unavailable);
        assert!(stream.next().await.is_none());
    }

    #[tokio::test]
    async fn a_dropped_stream_is_gone_not_stalled() {
        let (outbox, stream) = Outbox::new("g", 0, LAG, &Budget::new(DEFAULT_BUDGET_BYTES));
        drop(stream);
        outbox.gone().await;
        assert_eq!(outbox.put(0, items("a")).await, Err(NotPut::Gone));
    }

    /// ~20 KiB of items: 64 parcels of them are more than an outbox's 1 MiB.
    fn big(id: &str) -> Vec<WatchGameResponse> {
        items(&id.repeat(20 * 1024))
    }

    #[tokio::test]
    async fn stalled_outboxes_share_one_budget_and_a_reading_one_is_not_slowed() {
        // The smallest budget there is: one outbox's worth.
        let budget = Budget::new(0);
        let held = || MAX_BYTES - budget.bytes.available_permits();
        assert_eq!(held(), 0);
        let (first, _first_stream) = Outbox::new("a", 1, LAG, &budget);
        let mut seq = 0;
        // The first stalled outbox fills (parcels or bytes): its reserve, then the budget.
        while first.put(seq + 1, big("a")).await.is_ok() {
            seq += 1;
        }
        let held_by_first = held();
        assert!(
            held_by_first > 0,
            "beyond its reserve it drew on the budget"
        );
        // A second one gets its reserve, then waits for budget the first holds: it is cut
        // as stalled, holding no more than its reserve and what the budget had left.
        let (second, _second_stream) = Outbox::new("b", 1, LAG, &budget);
        let mut second_put = 0;
        while second.put(second_put + 1, big("b")).await.is_ok() {
            second_put += 1;
        }
        // Its reserve and the little the first left of the budget: 64 KiB + 64 KiB, in
        // parcels of 20 KiB (the first, alone, took ~1 MiB).
        assert!(
            second_put * 20 <= 2 * 64 + 20 && second_put * 4 < seq,
            "the second stalled outbox took {second_put} parcels, the first {seq}"
        );
        // A console that reads keeps its outbox within its reserve: never waits for budget.
        let (reading, mut read) = Outbox::new("c", 1, LAG, &budget);
        for n in 1..=50 {
            reading
                .put(n, big("c"))
                .await
                .expect("a reading watcher is not held up");
            read.next().await.expect("item").expect("ok");
        }
        // Cutting the first frees what it held of the budget at once.
        first.cut();
        assert!(held() < held_by_first, "{} >= {held_by_first}", held());
    }
}
