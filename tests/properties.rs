//! Property tests: random event sequences (legal and illegal, all four games) appended to the
//! service through restarts and evictions of its live cache leave the service's cached state
//! equal to a fresh replay from storage; the JSONL and protobuf decoders refuse garbage
//! without panicking. `PROPTEST_CASES=100000 cargo test --test tests properties` runs them
//! longer.

use proptest::prelude::*;
use prost::Message;
use referee::event::event_to_json;
use referee::event::{Event, EventKind, Header, Side, Square, parse_log};
use referee::games::Variant;
use referee::log::SledLog;
use referee::referee::Referee;
use referee::service::proto::referee_server::Referee as _;
use referee::service::{CacheLimits, Service, header_to_proto, proto};
use referee::stored::Fold;
use tonic::Request;

fn square(variant: Variant, n: u8) -> Square {
    match variant {
        Variant::ChessGjq => Square::parse_text(
            variant,
            &format!("{}{}", char::from(b'a' + n % 8), 1 + (n / 8) % 8),
        ),
        Variant::Xiangqi => Square::parse_text(
            variant,
            &format!("{}{}", char::from(b'a' + n % 9), (n / 9) % 10),
        ),
        Variant::Draughts => Square::parse_number(variant, 1 + u64::from(n % 50)),
        // Mostly near the centre, where stones meet and shapes form.
        Variant::Renju => Square::parse_text(
            variant,
            &format!("{}{}", char::from(b'd' + n % 8), 4 + (n / 8) % 8),
        ),
    }
    .expect("in range")
}

fn event(variant: Variant, (kind, a, b, side): (u8, u8, u8, bool)) -> Event {
    let side = if side { Side::First } else { Side::Second };
    let kind = match kind % 10 {
        0..=5 => a_move(variant, a, b),
        6 if variant == Variant::Renju => EventKind::Claim {
            claim: referee::event::ClaimKind::Forbidden,
        },
        6 => EventKind::Touch {
            square: square(variant, a),
            adjust: b % 2 == 0,
        },
        7 if variant.spec().moves.reveals => EventKind::Reveal {
            square: square(variant, a),
            piece: ['Q', 'R', 'B', 'N', 'P'][usize::from(b % 5)],
            promotion: None,
        },
        7 => EventKind::DrawOffer,
        8 => EventKind::DrawReply { accept: b % 2 == 0 },
        _ => EventKind::Clock {
            first_ms: Some(u64::from(a) * 1000),
            second_ms: Some(u64::from(b) * 1000),
        },
    };
    Event {
        side,
        ts_ms: None,
        kind,
    }
}

/// A move between the squares `a` and `b` picks, or, in a game whose pieces are placed
/// (its spec's move has no `from`: renju), a piece placed on `b`.
fn a_move(variant: Variant, a: u8, b: u8) -> EventKind {
    if !variant.spec().moves.from {
        return EventKind::Place {
            to: square(variant, b),
        };
    }
    EventKind::Move {
        from: square(variant, a),
        to: square(variant, b),
        promotion: None,
        captures: None,
    }
}

/// Mostly moves by the side to move (so games are not all over at event 1), some noise.
fn events_for(variant: Variant, raw: &[(u8, u8, u8, bool)]) -> Vec<Event> {
    let mut referee = Referee::new(&Header::new(variant, "p")).expect("start");
    let mut out = Vec::new();
    for (i, &r) in raw.iter().enumerate() {
        let e = if r.0 % 4 == 0 {
            event(variant, r)
        } else {
            plausible_move(&referee, r).unwrap_or_else(|| event(variant, r))
        };
        referee.apply(u64::try_from(i + 1).expect("seq"), &e);
        out.push(e);
    }
    out
}

/// A move by the side to move between squares the random numbers pick (legal or not).
fn plausible_move(referee: &Referee, (_, a, b, _): (u8, u8, u8, bool)) -> Option<Event> {
    let variant = referee.header().variant;
    let side = referee.side_to_move();
    Some(Event {
        side,
        ts_ms: None,
        kind: a_move(variant, a, b),
    })
}

/// What a random run does next.
#[derive(Clone, Debug)]
enum Step {
    /// Appends the next `count` events of game `game` in one request.
    Append { game: usize, count: usize },
    /// Drops the service and its log, and opens both again on the same directory.
    Restart,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        8 => (0..VARIANTS.len(), 1usize..5).prop_map(|(game, count)| Step::Append { game, count }),
        1 => Just(Step::Restart),
    ];
    prop::collection::vec(step, 1..24)
}

/// One game of each variant, while the cache holds only two: every other step evicts one.
const VARIANTS: &[Variant] = Variant::ALL;
const CACHE: CacheLimits = CacheLimits {
    max_games: 2,
    idle: std::time::Duration::from_secs(3600),
};

