//! Live games: a cached referee per game, kept in step with the log, and its feed to the
//! game's watchers.
//!
//! Each game has its own async mutex, held across "append to the log, then apply to the
//! referee, then publish", so events are applied and published in seq order while the log's
//! group commit still batches appends of many games into one fsync.
//!
//! The cache is bounded ([`CacheLimits`]): a game unused for a while, or the least recently
//! used one when too many are loaded, is dropped and replayed from the log on its next use.
//! A game being used (locked, or waited for) or watched is never dropped: its watchers are fed
//! by its referee.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard, broadcast};

use crate::event::Event;
use crate::log::{HASH_LEN, Lease, Log, Record};
use crate::referee::Referee;
use crate::referee::Ruling;
use crate::stored::Fold;

use super::Error;
use super::feed::{Feed, Published, feed};

/// How many games the cache keeps, and for how long an unused one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// Most games kept loaded; past it the least recently used idle game is dropped.
    pub max_games: usize,
    /// A game unused this long is dropped.
    pub idle: Duration,
}

impl CacheLimits {
    /// 512 games (a large tournament's boards all live at once; a long game's referee is a
    /// few hundred KiB at most) and 10 minutes (a game adjourned longer is replayed when it
    /// resumes: a few milliseconds).
    pub const DEFAULT: CacheLimits = CacheLimits {
        max_games: 512,
        idle: Duration::from_secs(600),
    };
}

impl Default for CacheLimits {
    fn default() -> CacheLimits {
        CacheLimits::DEFAULT
    }
}

/// Idle games are looked for at most this often: not on every append of a busy server.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// A game's cached referee (None until loaded, or after an append whose outcome is unknown)
/// and its watchers' feed, which outlives reloads.
///
/// The feed exists only while someone watches: its ring of [`super::feed::FEED_RECORDS`]
/// slots is about 10 KiB, more than a live 40-move game's referee, and most games are never
/// watched. The first watcher makes it; it is dropped at the first use of the game after the
/// last watcher left, or with the game when the cache drops it.
pub struct Cached {
    game: Option<Fold>,
    /// This instance's claim on writing the game, on a log other instances share: taken at
    /// the first write after a load, dropped with the fold.
    lease: Option<Lease>,
    feed: Option<Feed>,
}

type Slot = Arc<AsyncMutex<Cached>>;

struct Entry {
    slot: Slot,
    last_use: Instant,
}

struct Entries {
    map: HashMap<String, Entry>,
    last_sweep: Instant,
}

/// What `ListGames` shows of a game, kept up to date as the live referee folds it. A cache,
/// never the truth: used only while its head is the log's head, re-derived by a replay
/// otherwise, and never read by an audit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub variant: &'static str,
    pub last_seq: u64,
    pub result: Option<&'static str>,
    pub head_hash: [u8; HASH_LEN],
}

impl Summary {
    pub fn of(fold: &Fold) -> Summary {
        let referee = &fold.referee;
        Summary {
            variant: referee.header().variant.name(),
            last_seq: referee.last_seq(),
            result: referee.ending().map(|e| e.result.as_str()),
            head_hash: fold.head_hash,
        }
    }
}

/// The cache of live games over a log.
/// Every game's stored events as the console's hall shows them: (game, frame). One channel
/// for all games, so one console connection follows a hall of boards.
pub type Hall = broadcast::Sender<Arc<super::console::HallFrame>>;

/// Frames the hall channel holds for a console that reads late; one further behind is sent
/// a fresh snapshot instead (150 boards at one event a second each is 10 s of slack).
const HALL_FRAMES: usize = 1536;

pub struct LiveGames<L: Log> {
    log: L,
    limits: CacheLimits,
    hall: Hall,
    entries: Mutex<Entries>,
    summaries: Mutex<HashMap<String, Summary>>,
    /// Whether the task that follows other instances' appends for the hall runs.
    following: AtomicBool,
    /// Hall watchers by the form they read (the console's JSON, `WatchGames`' proto): a
    /// frame is rendered only in the forms someone reads.
    hall_readers: [Arc<AtomicUsize>; 2],
}

/// The forms a hall frame is rendered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HallForms {
    pub json: bool,
    pub proto: bool,
}

impl HallForms {
    pub const JSON: HallForms = HallForms {
        json: true,
        proto: false,
    };
    pub const PROTO: HallForms = HallForms {
        json: false,
        proto: true,
    };
}

/// A hall watcher counted for as long as it reads (see [`LiveGames::hall`]).
pub struct HallReader(Arc<AtomicUsize>);

