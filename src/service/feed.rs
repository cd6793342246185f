//! A live game's feed: each record the live referee stores, with the rulings it gave rise
//! to, made into a console's items once and shared by every watcher of the game.

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::event::Event;
use crate::log::Record;
use crate::referee::{Referee, Step};

use super::convert::{board_to_proto, ruling_to_proto};
use super::proto::WatchGameResponse;
use super::proto::watch_game_response::Item;
use super::stored_event;

/// Records a watcher may be behind the live referee before it catches up from the store
/// instead: the feed holds them once for all watchers (a few hundred KiB with 1 KiB events;
/// 16 MiB if every event were 64 KiB), and a watcher more than this behind is one whose
/// outbox is full anyway.
pub const FEED_RECORDS: usize = 256;

/// The sending side, kept with the game's cached referee.
pub type Feed = broadcast::Sender<Arc<Published>>;

pub fn feed() -> Feed {
    broadcast::channel(FEED_RECORDS).0
}

/// One stored record as a console sees it: the event, then its rulings.
pub struct Published {
    pub seq: u64,
    event: WatchGameResponse,
    /// Each ruling's `at` beside its item: a console that starts later skips earlier ones.
    rulings: Vec<(u64, WatchGameResponse)>,
    /// The position and clocks after the event.
    board: WatchGameResponse,
}

impl Published {
    /// The record's items: its event with its words, its rulings, and the board `referee`
    /// shows after it.
    pub fn new(record: &Record, event: &Event, step: &Step, referee: &Referee) -> Published {
        let variant = referee.header().variant;
        let item = |item| WatchGameResponse { item: Some(item) };
        let mut stored = stored_event(record, event, variant);
        stored.words = Some(step.words.clone());
        Published {
            seq: record.seq,
            event: item(Item::Event(stored)),
            rulings: step
                .rulings
                .iter()
                .map(|r| (r.at, item(Item::Ruling(ruling_to_proto(r, variant)))))
                .collect(),
            board: item(Item::Board(board_to_proto(referee))),
        }
    }

    /// The items for a console that asked for everything from `from_seq` on.
    pub fn items(&self, from_seq: u64) -> Vec<WatchGameResponse> {
        let rulings = self.rulings.iter().filter(|(at, _)| *at >= from_seq);
        std::iter::once(&self.event)
            .chain(rulings.map(|(_, item)| item))
            .chain(std::iter::once(&self.board))
            .cloned()
            .collect()
    }
}
