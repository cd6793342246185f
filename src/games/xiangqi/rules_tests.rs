//! One test per rule of movement (xiangqi 2.2, 2.3, 3.1, 3.2, 4.1), each through
//! `check_move` so the reason text is tested with the rule; then cross-checks of the two
//! independent implementations (move generation and `check_move`) on random games.

use super::{Color, Illegal, Move, Piece, PieceKind, Position, Square, Status};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(text: &str) -> Square {
    Square::parse(text).unwrap()
}

/// The reason `mv` is illegal in `fen`, as text.
fn why(fen: &str, mv: &str) -> String {
    let mv = Move::parse(mv).unwrap();
    match pos(fen).check_move(mv.from, mv.to) {
        Ok(_) => panic!("{mv} is legal in {fen}"),
        Err(e) => e.to_string(),
    }
}

/// Asserts `mv` is legal in `fen`, by both implementations.
fn legal(fen: &str, mv: &str) {
    let p = pos(fen);
    let mv = Move::parse(mv).unwrap();
    assert_eq!(p.check_move(mv.from, mv.to), Ok(mv), "{fen}");
    assert!(p.legal_moves().contains(&mv), "{mv} not generated in {fen}");
}

const START: &str = super::START_FEN;

#[test]
fn what_is_not_a_move_at_all() {
    assert_eq!(why(START, "d3d4"), "there is no piece on d3");
    assert_eq!(
        why(START, "h7h0"),
        "the piece on h7 is black's cannon, not red's"
    );
    assert_eq!(why(START, "e3e3"), "from and to are the same point e3");
    let own = "red's chariot on a0 cannot capture red's own soldier on a3";
    assert_eq!(why(START, "a0a3"), own);
    let empty = pos(START).check_move(sq("d3"), sq("d4"));
    assert_eq!(empty, Err(Illegal::EmptySquare { from: sq("d3") }));
}

#[test]
fn the_empty_point_comes_first() {
    assert_eq!(why(START, "d5d5"), "there is no piece on d5");
    assert_eq!(
        why(START, "h7h7"),
        "the piece on h7 is black's cannon, not red's"
    );
}

#[test]
fn general_steps_inside_the_palace() {
    let fen = "4k4/4a4/9/9/9/9/9/3K5/9/9 w";
    legal(fen, "d2e2");
    legal(fen, "d2d1");
    let rule = "a general may not leave the palace; d2 to c2 leaves it";
    assert_eq!(why(fen, "d2c2"), rule);
    assert_eq!(
        why(fen, "d2d3"),
        "a general may not leave the palace; d2 to d3 leaves it"
    );
    let diagonal = "a general moves one point along a file or a rank; d2 to e1 is not such a move";
    assert_eq!(why(fen, "d2e1"), diagonal);
}

#[test]
fn advisor_steps_diagonally_inside_the_palace() {
    let fen = "4k4/4a4/9/9/9/9/9/3A5/9/4K4 w";
    legal(fen, "d2e1");
    assert_eq!(
        why(fen, "d2c3"),
        "an advisor may not leave the palace; d2 to c3 leaves it"
    );
    let straight = "an advisor moves one point diagonally; d2 to d1 is not such a move";
    assert_eq!(why(fen, "d2d1"), straight);
}

#[test]
fn elephant_eye_and_river() {
    let blocked = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/3A5/RNB1KABNR w";
    assert_eq!(why(blocked, "c0e2"), "elephant c0 to e2 is blocked at d1");
    legal(blocked, "c0a2");
    let river = "4k4/4a4/9/9/9/2B6/9/9/9/4K4 w";
    let rule = "an elephant may not cross the river; c4 to e6 crosses it";
    assert_eq!(why(river, "c4e6"), rule);
    legal(river, "c4e2");
    let far = "an elephant moves two points diagonally; c4 to d5 is not such a move";
    assert_eq!(why(river, "c4d5"), far);
}

#[test]
fn horse_leg() {
    let rule = "a horse moves one point orthogonally then one diagonally outward; b0 to b1 is not such a move";
    assert_eq!(why(START, "b0b1"), rule);
    let own = "red's horse on b0 cannot capture red's own cannon on b2";
    assert_eq!(why(START, "b0b2"), own);
    assert_eq!(why(START, "b0d1"), "horse b0 to d1 is blocked at c0");
    legal(START, "b0c2");
    let fen = "4k4/4a4/9/9/4p4/4N4/9/9/9/4K4 w";
    assert_eq!(why(fen, "e4d6"), "horse e4 to d6 is blocked at e5");
    legal(fen, "e4c5");
}

#[test]
fn chariot_lines() {
    assert_eq!(why(START, "a0a5"), "chariot a0 to a5 is blocked at a3");
    let rule = "a chariot moves along a file or a rank; a0 to b1 is not such a move";
    assert_eq!(why(START, "a0b1"), rule);
    legal(START, "a0a2");
}

