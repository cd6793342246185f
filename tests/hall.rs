//! The API behind the console, for any gRPC client: boards with position and clocks in
//! WatchGame and GetGame, ListGames by prefix and page, and WatchGames — a hall of boards on
//! one stream.

use std::time::Duration;

use referee::service::proto::{self, referee_client::RefereeClient};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::common::TestServer;

async fn create(c: &mut RefereeClient<Channel>, id: &str, clock_ms: Option<u64>) {
    let header = proto::GameHeader {
        variant: "xiangqi".into(),
        id: id.into(),
        clock: clock_ms.map(|ms| proto::ClockControl {
            initial_ms: Some(ms),
            ..Default::default()
        }),
        ..Default::default()
    };
    c.create_game(proto::CreateGameRequest {
        header: Some(header),
    })
    .await
    .expect("create");
}

fn event(side: &str, kind: proto::event::Kind, ts_ms: Option<u64>) -> proto::Event {
    proto::Event {
        side: side.into(),
        ts_ms,
        kind: Some(kind),
    }
}

fn movement(side: &str, from: &str, to: &str) -> proto::Event {
    let kind = proto::event::Kind::Move(proto::Move {
        from: from.into(),
        to: to.into(),
        ..Default::default()
    });
    event(side, kind, None)
}

async fn append(c: &mut RefereeClient<Channel>, game: &str, after: u64, events: Vec<proto::Event>) {
    let events = (after + 1..)
        .zip(events)
        .map(|(seq, e)| proto::NewEvent {
            event_id: format!("{game}-{seq}"),
            event: Some(e),
        })
        .collect();
    c.append_events(proto::AppendEventsRequest {
        game: game.into(),
        expected_seq: after + 1,
        events,
    })
    .await
    .expect("append");
}

async fn next<T>(s: &mut tonic::Streaming<T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), s.next())
        .await
        .expect("in time")
        .expect("an item")
        .expect("ok")
}

#[tokio::test]
async fn watch_and_get_carry_the_board_and_the_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path()).await;
    let mut c = server.client().await;
    create(&mut c, "clocked", Some(600_000)).await;
    // Red moves, then presses its clock 5 s after the start (the board's own time stamps).
    let press = proto::event::Kind::Clock(proto::ClockPress {
        first_ms: Some(595_000),
        second_ms: Some(600_000),
    });
    let events = vec![
        movement("red", "h2", "e2"),
        event("red", press, Some(5_000)),
    ];
    append(&mut c, "clocked", 0, events).await;
    let mut watch = c
        .watch_game(proto::WatchGameRequest {
            game: "clocked".into(),
            from_seq: 1,
        })
        .await
        .expect("watch")
        .into_inner();
    use proto::watch_game_response::Item;
    let mut boards = Vec::new();
    while boards.len() < 2 {
        if let Some(Item::Board(b)) = next(&mut watch).await.item {
            boards.push(b);
        }
    }
    assert_eq!(boards[0].seq, 1);
    assert!(
        boards[0]
            .fen
            .starts_with("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/")
    );
    assert_eq!(boards[0].side_to_move, "black");
    let clock = boards[1].clock.clone().expect("the clocks");
    assert_eq!((clock.first_ms, clock.second_ms), (595_000, 600_000));
    assert_eq!(clock.running, "black");
    let state = c
        .get_game(proto::GetGameRequest {
            game: "clocked".into(),
        })
        .await
        .expect("get")
        .into_inner();
    assert_eq!(state.clock, Some(clock));
    // A game without a time control has no clocks.
    create(&mut c, "untimed", None).await;
    let state = c
        .get_game(proto::GetGameRequest {
            game: "untimed".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state.clock, None);
    server.stop().await;
}

#[tokio::test]
async fn list_games_by_prefix_a_page_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path()).await;
    let mut c = server.client().await;
    for id in ["r1-b3", "r1-b1", "r2-b1", "r1-b2"] {
        create(&mut c, id, None).await;
    }
    let page = |prefix: &str, after: &str, limit| proto::ListGamesRequest {
        prefix: prefix.into(),
        after: after.into(),
        limit,
    };
    let ids = |r: &proto::ListGamesResponse| -> Vec<String> {
        r.games.iter().map(|g| g.game.clone()).collect()
    };
    let first = c.list_games(page("r1-", "", 2)).await.unwrap().into_inner();
    assert_eq!(ids(&first), ["r1-b1", "r1-b2"]);
    assert_eq!(first.next.as_deref(), Some("r1-b2"));
    let second = c
        .list_games(page("r1-", "r1-b2", 2))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ids(&second), ["r1-b3"]);
    assert_eq!(second.next, None);
    let all = c.list_games(page("", "", 0)).await.unwrap().into_inner();
    assert_eq!(ids(&all), ["r1-b1", "r1-b2", "r1-b3", "r2-b1"]);
    server.stop().await;
}

