//! Reported moves: legal, ambiguous, irregular (with the ruling text), impossible.

use super::super::{Impossibility, Irregularity, Move, Resolution, Square};
use super::{pos, sq};

fn resolve(fen: &str, from: u64, to: u64, captures: Option<&[u64]>) -> Resolution {
    let captures: Option<Vec<Square>> = captures.map(|c| c.iter().map(|&n| sq(n)).collect());
    pos(fen).resolve(sq(from), sq(to), captures.as_deref())
}

/// The irregularity's text, article and the move that stands if it is let go.
fn irregular(
    fen: &str,
    from: u64,
    to: u64,
    captures: Option<&[u64]>,
) -> (String, &'static str, Move) {
    match resolve(fen, from, to, captures) {
        Resolution::Irregular { played, why } => (why.to_string(), why.article(), played),
        other => panic!("{fen} {from}-{to}: expected irregular, got {other:?}"),
    }
}

fn impossible(fen: &str, from: u64, to: u64, captures: Option<&[u64]>) -> String {
    match resolve(fen, from, to, captures) {
        Resolution::Impossible(why) => why.to_string(),
        other => panic!("{fen} {from}-{to}: expected impossible, got {other:?}"),
    }
}

const START: &str = "W:W31-50:B1-20";

/// A position, a reported move (from, to, captures), the expected text and article.
type Case<'c> = (&'c str, u64, u64, Option<&'c [u64]>, &'c str, &'c str);

#[test]
fn legal_moves_resolve() {
    assert_eq!(
        resolve(START, 32, 28, None),
        Resolution::Legal(Move::step(sq(32), sq(28)))
    );
    assert_eq!(
        resolve(START, 32, 28, Some(&[])),
        Resolution::Legal(Move::step(sq(32), sq(28)))
    );
    let Resolution::Legal(mv) = resolve("W:W28,32:B23,14", 28, 10, None) else {
        panic!()
    };
    assert_eq!(mv.pdn_full(), "28x19x10");
    // Captures are a set: the order reported does not matter.
    let Resolution::Legal(mv) = resolve("W:W28,32:B23,14", 28, 10, Some(&[14, 23])) else {
        panic!()
    };
    assert_eq!(mv.captures, [sq(23), sq(14)]);
}

#[test]
fn different_pieces_between_the_same_squares_are_ambiguous() {
    let fen = "W:WK16:B7,21,22,39";
    let Resolution::Ambiguous(routes) = resolve(fen, 16, 1, None) else {
        panic!()
    };
    let mut routes: Vec<String> = routes.iter().map(Move::pdn_full).collect();
    routes.sort();
    assert_eq!(routes, ["16x27x18x1", "16x43x34x1"]);
    let Resolution::Legal(mv) = resolve(fen, 16, 1, Some(&[7, 21, 39])) else {
        panic!()
    };
    assert_eq!(mv.pdn_full(), "16x43x34x1");
}

#[test]
fn irregular_moves_say_what_the_rule_required() {
    let cases: [Case; 8] = [
        (
            "W:W28,32:B23,14",
            32,
            27,
            None,
            "a capture was compulsory: the majority rule allowed 1 capture of 2 pieces: 28x19x10; 32-27 takes none",
            "draughts 6.1",
        ),
        (
            "W:W37,39:BK31,34,24",
            37,
            26,
            None,
            "the majority rule allowed 1 capture of 2 pieces: 39x30x19; 37x26 takes 1",
            "draughts 6.13",
        ),
        (
            "W:W28,32:B23,14",
            28,
            19,
            None,
            "a capture goes on while a piece can be taken: 28x19 stops after 1 piece, 28x19x10 takes 2",
            "draughts 6.6",
        ),
        (
            START,
            32,
            23,
            None,
            "a man moves one square diagonally forward; 32-23 is not such a move",
            "draughts 5.4",
        ),
        (
            "W:W28:B1",
            28,
            33,
            None,
            "a man does not move backwards: 28-33",
            "draughts 5.4",
        ),
        (
            START,
            18,
            22,
            None,
            "the piece on 18 is black's, not white's",
            "draughts 7.4",
        ),
        (
            "W:WK46,37:B1",
            46,
            28,
            None,
            "a king's path 46-28 is blocked at 37",
            "draughts 5.9",
        ),
        (
            "W:WK46:B1",
            46,
            27,
            None,
            "a king moves along a diagonal; 46-27 is not such a move",
            "draughts 5.9",
        ),
    ];
    for (fen, from, to, captures, text, article) in cases {
        let (got, got_article, _) = irregular(fen, from, to, captures);
        assert_eq!(
            (got.as_str(), got_article),
            (text, article),
            "{fen} {from}-{to}"
        );
    }
}