#[test]
fn cannon_screens() {
    legal(START, "b2b9");
    legal(START, "b2b6");
    let none = "cannon b2 to b7 captures only by jumping exactly one piece; there is none between";
    assert_eq!(why(START, "b2b7"), none);
    let jump = "cannon b2 to b8 does not capture, so it may not jump; it is blocked at b7";
    assert_eq!(why(START, "b2b8"), jump);
    let two = "rnbakabnr/9/1c5c1/p1p1p1p1p/1N7/9/P1P1P1P1P/1C5C1/9/R1BAKABNR w";
    let rule = "cannon b2 to b9 captures only by jumping exactly one piece; there are 2 between";
    assert_eq!(why(two, "b2b9"), rule);
    let mv = Move::parse("b2b9").unwrap();
    let error = pos(two).check_move(mv.from, mv.to).unwrap_err();
    assert!(matches!(error, Illegal::CannonTwoScreens { count: 2, .. }));
}

#[test]
fn soldier_forward_then_sideways_across_the_river() {
    assert_eq!(
        why(START, "e3e2"),
        "a soldier never moves backward; e3 to e2 goes back"
    );
    let side = "a soldier moves sideways only after crossing the river; e3 to d3 is before it";
    assert_eq!(why(START, "e3d3"), side);
    let two = "a soldier moves one point forward, or sideways once across the river; e3 to e5 is not such a move";
    assert_eq!(why(START, "e3e5"), two);
    legal(START, "e3e4");
    let crossed = "4k4/4a4/9/2p1P4/p8/9/9/9/9/4K4 w";
    legal(crossed, "e6d6");
    legal(crossed, "e6e7");
    let black = "4k4/4a4/9/2p1P4/p8/9/9/9/9/4K4 b";
    assert_eq!(why(black, "c6b6"), side.replace("e3 to d3", "c6 to b6"));
    legal(black, "a5a4");
    let black_crossed = "4k4/4a4/9/9/9/p8/9/9/9/4K4 b";
    legal(black_crossed, "a4b4");
    assert_eq!(
        why(black_crossed, "a4a5"),
        "a soldier never moves backward; a4 to a5 goes back"
    );
}

#[test]
fn check_must_be_answered() {
    let fen = "3k5/9/9/9/4r4/9/P8/9/9/3AK4 w";
    let rule = "after this move red's general on e0 is attacked by black's chariot on e5";
    assert_eq!(why(fen, "a3a4"), rule);
    legal(fen, "d0e1");
    assert_eq!(why(fen, "e0e1"), rule.replace("on e0", "on e1"));
    legal(fen, "e0f0");
    assert!(pos(fen).in_check());
    assert_eq!(pos(fen).checkers(), [sq("e5")]);
}

#[test]
fn pinned_pieces_and_new_screens() {
    let pinned = "3k5/9/9/9/4r4/9/9/9/4R4/4K4 w";
    let rule = "after this move red's general on e0 is attacked by black's chariot on e5";
    assert_eq!(why(pinned, "e1a1"), rule);
    legal(pinned, "e1e5");
    let screen = "3k5/9/4c4/9/9/R8/9/9/9/4K4 w";
    let cannon = "after this move red's general on e0 is attacked by black's cannon on e7";
    assert_eq!(why(screen, "a4e4"), cannon);
    let leg = "4k4/4a4/9/9/9/9/9/3n5/3N5/4K4 w";
    let horse = "after this move red's general on e0 is attacked by black's horse on d2";
    assert_eq!(why(leg, "d1b2"), horse);
}

#[test]
fn two_attackers_are_both_named() {
    let two = "3k5/9/9/9/4r4/9/P8/5n3/9/3AK4 w";
    let both = "after this move red's general on e0 is attacked by black's horse on f2 and black's chariot on e5";
    assert_eq!(why(two, "a3a4"), both);
    let mv = Move::parse("a3a4").unwrap();
    let Err(Illegal::LeavesGeneralInCheck { by, pieces, .. }) = pos(two).check_move(mv.from, mv.to)
    else {
        panic!("a3a4 should leave the general in check");
    };
    assert_eq!(by, [sq("f2"), sq("e5")]);
    assert_eq!(pieces, [PieceKind::Horse, PieceKind::Chariot]);
}

#[test]
fn generals_may_not_face() {
    let fen = "3k5/9/9/9/9/9/9/9/9/4K4 w";
    assert_eq!(
        why(fen, "e0d0"),
        "after this move the generals face each other on file d"
    );
    let screen = "4k4/9/9/9/9/4N4/9/9/9/4K4 w";
    assert_eq!(
        why(screen, "e4d6"),
        "after this move the generals face each other on file e"
    );
    let mv = Move::parse("e4d6").unwrap();
    let error = pos(screen).check_move(mv.from, mv.to).unwrap_err();
    assert_eq!(error, Illegal::GeneralsFace { file: 4 });
    assert!(!pos(screen).legal_moves().contains(&mv));
}