impl Drop for HallReader {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A live game, locked and loaded.
pub struct LiveGuard(OwnedMutexGuard<Cached>);

impl LiveGuard {
    pub fn fold(&self) -> &Fold {
        self.0.game.as_ref().expect("loaded by lock")
    }

    pub fn fold_mut(&mut self) -> &mut Fold {
        self.0.game.as_mut().expect("loaded by lock")
    }

    /// Drops the cached referee (not the feed) and any lease: the game is replayed on next
    /// use.
    pub fn unload(mut self) {
        self.0.game = None;
        self.0.lease = None;
    }

    /// The lease appends go under, if the log is shared (see [`LiveGames::lock_to_write`]).
    pub fn lease(&self) -> Option<Lease> {
        self.0.lease
    }

    /// Sends a record's items, made from the referee after it, to the game's watchers; made
    /// only if someone watches.
    pub fn publish(&mut self, published: impl FnOnce(&Referee) -> Published) {
        self.0.drop_unwatched_feed();
        if let (Some(feed), Some(game)) = (&self.0.feed, &self.0.game) {
            // An error means every watcher left meanwhile: nobody to tell.
            let _ = feed.send(Arc::new(published(&game.referee)));
        }
    }

    /// The feed from the next record on (made if nobody watched), and the last seq folded
    /// before it.
    pub fn subscribe(&mut self) -> (broadcast::Receiver<Arc<Published>>, u64) {
        let receiver = self.0.feed.get_or_insert_with(feed).subscribe();
        (receiver, self.fold().referee.last_seq())
    }