#[tokio::test]
async fn watch_games_follows_a_hall_on_one_stream() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(dir.path()).await;
    let mut c = server.client().await;
    for id in ["hall-1", "hall-2", "elsewhere"] {
        create(&mut c, id, None).await;
    }
    append(&mut c, "hall-2", 0, vec![movement("red", "h2", "e2")]).await;
    let mut hall = c
        .watch_games(proto::WatchGamesRequest {
            prefix: "hall-".into(),
        })
        .await
        .expect("watch games")
        .into_inner();
    let mut snapshot = [next(&mut hall).await, next(&mut hall).await];
    snapshot.sort_by(|a, b| a.game.cmp(&b.game));
    assert!(snapshot.iter().all(|m| m.snapshot));
    assert_eq!(snapshot[0].game, "hall-1");
    assert_eq!(snapshot[1].board.as_ref().unwrap().seq, 1);
    // An event elsewhere is not sent; the hall's next events are, with board and rulings.
    append(&mut c, "elsewhere", 0, vec![movement("red", "h2", "e2")]).await;
    append(&mut c, "hall-1", 0, vec![movement("red", "b0", "d1")]).await;
    let update = next(&mut hall).await;
    assert_eq!(update.game, "hall-1");
    assert!(!update.snapshot);
    assert_eq!(update.board.as_ref().unwrap().seq, 1);
    assert_eq!(update.rulings[0].kind, "illegal_move", "{update:?}");
    append(&mut c, "hall-2", 1, vec![movement("black", "h9", "g7")]).await;
    let update = next(&mut hall).await;
    assert_eq!(update.game, "hall-2");
    assert!(
        update.text.as_deref().unwrap().contains("马8进7"),
        "{update:?}"
    );
    server.stop().await;
}

/// Issue 18: with the log in PostgreSQL, a console following the hall on instance B sees the
/// boards whose events reach instance A: in its snapshot, and live, with board and rulings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_on_one_instance_follows_boards_played_on_another() {
    let test = "hall::the_hall_on_one_instance_follows_boards_played_on_another";
    let Some(cluster) = crate::common::postgres::Cluster::start(test) else {
        return;
    };
    let a = TestServer::start_postgres(&cluster.url()).await;
    let b = TestServer::start_postgres(&cluster.url()).await;
    let (mut on_a, mut on_b) = (a.client().await, b.client().await);
    for id in ["hall-1", "hall-2"] {
        create(&mut on_a, id, None).await;
    }
    append(&mut on_a, "hall-2", 0, vec![movement("red", "h2", "e2")]).await;
    let mut hall = on_b
        .watch_games(proto::WatchGamesRequest {
            prefix: "hall-".into(),
        })
        .await
        .expect("watch games on B")
        .into_inner();
    let mut snapshot = [next(&mut hall).await, next(&mut hall).await];
    snapshot.sort_by(|x, y| x.game.cmp(&y.game));
    assert!(snapshot.iter().all(|m| m.snapshot));
    assert_eq!(snapshot[1].board.as_ref().unwrap().seq, 1, "{snapshot:?}");
    // Played through A, shown by B.
    append(&mut on_a, "hall-1", 0, vec![movement("red", "b0", "d1")]).await;
    let update = next(&mut hall).await;
    assert_eq!((update.game.as_str(), update.snapshot), ("hall-1", false));
    assert_eq!(update.board.as_ref().unwrap().seq, 1);
    assert_eq!(update.rulings[0].kind, "illegal_move", "{update:?}");
    // Then through B itself, after A: B takes the game over and still shows every event once.
    append(&mut on_a, "hall-2", 1, vec![movement("black", "h9", "g7")]).await;
    let update = next(&mut hall).await;
    assert_eq!(
        (update.game.as_str(), update.board.unwrap().seq),
        ("hall-2", 2)
    );
    append(&mut on_b, "hall-2", 2, vec![movement("red", "b0", "c2")]).await;
    let update = next(&mut hall).await;
    assert_eq!(
        (update.game.as_str(), update.board.unwrap().seq),
        ("hall-2", 3)
    );
    a.stop().await;
    b.stop().await;
}
