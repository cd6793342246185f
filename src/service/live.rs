//! Live games: a cached referee per game, kept in step with the log.
//!
//! Each game has its own async mutex, held across "append to the log, then apply to the
//! referee", so events are applied in seq order while the log's group commit still batches
//! appends of many games into one fsync.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::event::{Event, Header, event_from_json, header_from_json};
use crate::log::{HASH_LEN, Log, Record};
use crate::referee::Referee;

use super::Error;

/// A game's cached referee and the chain head it reflects.
pub struct LiveGame {
    pub referee: Referee,
    pub head_hash: [u8; HASH_LEN],
}

type Slot = Arc<AsyncMutex<Option<LiveGame>>>;

/// The cache of live games over a log.
pub struct LiveGames<L: Log> {
    log: L,
    slots: Mutex<HashMap<String, Slot>>,
}

/// A game's records read back and parsed: the header and each event with its record.
pub struct LoadedLog {
    pub header: Header,
    pub header_record: Record,
    pub events: Vec<(Record, Event)>,
}

impl<L: Log> LiveGames<L> {
    pub fn new(log: L) -> LiveGames<L> {
        LiveGames {
            log,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The game's live state, locked; loaded from the log (and replayed) on first use.
    pub async fn lock(&self, game: &str) -> Result<OwnedMutexGuard<Option<LiveGame>>, Error> {
        let slot = self.slot(game);
        let mut guard = slot.lock_owned().await;
        if guard.is_none() {
            match self.load(game).await {
                Ok(live) => *guard = Some(live),
                Err(e) => {
                    drop(guard);
                    self.forget(game);
                    return Err(e);
                }
            }
        }
        Ok(guard)
    }

    /// Drops the cached state, e.g. after an append whose outcome is unknown.
    pub fn forget(&self, game: &str) {
        self.slots.lock().expect("slots lock").remove(game);
    }

    fn slot(&self, game: &str) -> Slot {
        let mut slots = self.slots.lock().expect("slots lock");
        slots.entry(game.to_string()).or_default().clone()
    }

    async fn load(&self, game: &str) -> Result<LiveGame, Error> {
        let loaded = load_log(&self.log, game, None)?;
        let mut referee = Referee::new(&loaded.header)?;
        for (record, event) in &loaded.events {
            referee.apply(record.seq, event);
        }
        let head_hash = loaded
            .events
            .last()
            .map_or(loaded.header_record.hash, |(r, _)| r.hash);
        Ok(LiveGame { referee, head_hash })
    }
}

/// Reads a game's log from the header through `to` (None: the head) and parses it.
pub fn load_log<L: Log>(log: &L, game: &str, to: Option<u64>) -> Result<LoadedLog, Error> {
    let mut records = log.read(game, 0, to)??.into_iter();
    let header_record = records
        .next()
        .ok_or_else(|| unreadable(game, 0, "no header record"))?;
    let header = header_from_json(&header_record.body).map_err(|m| unreadable(game, 0, &m))?;
    let events = records
        .map(|r| {
            let event = event_from_json(&r.body, header.variant, Some(r.seq))
                .map_err(|m| unreadable(game, r.seq, &m))?;
            Ok((r, event))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(LoadedLog {
        header,
        header_record,
        events,
    })
}

pub fn unreadable(game: &str, seq: u64, message: &str) -> Error {
    Error::Unreadable {
        game: game.to_string(),
        seq,
        message: message.to_string(),
    }
}
