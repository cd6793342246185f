//! What the referee derived: the game's rulings, read from WatchGame as they arise, one line
//! each on the terminal. The watch runs beside the stream that sends reports, on its own
//! connection, and reopens from where it was when the server comes back.

use std::time::Duration;

use tokio::sync::watch;
use tokio_stream::StreamExt;

use crate::service::proto;
use crate::service::proto::watch_game_response::Item;

use super::Server;

/// Pause before reopening a watch the server ended (it was away, or the watch fell behind).
const REOPEN: Duration = Duration::from_millis(500);

/// Watches `game` from `from_seq` on, printing each ruling; `seen` says up to which seq every
/// event's rulings were printed (the board after an event comes after its rulings). Runs
/// until aborted.
pub async fn rulings(server: Server, game: String, from_seq: u64, seen: watch::Sender<u64>) {
    let mut next = from_seq;
    loop {
        if let Ok(mut client) = server.connect().await {
            let request = proto::WatchGameRequest {
                game: game.clone(),
                from_seq: next,
            };
            if let Ok(stream) = client.watch_game(request).await {
                let mut stream = stream.into_inner();
                while let Some(Ok(message)) = stream.next().await {
                    match message.item {
                        Some(Item::Ruling(ruling)) => println!("{}", words(&ruling)),
                        Some(Item::Board(board)) => {
                            next = board.seq + 1;
                            seen.send_replace(board.seq);
                        }
                        _ => {}
                    }
                }
            }
        }
        tokio::time::sleep(REOPEN).await;
    }
}

/// One ruling as the terminal shows it: its kind and text, and for a move derived from the
/// board the event as the log format writes it (`ruling #4 board_move red: red moved: 炮二平五
/// ... → {"type":"move",...}`).
pub fn words(ruling: &proto::Ruling) -> String {
    let mut line = format!("ruling #{} {}", ruling.at, ruling.kind);
    if let Some(side) = &ruling.side {
        line.push_str(&format!(" {side}"));
    }
    if ruling.effect != "none" && !ruling.effect.is_empty() {
        line.push_str(&format!(" ({})", ruling.effect));
    }
    if let Some(result) = &ruling.result {
        line.push_str(&format!(" result {result}"));
    }
    line.push_str(&format!(": {}", ruling.text));
    if let Some(event) = &ruling.event {
        line.push_str(&format!(" → {event}"));
    }
    line
}
