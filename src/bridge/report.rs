//! A report ready to send: the event as the log will keep it, the event id that makes a
//! resend harmless, and the words the terminal shows for it.

use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::service::proto;

/// One event for the game, with its id.
#[derive(Clone, Debug)]
pub struct Report {
    /// The client's id: the same report sent again (a reconnect, a restarted bridge re-reading
    /// the same file) carries the same id, and the server acknowledges it again instead of
    /// storing it twice.
    pub event_id: String,
    pub event: proto::Event,
    /// What the terminal says after `sent #N`: `board e2 P→· e4 ·→P`, `clock red ...`.
    pub what: String,
    /// Where in the feed it came from (`line 12`, `update 3`), for messages about it.
    pub origin: String,
}

impl Report {
    pub fn new_event(&self) -> proto::NewEvent {
        proto::NewEvent {
            event_id: self.event_id.clone(),
            event: Some(self.event.clone()),
        }
    }
}

/// A `board` event: what the sensors read; it has no side.
pub fn board_event(placement: String, device: Option<String>, ts_ms: u64) -> proto::Event {
    proto::Event {
        side: String::new(),
        ts_ms: Some(ts_ms),
        kind: Some(proto::event::Kind::Board(proto::BoardReport {
            placement,
            device,
        })),
    }
}

/// A `clock` event: `side` pressed; `times` are the clocks shown after the press, by turn
/// order (the first of the game's sides first), as `ClockPress` carries them.
pub fn clock_event(side: &str, times: [Option<u64>; 2], ts_ms: u64) -> proto::Event {
    proto::Event {
        side: side.to_string(),
        ts_ms: Some(ts_ms),
        kind: Some(proto::event::Kind::Clock(proto::ClockPress {
            first_ms: times[0],
            second_ms: times[1],
        })),
    }
}

/// A short hash of what a report says, hex: part of an event id, so that two different
/// reports at the same place in two runs of a live feed get different ids.
pub fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        // A separator, so that ("ab", "c") and ("a", "bc") differ.
        hasher.update([0]);
    }
    hex::encode(&hasher.finalize()[..6])
}

/// A device name as it may stand in an event id: at most 48 bytes of letters, digits, `-`,
/// `_` and `.` (ids are at most 128 bytes; a device name is free text).
pub fn id_part(device: &str) -> String {
    let part: String = device
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(48)
        .collect();
    if part.is_empty() {
        "board".into()
    } else {
        part
    }
}

/// The bridge's own time, for reports whose device gives none: milliseconds since the bridge
/// started, counted on from `base` (the time of the game's last stored event), so that the
/// log's times do not run backwards when a bridge is restarted during a game.
#[derive(Clone, Copy, Debug)]
pub struct BridgeTime {
    started: Instant,
    base: u64,
}

impl BridgeTime {
    pub fn new(base: u64) -> BridgeTime {
        BridgeTime {
            started: Instant::now(),
            base,
        }
    }

    pub fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.base.saturating_add(elapsed)
    }
}
