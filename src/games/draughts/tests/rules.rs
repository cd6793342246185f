//! The rules of movement and capture, one test per article.

use super::super::{Color, PieceKind, Position};
use super::{moves, pos, sq};

#[test]
fn men_step_one_square_diagonally_forward() {
    // draughts 5.4
    let white = [
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
    ];
    assert_eq!(moves("W:W31-50:B1-20"), white);
    let black = [
        "16-21", "17-21", "17-22", "18-22", "18-23", "19-23", "19-24", "20-24", "20-25",
    ];
    assert_eq!(moves("B:W31-50:B1-20"), black);
    assert_eq!(
        moves("W:W46:B1"),
        ["46-41"],
        "the edge leaves one way forward"
    );
}

#[test]
fn capture_is_compulsory_forwards_and_backwards() {
    // draughts 6.1, 6.2
    assert_eq!(moves("W:W33,45:B28"), ["33x22"]);
    assert_eq!(
        moves("W:W28,45:B33"),
        ["28x39"],
        "a man captures backwards too"
    );
    assert_eq!(moves("B:W28:B22,1"), ["22x33"]);
    assert!(
        moves("W:W28:B33,39").iter().all(|m| !m.contains('x')),
        "no square behind"
    );
}

#[test]
fn kings_fly_along_empty_diagonals() {
    // draughts 5.9
    let steps = moves("W:WK46:B15");
    assert_eq!(steps.len(), 9, "{steps:?}");
    assert!(steps.contains(&"46-5".to_string()));
    assert_eq!(
        moves("W:WK46,32:B15").len(),
        2 + 2,
        "own man on 32 stops the king at 37"
    );
}

#[test]
fn kings_capture_at_a_distance_and_land_anywhere_behind() {
    // draughts 6.3
    assert_eq!(moves("W:WK46:B23"), ["46x10", "46x14", "46x19", "46x5"]);
    assert_eq!(moves("W:WK46:B5").len(), 8, "no square behind 5");
    assert_eq!(
        moves("W:WK46:B23,19").len(),
        4,
        "two pieces in a row cannot be taken"
    );
}

#[test]
fn kings_turn_during_a_multiple_capture() {
    // draughts 6.6-6.7: the king must land on 28, the one square from which it can go on.
    assert_eq!(moves("W:WK46:B32,17"), ["46x28x11", "46x28x6"]);
}

#[test]
fn turkish_strike_jumped_pieces_stay_and_block() {
    // draughts 6.9, 6.12: the loop 28x19x30x39 comes back over 28, but 23, already jumped,
    // still stands between it and 14. With pieces removed at once the king would take 5.
    let legal = pos("W:WK28:B14,23,24,33,34").legal_moves();
    assert_eq!(legal.len(), 11, "{legal:?}");
    for mv in &legal {
        assert_eq!(mv.captures.len(), 4, "{}", mv.pdn_full());
        let set = mv.captured_set();
        assert!(
            !(set.contains(&sq(14)) && set.contains(&sq(23))),
            "{}",
            mv.pdn_full()
        );
    }
    // Both directions round the loop back to 28 take the same pieces: one move (6.14).
    assert_eq!(legal.iter().filter(|m| m.to() == sq(28)).count(), 1);
}

#[test]
fn a_piece_is_jumped_only_once() {
    // draughts 6.9: a man may cross an empty square twice but never jump a piece twice.
    let legal = pos("W:W28:B22,12,13,23").legal_moves();
    assert_eq!(legal.len(), 1, "{legal:?}");
    assert_eq!(legal[0].captures.len(), 4);
    assert_eq!((legal[0].from(), legal[0].to()), (sq(28), sq(28)));
}

#[test]
fn majority_rule_counts_a_king_as_one() {
    // draughts 6.13: two men outweigh one king.
    assert_eq!(moves("W:W37,39:BK31,34,24"), ["39x30x19"]);
    // And among kings only the count matters: two kings outweigh a man and are forced.
    assert_eq!(moves("W:W37,39:B31,K34,K24"), ["39x30x19"]);
}

#[test]
fn equal_routes_are_a_free_choice() {
    // draughts 6.14: with a man or with another man, or by either of two routes.
    assert_eq!(moves("W:W32,34:B28,29"), ["32x23", "34x23"]);
    assert_eq!(moves("W:W28:B22,23"), ["28x17", "28x19"]);
}

#[test]
fn a_man_passing_the_back_row_stays_a_man() {
    // draughts 6.15: 13x2x11 touches the crowning row on 2 but ends on 11.
    let mut p = pos("W:W13:B7,8");
    let legal = p.legal_moves();
    assert_eq!(legal.len(), 1);
    assert_eq!(legal[0].pdn_full(), "13x2x11");
    p.play(&legal[0]);
    assert_eq!(p.piece_at(sq(11)).map(|x| x.kind), Some(PieceKind::Man));
    assert_eq!(p.count(Color::Black, PieceKind::Man), 0);
}

#[test]
fn men_ending_on_the_far_row_are_crowned() {
    // draughts 5.5-5.6
    let mut p = pos("W:W6:B45");
    let step = p
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == sq(1))
        .unwrap();
    p.play(&step);
    assert_eq!(p.count(Color::White, PieceKind::King), 1);
    let step = p
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == sq(50))
        .unwrap();
    p.play(&step);
    assert_eq!(p.count(Color::Black, PieceKind::King), 1);
    assert_eq!(p.to_fen(), "W:WK1:BK50");
    let mut capture = pos("W:W13:B8");
    capture.play(&capture.legal_moves()[0]);
    assert_eq!(capture.to_fen(), "B:WK2:B");
}

#[test]
fn no_moves_means_an_empty_list() {
    // draughts 12.2: a player who cannot move loses; the referee sees an empty list.
    assert!(pos("W:W46:B41,37").legal_moves().is_empty());
    assert!(pos("B:W46:B").legal_moves().is_empty());
    assert_eq!(Position::startpos().legal_moves().len(), 9);
}
