//! The game a bridge feeds, as the server knows it: its board (to know the squares and the
//! start placement that field updates change), its last seq, and the time of its last event.

use std::time::Duration;

use tokio_stream::StreamExt;

use crate::games::sensor::{self, Placement};
use crate::games::{AnyPosition, Variant};
use crate::service::proto;

use super::layout;
use super::remote::Client;

/// How long the bridge waits for the game's last stored event when it starts.
const LAST_EVENT_WAIT: Duration = Duration::from_secs(5);

/// The game, when the bridge starts.
#[derive(Clone, Debug)]
pub struct GameInfo {
    pub id: String,
    pub variant: Variant,
    /// The placement of the game's start position (its header's `start`, or the standard one).
    pub start: Placement,
    pub last_seq: u64,
    /// The `ts_ms` of the last stored event, when it has one.
    pub last_ts_ms: Option<u64>,
    /// The game's `board_hold_ms` (the referee's default when its header sets none).
    pub hold_ms: u64,
}

/// Why the game could not be read: the server away (worth waiting for), or the game itself.
pub enum Lookup {
    Away(tonic::Status),
    Game(String),
}

/// Asks the server for the game.
pub async fn fetch(client: &mut Client, game: &str) -> Result<GameInfo, Lookup> {
    let request = proto::GetGameRequest { game: game.into() };
    let state = match client.get_game(request).await {
        Ok(state) => state.into_inner(),
        Err(status) if status.code() == tonic::Code::NotFound => {
            return Err(Lookup::Game("no such game on the server".into()));
        }
        Err(status) => return Err(Lookup::Away(status)),
    };
    let header = state.header.unwrap_or_default();
    let hold_ms = header
        .rules
        .as_ref()
        .and_then(|r| r.board_hold_ms)
        .unwrap_or(crate::referee::board::DEFAULT_HOLD_MS);
    let variant = Variant::parse_named(&header.variant).map_err(Lookup::Game)?;
    let fen = (!header.start.is_empty()).then_some(header.start.as_str());
    let position = AnyPosition::start(variant, fen)
        .map_err(|e| Lookup::Game(format!("its start position does not read: {e}")))?;
    let fen = position.fen();
    let start = sensor::read(variant, layout::board_part(variant, &fen))
        .map_err(|e| Lookup::Game(format!("its start placement does not read: {e}")))?;
    let last_ts_ms = match state.seq {
        0 => None,
        seq => last_time(client, game, seq).await,
    };
    Ok(GameInfo {
        id: game.to_string(),
        variant,
        start,
        last_seq: state.seq,
        last_ts_ms,
        hold_ms,
    })
}

/// The `ts_ms` of event `seq`, read from the game's watch stream (the only call that gives
/// stored events with their times); `None` if it has none or does not come in time.
async fn last_time(client: &mut Client, game: &str, seq: u64) -> Option<u64> {
    let request = proto::WatchGameRequest {
        game: game.into(),
        from_seq: seq,
    };
    let read = async {
        let mut stream = client.watch_game(request).await.ok()?.into_inner();
        while let Some(Ok(item)) = stream.next().await {
            if let Some(proto::watch_game_response::Item::Event(stored)) = item.item {
                return stored.event.and_then(|e| e.ts_ms);
            }
        }
        None
    };
    tokio::time::timeout(LAST_EVENT_WAIT, read)
        .await
        .ok()
        .flatten()
}