    /// Whether the game has a feed now (it should only while watched).
    #[cfg(test)]
    fn has_feed(&self) -> bool {
        self.0.feed.is_some()
    }
}

impl<L: Log> LiveGames<L> {
    pub fn new(log: L, limits: CacheLimits) -> LiveGames<L> {
        LiveGames {
            log,
            limits,
            hall: broadcast::channel(HALL_FRAMES).0,
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                last_sweep: Instant::now(),
            }),
            summaries: Mutex::new(HashMap::new()),
            following: AtomicBool::new(false),
            hall_readers: Default::default(),
        }
    }

    pub fn log(&self) -> &L {
        &self.log
    }

    /// The hall channel from the next stored event on, for a watcher that reads `form`
    /// (`HallForms::JSON` or `HallForms::PROTO`); every frame it receives carries that form
    /// while it holds the [`HallReader`]. On a shared log, the first hall watcher also starts
    /// following what other instances store (see [`LiveGames::heard`]).
    pub fn hall(
        self: &Arc<Self>,
        form: HallForms,
    ) -> (
        broadcast::Receiver<Arc<super::console::HallFrame>>,
        HallReader,
    ) {
        let count = &self.hall_readers[usize::from(form.proto)];
        count.fetch_add(1, Ordering::SeqCst);
        let reader = HallReader(Arc::clone(count));
        self.follow_other_instances();
        (self.hall.subscribe(), reader)
    }

    /// The forms the hall's watchers read now.
    fn hall_forms(&self) -> HallForms {
        let reading = |i: usize| self.hall_readers[i].load(Ordering::SeqCst) > 0;
        HallForms {
            json: reading(0),
            proto: reading(1),
        }
    }

    /// Starts, once, the task that brings each game another instance appends to up to date
    /// here while a console follows the hall; it ends when the cache (and its log) is dropped.
    fn follow_other_instances(self: &Arc<Self>) {
        let Some(mut changes) = self.log.changes() else {
            return;
        };
        if self.following.swap(true, Ordering::SeqCst) {
            return;
        }
        let live = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let (game, seq) = match changes.recv().await {
                    Ok(change) => change,
                    // Missed heads: those games catch up at their next event.
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Some(live) = live.upgrade() else {
                    return;
                };
                if !live.hall_watched() {
                    continue;
                }
                if let Err(e) = live.heard(&game, seq).await {
                    tracing::warn!(game, error = %e, "catching up a game another instance wrote");
                }
            }
        });
    }

    /// Whether a console follows the hall (frames are made only then).
    pub fn hall_watched(&self) -> bool {
        let forms = self.hall_forms();
        forms.json || forms.proto
    }

    /// Sends a game's new frame to every console following the hall.
    pub fn publish_hall(&self, frame: super::console::HallFrame) {
        // An error means every console left meanwhile: nobody to tell.
        let _ = self.hall.send(Arc::new(frame));
    }

    /// The game's live state, locked; loaded from the log (and replayed) when not cached.
    pub async fn lock(&self, game: &str) -> Result<LiveGuard, Error> {
        self.lock_checked(game, self.log.shared()).await
    }

    /// [`lock`](LiveGames::lock); with `fresh`, a game already cached is checked against the
    /// log's head and reloaded if another instance wrote it since.
    async fn lock_checked(&self, game: &str, fresh: bool) -> Result<LiveGuard, Error> {
        let slot = self.slot(game);
        let mut guard = slot.lock_owned().await;
        guard.drop_unwatched_feed();
        if guard.game.is_none() {
            match Fold::load(&self.log, game, None).await {
                Ok(fold) => {
                    self.note(game, &fold);
                    guard.game = Some(fold);
                }
                Err(e) => {
                    drop(guard);
                    self.forget(game);
                    return Err(e.into());
                }
            }
            return Ok(LiveGuard(guard));
        }
        let mut guard = LiveGuard(guard);
        if fresh {
            let head = self.log.info(game).await?.map_or(0, |info| info.last_seq);
            self.catch_up(&mut guard, game, head).await?;
        }
        Ok(guard)
    }

    /// On a shared log, brings a cached game up to `head` (another instance wrote it): the
    /// missing records are folded and published as if appended here, so the game's watchers
    /// and the hall see them. Any lease this instance had is gone then.
    async fn catch_up(&self, guard: &mut LiveGuard, game: &str, head: u64) -> Result<(), Error> {
        let last = guard.fold().referee.last_seq();
        if head == last {
            return Ok(());
        }
        guard.0.lease = None;
        if head < last {
            // The log is behind what was folded from it: only damage does that; refold.
            return self.reload(guard, game).await;
        }
        let records = self.log.read(game, last + 1, Some(head)).await??;
        let header = guard.fold().referee.header();
        let events = records
            .iter()
            .map(|record| crate::stored::read_event(record, header))
            .collect::<Result<Vec<Event>, _>>()?;
        self.apply(guard, game, &records, &events);
        Ok(())
    }

    /// On a shared log, when another instance's append to `game` is heard: the game is
    /// brought up to `seq` (loaded first if it is not cached), publishing what it missed.
    pub async fn heard(&self, game: &str, seq: u64) -> Result<(), Error> {
        let mut guard = self.lock_checked(game, false).await?;
        if guard.fold().referee.last_seq() < seq {
            let head = self.log.info(game).await?.map_or(0, |info| info.last_seq);
            self.catch_up(&mut guard, game, head.max(seq)).await?;
        }
        Ok(())
    }

    /// Folds newly stored records into the live referee and publishes each, with its
    /// rulings, to the game's watchers and, if a console follows the hall, as a board frame:
    /// the one fold of each event.
    pub fn apply<'e>(
        &self,
        guard: &mut LiveGuard,
        game: &str,
        records: &[Record],
        events: impl IntoIterator<Item = &'e Event>,
    ) -> Vec<Ruling> {
        let mut all = Vec::new();
        let forms = self.hall_forms();
        let hall = forms.json || forms.proto;
        for (record, event) in records.iter().zip(events) {
            let step = guard.fold_mut().apply(record, event);
            guard.publish(|referee| Published::new(record, event, &step, referee));
            if hall {
                let fold = guard.fold();
                let frame = super::console::hall_frame(fold, &step.rulings, false, forms);
                self.publish_hall(frame);
            }
            all.extend(step.rulings);
        }
        self.note(game, guard.fold());
        all
    }

    /// [`lock`](LiveGames::lock) for a write. On a log other instances share, this instance
    /// first claims the game (fencing out the previous writer), then makes sure the cached
    /// fold is at the log's head, reloading it if another instance wrote since it was loaded.
    pub async fn lock_to_write(&self, game: &str) -> Result<LiveGuard, Error> {
        // The head is checked below if needed; with the lease held, a stale fold cannot
        // write: the append is fenced and the game reloaded.
        let mut guard = self.lock_checked(game, false).await?;
        if !self.log.shared() || guard.0.lease.is_some() {
            return Ok(guard);
        }
        let lease = self.log.claim(game).await??;
        // Read after the claim: whatever the former writer stored before it is visible now,
        // and nothing it tries after it is stored.
        let head = self.log.info(game).await?.map_or(0, |info| info.last_seq);
        if head != guard.fold().referee.last_seq() {
            self.reload(&mut guard, game).await?;
        }
        guard.0.lease = Some(lease);
        Ok(guard)
    }

    /// Replaces a stale cached fold by one loaded from the log.
    async fn reload(&self, guard: &mut LiveGuard, game: &str) -> Result<(), Error> {
        let fold = Fold::load(&self.log, game, None).await?;
        self.note(game, &fold);
        guard.0.game = Some(fold);
        Ok(())
    }

    /// Drops the game from the cache, e.g. after it failed to load.
    pub fn forget(&self, game: &str) {
        self.entries().map.remove(game);
    }

    /// Games loaded now (for tests and the metrics of a bounded cache).
    pub fn loaded(&self) -> usize {
        self.entries().map.len()
    }

    /// Records `fold`'s summary, unless a newer one is already known.
    pub fn note(&self, game: &str, fold: &Fold) {
        let summary = Summary::of(fold);
        let mut summaries = self.summaries();
        match summaries.get_mut(game) {
            Some(known) if known.last_seq > summary.last_seq => {}
            Some(known) => *known = summary,
            None => {
                summaries.insert(game.to_string(), summary);
            }
        }
    }

    /// The game's summary at the log's head `(last_seq, head_hash)`: the one kept if it is
    /// that head's, else replayed from the log (without loading the game into the cache).
    pub async fn summary(
        &self,
        game: &str,
        last_seq: u64,
        head_hash: [u8; HASH_LEN],
    ) -> Result<Summary, Error> {
        let kept = self.summaries().get(game).cloned();
        if let Some(kept) = kept.filter(|s| s.last_seq == last_seq && s.head_hash == head_hash) {
            return Ok(kept);
        }
        let fold = Fold::load(&self.log, game, None).await?;
        self.note(game, &fold);
        Ok(Summary::of(&fold))
    }

    fn slot(&self, game: &str) -> Slot {
        let now = Instant::now();
        let mut entries = self.entries();
        if now.duration_since(entries.last_sweep) >= SWEEP_EVERY {
            entries.last_sweep = now;
            let idle = self.limits.idle;
            entries
                .map
                .retain(|_, e| now.duration_since(e.last_use) < idle || !evictable(e));
        }
        let entry = entries
            .map
            .entry(game.to_string())
            .or_insert_with(|| Entry {
                slot: Arc::new(AsyncMutex::new(Cached {
                    lease: None,
                    game: None,
                    feed: None,
                })),
                last_use: now,
            });
        entry.last_use = now;
        let slot = Arc::clone(&entry.slot);
        while entries.map.len() > self.limits.max_games && evict_one(&mut entries.map) {}
        slot
    }

    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn summaries(&self) -> MutexGuard<'_, HashMap<String, Summary>> {
        self.summaries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Drops the least recently used game that may be dropped; false if none may.