/// A service over the store in `dir`, with the small cache. An open that fails is tried
/// again for a while (once, under a loaded CI, sled refused a store whose lock
/// `common::released` had just seen free); the last error is reported.
fn open(dir: &std::path::Path) -> (Service<SledLog>, SledLog) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let log = loop {
        match SledLog::open(dir) {
            Ok(log) => break log,
            Err(e) if std::time::Instant::now() < deadline => {
                eprintln!("reopening {dir:?} failed, trying again: {e}");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("open {dir:?}: {e}"),
        }
    };
    (Service::new(log.clone()).with_cache_limits(CACHE), log)
}

/// The game's state as the service has it (cached: it was just used) equals a replay of its
/// stored log from scratch.
async fn agrees(
    service: &Service<SledLog>,
    log: &SledLog,
    game: &str,
) -> Result<(), TestCaseError> {
    let request = Request::new(proto::GetGameRequest { game: game.into() });
    let cached = service.get_game(request).await.expect("get").into_inner();
    let fresh = Fold::load(log, game, None)
        .await
        .expect("replay from storage");
    let referee = &fresh.referee;
    prop_assert_eq!(cached.seq, referee.last_seq());
    prop_assert_eq!(&cached.fen, &referee.fen());
    prop_assert_eq!(cached.head_hash, hex::encode(fresh.head_hash));
    prop_assert_eq!(
        cached.result,
        referee.ending().map(|e| e.result.as_str().to_string())
    );
    let rulings: Vec<_> = cached
        .rulings
        .iter()
        .map(|r| (r.at, r.kind.clone(), r.text.clone()))
        .collect();
    let replayed: Vec<_> = referee
        .rulings()
        .iter()
        .map(|r| (r.at, r.kind.as_str().to_string(), r.text.clone()))
        .collect();
    prop_assert_eq!(rulings, replayed);
    prop_assert!(
        service.live_games() <= CACHE.max_games,
        "{} games cached",
        service.live_games()
    );
    Ok(())
}

async fn create_all(service: &Service<SledLog>) {
    for (i, &variant) in VARIANTS.iter().enumerate() {
        let header = header_to_proto(&Header::new(variant, format!("g{i}")));
        let request = Request::new(proto::CreateGameRequest {
            header: Some(header),
        });
        service.create_game(request).await.expect("create");
    }
}

/// Appends events `next..next + count` of `events` to game `game`.
async fn append(service: &Service<SledLog>, game: usize, events: &[Event], next: usize) {
    let variant = VARIANTS[game];
    let new = events.iter().zip(next..).map(|(e, i)| proto::NewEvent {
        event_id: format!("e{i}"),
        event: Some(crate::fixtures::proto_event(
            &event_to_json(e, variant),
            variant,
        )),
    });
    let request = Request::new(proto::AppendEventsRequest {
        game: format!("g{game}"),
        expected_seq: u64::try_from(next + 1).expect("seq"),
        events: new.collect(),
    });
    service.append_events(request).await.expect("append");
}

/// Plays `steps` over the three games' `events`, checking the game used after every step
/// and every game at the end.
async fn run(steps: Vec<Step>, events: Vec<Vec<Event>>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut service, mut log) = open(dir.path());
    create_all(&service).await;
    let mut next = vec![0usize; VARIANTS.len()];
    for step in steps {
        match step {
            Step::Append { game, count } => {
                let end = (next[game] + count).min(events[game].len());
                if end > next[game] {
                    append(&service, game, &events[game][next[game]..end], next[game]).await;
                    next[game] = end;
                }
                agrees(&service, &log, &format!("g{game}")).await?;
            }
            Step::Restart => {
                drop((service, log));
                crate::common::released(dir.path());
                (service, log) = open(dir.path());
            }
        }
    }
    for game in 0..VARIANTS.len() {
        agrees(&service, &log, &format!("g{game}")).await?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_cached_state_equals_a_fresh_replay_through_appends_restarts_and_evictions(
        steps in steps(),
        raw in prop::collection::vec(any::<(u8, u8, u8, bool)>(), 0..60),
    ) {
        let events = VARIANTS.iter().map(|&variant| events_for(variant, &raw)).collect();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(run(steps, events))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_jsonl_reader_never_panics(text in "\\PC{0,300}", lines in prop::collection::vec("[ -~]{0,80}", 0..6)) {
        let _ = parse_log(&text);
        let log = format!("{{\"type\":\"game\",\"variant\":\"xiangqi\",\"id\":\"x\"}}\n{}", lines.join("\n"));
        let _ = parse_log(&log);
    }

    #[test]
    fn the_protobuf_decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = proto::AppendEventsRequest::decode(bytes.as_slice());
        let _ = proto::PlayRequest::decode(bytes.as_slice());
        let _ = proto::CreateGameRequest::decode(bytes.as_slice());
    }
}
