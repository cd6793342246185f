//! The live cache's memory as an operator sees it: `referee serve --live-games 64` as a child
//! process, 10,000 games each touched once (created, one move played) through gRPC, and the
//! server's resident memory read from /proc. Only the 64 most recently used referees stay in
//! memory, so touching 8,000 more games may grow it by what the log keeps of each stored game,
//! not by a referee per game.

use std::ops::Range;

use referee::service::proto::{self, referee_client::RefereeClient};
use tonic::transport::Channel;

use crate::common::create_xiangqi;
use crate::common::process::ServeProcess;

/// Referees the server keeps.
const LIVE_GAMES: usize = 64;
/// Games touched before the first reading: well past the cache, so it is full and evicting.
const WARM: usize = 2_000;
/// Games touched in all.
const GAMES: usize = 10_000;
/// Boards touching games at once: enough for the log's group commit to batch their syncs.
const BOARDS: usize = 32;
/// Growth allowed over the last 8,000 games: 3.75 KiB a game, room for what the server keeps
/// per stored game (the log's head and directory entry, the anchor's mark, the listing's
/// summary, sled's cache filling: 18 MiB in all, 2.3 KiB a game, measured) but not for a
/// referee per game: with `--live-games 20000` the same run grew by 45 MiB (5.8 KiB a game).
const GROWTH_BOUND_MIB: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rss_stays_bounded_while_ten_thousand_games_are_touched_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = LIVE_GAMES.to_string();
    let server = ServeProcess::start(dir.path(), &["--live-games", &live]);
    let channel = Channel::from_shared(server.url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    touch(&channel, 0..WARM).await;
    let warm = server.rss_kib();
    touch(&channel, WARM..GAMES).await;
    let touched = server.rss_kib();
    let growth = touched.saturating_sub(warm);
    println!(
        "server RSS with --live-games {LIVE_GAMES}: {} KiB after {WARM} games touched once, \
         {} KiB after {GAMES} ({} B per further game; bound {GROWTH_BOUND_MIB} MiB)",
        warm,
        touched,
        growth * 1024 / u64::try_from(GAMES - WARM).expect("small")
    );
    assert!(
        growth < GROWTH_BOUND_MIB * 1024,
        "RSS grew by {growth} KiB over {} games touched once (bound {GROWTH_BOUND_MIB} MiB)",
        GAMES - WARM
    );
}

/// Creates each game of `games` and plays one move in it, [`BOARDS`] games at a time.
async fn touch(channel: &Channel, games: Range<usize>) {
    let boards: Vec<_> = (0..BOARDS)
        .map(|board| {
            let mut client = RefereeClient::new(channel.clone());
            let mine: Vec<usize> = games.clone().filter(|g| g % BOARDS == board).collect();
            tokio::spawn(async move {
                for game in mine {
                    play_one_move(&mut client, &format!("touched-{game}")).await;
                }
            })
        })
        .collect();
    for board in boards {
        board.await.expect("board task");
    }
}

async fn play_one_move(client: &mut RefereeClient<Channel>, game: &str) {
    create_xiangqi(client, game).await;
    let cannon = proto::Event {
        side: "red".into(),
        ts_ms: None,
        kind: Some(proto::event::Kind::Move(proto::Move {
            from: "h2".into(),
            to: "e2".into(),
            ..Default::default()
        })),
    };
    let request = proto::AppendEventsRequest {
        game: game.into(),
        expected_seq: 1,
        events: vec![proto::NewEvent {
            event_id: "e1".into(),
            event: Some(cannon),
        }],
    };
    let ack = client.append_events(request).await.expect("append");
    assert!(ack.into_inner().rulings.is_empty(), "a legal opening move");
}
