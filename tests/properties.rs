//! Property tests: random event sequences (legal and illegal, all three games) never panic the
//! referee, and folding them one by one equals a full replay from any prefix; the JSONL and
//! protobuf decoders refuse garbage without panicking. `PROPTEST_CASES=100000 cargo test
//! --test tests properties` runs them longer.

use proptest::prelude::*;
use prost::Message;
use referee::event::{Event, EventKind, Header, Side, Square, parse_log};
use referee::games::Variant;
use referee::referee::{Referee, replay};
use referee::service::proto;

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
    }
    .expect("in range")
}

fn event(variant: Variant, (kind, a, b, side): (u8, u8, u8, bool)) -> Event {
    let side = if side { Side::First } else { Side::Second };
    let kind = match kind % 10 {
        0..=5 => EventKind::Move {
            from: square(variant, a),
            to: square(variant, b),
            promotion: None,
            captures: None,
        },
        6 => EventKind::Touch {
            square: square(variant, a),
            adjust: b % 2 == 0,
        },
        7 if variant == Variant::ChessGjq => EventKind::Reveal {
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
        kind: EventKind::Move {
            from: square(variant, a),
            to: square(variant, b),
            promotion: None,
            captures: None,
        },
    })
}

fn variants() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::ChessGjq),
        Just(Variant::Xiangqi),
        Just(Variant::Draughts)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn incremental_rulings_equal_a_full_replay(variant in variants(), raw in prop::collection::vec(any::<(u8, u8, u8, bool)>(), 0..120), cut in 0usize..120) {
        let events = events_for(variant, &raw);
        let header = Header::new(variant, "p");
        let full = replay(&header, &events).expect("replay");
        let cut = cut.min(events.len());
        let mut live = replay(&header, &events[..cut]).expect("prefix");
        for (seq, e) in (u64::try_from(cut).expect("seq") + 1..).zip(&events[cut..]) {
            live.apply(seq, e);
        }
        prop_assert_eq!(live.rulings(), full.rulings());
        prop_assert_eq!(live.fen(), full.fen());
        prop_assert_eq!(live.ending(), full.ending());
    }

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
