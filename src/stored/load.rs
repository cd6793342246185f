//! Reading a game's records back and parsing them.

use crate::event::{Event, Header, event_from_json, header_from_json};
use crate::log::{Log, Record};

use super::Error;

/// A game's records read back and parsed: the header and each event with its record.
pub struct LoadedLog {
    pub header: Header,
    pub header_record: Record,
    pub events: Vec<(Record, Event)>,
}

impl LoadedLog {
    /// The hash of the last record read: the chain head this log reflects.
    pub fn head_hash(&self) -> [u8; crate::log::HASH_LEN] {
        self.events
            .last()
            .map_or(self.header_record.hash, |(r, _)| r.hash)
    }

    /// The game as an interchange log (`referee export --log`, the console's download): the
    /// stored header line and every event line, byte for byte as acknowledged, so that log
    /// -> import -> export gives the same file.
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(self.events.len() * 64 + 256);
        for body in std::iter::once(&self.header_record.body)
            .chain(self.events.iter().map(|(record, _)| &record.body))
        {
            text.push_str(body);
            text.push('\n');
        }
        text
    }
}

/// Reads a game's log from the header through `to` (None: the head) and parses it.
pub async fn load_log<L: Log>(log: &L, game: &str, to: Option<u64>) -> Result<LoadedLog, Error> {
    let mut records = log.read(game, 0, to).await??.into_iter();
    let header_record = records
        .next()
        .ok_or_else(|| Error::unreadable(game, 0, "no header record"))?;
    let header = read_header(&header_record)?;
    let events = records
        .map(|r| {
            let event = read_event(&r, &header)?;
            Ok((r, event))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(LoadedLog {
        header,
        header_record,
        events,
    })
}

/// The header a seq 0 record holds.
pub(super) fn read_header(record: &Record) -> Result<Header, Error> {
    header_from_json(&record.body).map_err(|m| Error::unreadable(&record.game, 0, &m))
}

/// The event a record of a game with `header` holds.
pub fn read_event(record: &Record, header: &Header) -> Result<Event, Error> {
    event_from_json(&record.body, header.variant, Some(record.seq))
        .map_err(|m| Error::unreadable(&record.game, record.seq, &m))
}