#[test]
fn checkmate_and_stalemate_both_lose() {
    let mate = pos("3k5/9/9/9/9/9/9/9/4R4/3RK4 b");
    assert_eq!(mate.status(), Status::Checkmate);
    assert!(mate.in_check() && mate.legal_moves().is_empty());
    let stalemate = pos("3k5/R8/9/9/9/9/9/9/9/4K4 b");
    assert_eq!(stalemate.status(), Status::Stalemate);
    assert!(!stalemate.in_check());
    let escape = pos("3k5/3P5/9/9/9/9/9/9/9/4K4 b");
    assert_eq!(escape.legal_moves(), [Move::parse("d9d8").unwrap()]);
    assert_eq!(escape.status(), Status::Ongoing);
    assert_eq!(pos(START).status(), Status::Ongoing);
}

#[test]
fn messages_name_both_sides_for_black() {
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b";
    assert_eq!(
        why(fen, "h2e2"),
        "the piece on h2 is red's cannon, not black's"
    );
    assert_eq!(
        why(fen, "a9a6"),
        "black's chariot on a9 cannot capture black's own soldier on a6"
    );
}

/// A small fixed pseudo-random generator, so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        usize::try_from(self.0 >> 33).unwrap() % n
    }
}

/// Positions from random games from the start, stopping at mate or after 150 plies.
fn random_positions(seed: u64, games: usize) -> Vec<Position> {
    let mut rng = Lcg(seed);
    let mut seen = Vec::new();
    for _ in 0..games {
        let mut p = Position::startpos();
        for _ in 0..150 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play(moves[rng.below(moves.len())]);
            seen.push(p.clone());
        }
    }
    seen
}

#[test]
fn check_move_agrees_with_move_generation() {
    for p in random_positions(7, 12) {
        let legal = p.legal_moves();
        for from in (0..90).filter_map(Square::from_index) {
            for to in (0..90).filter_map(Square::from_index) {
                let mv = Move::new(from, to);
                let accepted = p.check_move(from, to).is_ok();
                assert_eq!(accepted, legal.contains(&mv), "{mv} in {}", p.to_fen());
            }
        }
    }
}

#[test]
fn attackers_agree_with_move_generation() {
    for p in random_positions(11, 6) {
        for by in Color::ALL {
            let mut as_by = p.clone();
            as_by.side = by;
            let mut moves = Vec::new();
            as_by.pseudo_moves(&mut moves);
            for (cell, i) in p.board.iter().zip(0..) {
                let target = Square::from_index(i).unwrap();
                if cell.is_some_and(|piece| piece.color != by) {
                    let mut from: Vec<Square> = moves
                        .iter()
                        .filter(|m| m.to == target)
                        .map(|m| m.from)
                        .collect();
                    from.sort();
                    assert_eq!(
                        p.attackers(target, by),
                        from,
                        "{target} by {by} in {}",
                        p.to_fen()
                    );
                }
            }
        }
    }
}

#[test]
fn fen_hash_and_key_survive_random_play() {
    for p in random_positions(3, 8) {
        let again = pos(&p.to_fen());
        assert_eq!(again.to_fen(), p.to_fen());
        assert_eq!(again.repetition_key(), p.repetition_key());
        assert_eq!(p.zobrist(), p.compute_zobrist());
        assert_eq!(again.zobrist(), p.zobrist());
        let general = Piece::new(p.side_to_move(), PieceKind::General);
        assert_eq!(p.piece_at(p.general(p.side_to_move())), Some(general));
    }
}

#[test]
fn has_legal_move_agrees_with_the_full_list() {
    let ends = [
        "3k5/9/9/9/9/9/9/9/4R4/3RK4 b",
        "3k5/R8/9/9/9/9/9/9/9/4K4 b",
        "3k5/3P5/9/9/9/9/9/9/9/4K4 b",
    ];
    let mut positions = random_positions(5, 10);
    positions.extend(ends.map(pos));
    for p in positions {
        assert_eq!(
            p.has_legal_move(),
            !p.legal_moves().is_empty(),
            "{}",
            p.to_fen()
        );
    }
}

#[test]
fn captures_and_recaptures_agree_with_the_full_list() {
    for p in random_positions(13, 10) {
        let legal = p.legal_moves();
        let captures: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| p.piece_at(m.to).is_some())
            .collect();
        assert_eq!(p.legal_captures(), captures, "{}", p.to_fen());
        for m in captures {
            let mut after = p.clone();
            after.play(m);
            let expected = after.legal_moves().iter().any(|r| r.to == m.to);
            assert_eq!(p.recapture_possible(m), expected, "{m} in {}", p.to_fen());
        }
    }
}