fn evict_one(map: &mut HashMap<String, Entry>) -> bool {
    let oldest = map
        .iter()
        .filter(|(_, e)| evictable(e))
        .min_by_key(|(_, e)| e.last_use)
        .map(|(game, _)| game.clone());
    oldest.is_some_and(|game| map.remove(&game).is_some())
}

/// A game nobody holds or waits for (only the cache has its slot) and nobody watches.
fn evictable(entry: &Entry) -> bool {
    Arc::strong_count(&entry.slot) == 1
        && entry.slot.try_lock().is_ok_and(|cached| !cached.watched())
}

impl Cached {
    fn watched(&self) -> bool {
        self.feed.as_ref().is_some_and(|f| f.receiver_count() > 0)
    }

    /// Drops the feed once its last watcher has left (a receiver's drop cannot tell us).
    fn drop_unwatched_feed(&mut self) {
        if !self.watched() {
            self.feed = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::SledLog;

    async fn one_game() -> (tempfile::TempDir, LiveGames<SledLog>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = SledLog::open(dir.path()).expect("open");
        let header = r#"{"type":"game","variant":"xiangqi","id":"g"}"#.to_string();
        log.create("g", header, "test")
            .await
            .expect("io")
            .expect("new");
        (dir, LiveGames::new(log, CacheLimits::DEFAULT))
    }

    #[tokio::test]
    async fn a_feed_exists_only_while_the_game_is_watched() {
        let (_dir, live) = one_game().await;
        let mut guard = live.lock("g").await.expect("load");
        guard.publish(|_| panic!("items made for nobody"));
        assert!(!guard.has_feed(), "loaded and played, never watched");
        let (watcher, _) = guard.subscribe();
        assert!(guard.has_feed(), "the first watcher makes it");
        drop(guard);
        let (second, _) = live.lock("g").await.expect("cached").subscribe();
        drop(watcher);
        assert!(
            live.lock("g").await.expect("cached").has_feed(),
            "one still watches"
        );
        drop(second);
        assert!(
            !live.lock("g").await.expect("cached").has_feed(),
            "the last one left"
        );
    }
}