#[test]
fn reported_captures_are_checked() {
    let fen = "W:W28,32:B23,14,22";
    let (text, article, played) = irregular(fen, 28, 10, Some(&[23, 23]));
    assert_eq!(
        (text.as_str(), article),
        ("piece 23 would be jumped twice", "draughts 6.9")
    );
    assert_eq!(played.captures, [sq(23)]);
    let (text, article, _) = irregular(fen, 28, 10, Some(&[23, 32]));
    assert_eq!(
        text,
        "the piece on 32 is white's own and cannot be captured"
    );
    assert_eq!(article, "draughts 6.8");
    let (text, article, played) = irregular(fen, 28, 10, Some(&[22]));
    assert_eq!(text, "28x10 takes 14, 23; the move reported took 22");
    assert_eq!(article, "draughts 7.4");
    // If the opponent lets it stand (7.7), exactly the reported pieces come off.
    let mut after = pos(fen);
    after.play(&played);
    assert_eq!(after.to_fen(), "B:W10,32:B14,23");
}

#[test]
fn capture_routes_that_cannot_be() {
    // 23 and 14 can be taken by 28, but only ending on 10.
    let (text, article, _) = irregular("W:W28:B23,14", 28, 5, Some(&[23, 14]));
    assert_eq!(
        text,
        "the capture does not end on a legal landing square: 28x5 taking 23, 14"
    );
    assert_eq!(article, "draughts 6.2");
    let (text, article, _) = irregular("W:W28:B23,12", 28, 6, Some(&[23, 12]));
    assert_eq!(text, "no man capture from 28 to 6 takes 23, 12");
    assert_eq!(article, "draughts 6.2");
}

#[test]
fn a_route_that_must_jump_a_piece_twice() {
    // 46x23 lands on 19 and could come back only over 23 again (6.9).
    let (text, article, _) = irregular("W:WK46:B23,1", 46, 41, Some(&[23]));
    assert_eq!(
        (text.as_str(), article),
        ("piece 23 would be jumped twice", "draughts 6.9")
    );
}

#[test]
fn impossible_moves_name_the_problem() {
    assert_eq!(impossible(START, 25, 21, None), "there is no piece on 25");
    assert_eq!(impossible(START, 31, 36, None), "square 36 is occupied");
    assert_eq!(
        impossible("W:W28:B23", 28, 19, Some(&[24])),
        "there is no piece on 24 to capture"
    );
    assert_eq!(
        impossible("W:W28:B23", 28, 19, Some(&[28])),
        "the moving piece on 28 cannot capture itself"
    );
    assert_eq!(
        impossible("W:W28:B23", 28, 28, None),
        "the piece on 28 does not move"
    );
    let Resolution::Impossible(why) = resolve(START, 25, 21, None) else {
        panic!()
    };
    assert_eq!(why, Impossibility::EmptyFrom(sq(25)));
}

#[test]
fn irregular_moves_keep_their_data() {
    let Resolution::Irregular { played, why } = resolve("W:W28,32:B23,14", 32, 27, None) else {
        panic!()
    };
    assert_eq!(played, Move::step(sq(32), sq(27)));
    let Irregularity::CaptureCompulsory { allowed, .. } = why else {
        panic!("{why:?}")
    };
    let taken: Vec<Vec<Square>> = allowed.iter().map(Move::captured_set).collect();
    assert_eq!(taken, [[sq(14), sq(23)]]);
}

#[test]
fn a_missed_capture_names_every_capture_allowed() {
    // White men on 32 and 33 can each take the black man on 28: both captures are named,
    // not one of them (draughts 6.1, 6.13).
    let Resolution::Irregular { why, .. } = resolve("W:W32,33:B28", 32, 27, None) else {
        panic!()
    };
    assert_eq!(
        why.to_string(),
        "a capture was compulsory: the majority rule allowed 2 captures of 1 piece: 32x23, 33x22; 32-27 takes none"
    );
    // 37x26 takes 1 piece while two routes over 28 and 18 take 2: both are named.
    let Resolution::Irregular { why, .. } = resolve("W:W32,33,37:B18,28,31", 37, 26, None) else {
        panic!()
    };
    assert_eq!(
        why.to_string(),
        "the majority rule allowed 2 captures of 2 pieces: 32x23x12, 33x22x13; 37x26 takes 1"
    );
}
