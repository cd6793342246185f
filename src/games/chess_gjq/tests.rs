//! Tests of whole positions, one per rule of the hidden-piece game.

use super::castling::{CastlingReason, CastlingSide};
use super::hidden::RevealError;
use super::illegal::{Illegal, PawnReason};
use super::moves::Move;
use super::piece::{Color, Piece, Role};
use super::position::Position;
use super::square::Square;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays `from`-`to` (which must be legal) and, for a hidden mover, reveals it as `role`.
fn play(p: &mut Position, from: &str, to: &str, role: Option<Role>) {
    let mv = p
        .check_move(sq(from), sq(to), None)
        .unwrap_or_else(|e| panic!("{from}{to} in {}: {e}", p.to_fen()));
    p.play(mv);
    if let Some(role) = role {
        let at = p.pending_reveal().expect("a hidden piece moved");
        p.reveal(at, role, None).unwrap();
    }
    assert_eq!(p.pending_reveal(), None);
}

fn refusal(p: &Position, from: &str, to: &str) -> Illegal {
    p.check_move(sq(from), sq(to), None).unwrap_err()
}

fn targets(p: &Position, from: &str) -> Vec<String> {
    let mut to: Vec<String> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.from == sq(from))
        .map(|m| m.to.to_string())
        .collect();
    to.sort();
    to
}

/// ../shared/spec/examples/chess_gjq-opening.jsonl (the project's shared folder, beside the
/// repository; chess_gjq 3.1.3, 3.1.5).
#[test]
fn the_opening_example_of_the_log_spec() {
    let mut p = Position::startpos();
    play(&mut p, "e2", "e4", Some(Role::Rook));
    play(&mut p, "c7", "c5", Some(Role::Knight));
    play(&mut p, "g1", "f3", Some(Role::Bishop));
    let fen = p.to_fen();
    assert_eq!(
        fen.split(' ').take(4).collect::<Vec<_>>().join(" "),
        "xxxxkxxx/xx1xxxxx/8/2n5/4R3/5B2/XXXX1XXX/XXXXKX1X b KQkq -"
    );
    assert_eq!(Position::from_fen(&fen).unwrap().to_fen(), fen);
    assert_eq!(p.hidden_count(), 27);
}

/// chess_gjq 3.1.3: a hidden piece moves as its start square's piece.
#[test]
fn hidden_pieces_move_as_their_start_square() {
    let p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/8/XXXXKXXX w KQkq - 0 1");
    assert_eq!(
        targets(&p, "c1"),
        ["a3", "b2", "d2", "e3", "f4", "g5", "h6"]
    );
    let queen = [
        "a4", "b3", "c2", "d2", "d3", "d4", "d5", "d6", "d7", "e2", "f3", "g4", "h5",
    ];
    assert_eq!(targets(&p, "d1"), queen);
    assert_eq!(targets(&p, "b1"), ["a3", "c3", "d2"]);
    assert_eq!(
        refusal(&p, "c1", "c3").to_string(),
        "the hidden piece on c1 moves as a bishop, diagonally (chess_gjq 3.1.3); c1 to c3 is \
         not such a move"
    );
    assert_eq!(refusal(&p, "c1", "c3").article(), "chess_gjq 8.3");
}

/// chess_gjq 3.1.5: once revealed, a piece moves as what it is.
#[test]
fn revealed_pieces_move_as_what_they_are() {
    let mut p = Position::startpos();
    play(&mut p, "e2", "e4", Some(Role::Rook));
    play(&mut p, "a7", "a6", Some(Role::Pawn));
    assert!(targets(&p, "e4").contains(&"a4".to_string()));
    assert_eq!(
        refusal(&p, "e4", "f5").to_string(),
        "a rook moves along ranks and files; e4 to f5 is not such a move"
    );
    assert_eq!(refusal(&p, "e4", "f5").article(), "chess_gjq 5.6");
}

/// chess_gjq 3.1.5, 5.5: only the piece that has just moved may be turned up, and nothing
/// moves before it is.
#[test]
fn a_move_of_a_hidden_piece_awaits_its_reveal() {
    let mut p = Position::startpos();
    assert_eq!(
        p.reveal(sq("e2"), Role::Pawn, None),
        Err(RevealError::NotPending {
            square: sq("e2"),
            pending: None
        })
    );
    p.play(Move::new(sq("e2"), sq("e4")));
    assert_eq!(p.side_to_move(), Color::Black);
    assert_eq!(p.piece_at(sq("e4")), Some(Piece::hidden(Color::White)));
    assert!(p.legal_moves().is_empty());
    assert_eq!(
        refusal(&p, "e7", "e5"),
        Illegal::AwaitingReveal { square: sq("e4") }
    );
    let wrong = p.reveal(sq("d2"), Role::Pawn, None).unwrap_err();
    assert_eq!(wrong.article(), "chess_gjq 5.5");
    assert_eq!(
        wrong.to_string(),
        "the piece on d2 has not just moved; the hidden piece awaiting its reveal stands on e4"
    );
    p.reveal(sq("e4"), Role::Pawn, None).unwrap();
    assert_eq!(p.legal_moves().len(), 20);
}

/// chess_gjq 8.6: a reveal must fit the colour's piece set of 8 P, 2 R, 2 N, 2 B, 1 Q.
#[test]
fn a_second_queen_cannot_be_revealed() {
    let mut p = Position::startpos();
    play(&mut p, "e2", "e4", Some(Role::Queen));
    play(&mut p, "e7", "e5", Some(Role::Queen));
    p.play(Move::new(sq("d2"), sq("d4")));
    let before = p.clone();
    let err = p.reveal(sq("d4"), Role::Queen, None).unwrap_err();
    assert!(matches!(
        err,
        RevealError::Inconsistent {
            color: Color::White,
            role: Role::Queen,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "white cannot reveal another queen: its hidden pieces held 1 queen and it has already \
         revealed 1 queen"
    );
    assert_eq!(err.article(), "chess_gjq 8.6");
    assert_eq!(p, before);
    assert!(p.reveal(sq("d4"), Role::King, None).is_err());
    p.reveal(sq("d4"), Role::Rook, None).unwrap();
    assert_eq!(p.revealed(Color::White).to_string(), "1 rook, 1 queen");
}

/// chess_gjq 8.6: captured hidden pieces stay unknown, so they use up nothing.
#[test]
fn captured_hidden_pieces_count_as_nothing() {
    let mut p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXXKXXX w KQkq - 0 1");
    play(&mut p, "b1", "c3", Some(Role::Knight));
    play(&mut p, "d7", "d5", Some(Role::Pawn));
    play(&mut p, "c3", "d5", None);
    assert_eq!(p.revealed(Color::Black).to_string(), "1 pawn");
}

/// chess_gjq 4.1.2.6.2 (1): a rook- or queen-square piece moving along its back rank and
/// turning out a pawn stays there and may only step to its second rank.
#[test]
fn back_rank_pawns_step_only_to_the_second_rank() {
    let mut p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/8/X2XK3 w - - 0 1");
    play(&mut p, "d1", "b1", Some(Role::Pawn));
    play(&mut p, "a7", "a6", Some(Role::Pawn));
    assert_eq!(targets(&p, "b1"), ["b2"]);
    assert_eq!(
        refusal(&p, "b1", "b3"),
        Illegal::Pawn {
            mover: super::illegal::Mover {
                color: Color::White,
                role: Role::Pawn,
                hidden: false
            },
            from: sq("b1"),
            to: sq("b3"),
            reason: PawnReason::BackRankStep
        }
    );
    assert_eq!(
        refusal(&p, "b1", "b3").to_string(),
        "a pawn on its own back rank may only step one square, to its second rank; b1 to b3 \
         is not such a move"
    );
}

/// chess_gjq 4.1.2.6.2 (1): a piece that moves hidden onto its second rank and turns out a
/// pawn counts as an unmoved pawn: it may advance two squares.
#[test]
fn a_pawn_revealed_on_the_second_rank_may_double_step() {
    let mut p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/8/XXXXKXXX w KQkq - 0 1");
    play(&mut p, "b1", "d2", Some(Role::Pawn));
    play(&mut p, "a7", "a6", Some(Role::Pawn));
    assert_eq!(targets(&p, "d2"), ["d3", "d4"]);
    play(&mut p, "d2", "d4", None);
    assert_eq!(p.ep_square(), Some(sq("d3")));
}

/// chess_gjq 4.1.2.6.2 (2) b: a hidden second-rank piece that advances two squares may be
/// taken en passant whatever it turns out to be, on the very next move only.
#[test]
fn en_passant_takes_a_hidden_double_step_that_revealed_a_knight() {
    let mut p = pos("xxxxkxxx/xxx1xxxx/8/8/3p4/8/XXXXXXXX/XXXXKXXX w KQkq - 0 1");
    play(&mut p, "e2", "e4", Some(Role::Knight));
    assert!(targets(&p, "d4").contains(&"e3".to_string()));
    let mut taken = p.clone();
    play(&mut taken, "d4", "e3", None);
    assert_eq!(taken.piece_at(sq("e4")), None);
    assert_eq!(
        taken.piece_at(sq("e3")).and_then(|x| x.role),
        Some(Role::Pawn)
    );
    // Not taken at once: the right is gone.
    play(&mut p, "a7", "a6", Some(Role::Pawn));
    play(&mut p, "a2", "a3", Some(Role::Pawn));
    assert!(!targets(&p, "d4").contains(&"e3".to_string()));
    assert_eq!(
        refusal(&p, "d4", "e3").to_string(),
        "a pawn moves diagonally only to capture (or en passant right after a double step); d4 \
         to e3 is not such a move"
    );
}

/// chess_gjq 4.1.2.6.2 (3): a hidden rook- or queen-square piece that reaches the enemy back
/// rank and turns out a pawn promotes at once, with its reveal.
#[test]
fn a_hidden_piece_revealing_a_pawn_on_the_last_rank_promotes() {
    let mut p = pos("1xxxkxxx/1xxxxxxx/8/8/8/8/1XXXXXXX/XXXXKXXX w Kk - 0 1");
    let promoting = p.check_move(sq("a1"), sq("a8"), Some(Role::Queen));
    assert!(matches!(
        promoting,
        Err(Illegal::PromotionUnexpected { .. })
    ));
    p.play(Move::new(sq("a1"), sq("a8")));
    assert_eq!(
        p.reveal(sq("a8"), Role::Pawn, None),
        Err(RevealError::PromotionMissing { square: sq("a8") })
    );
    assert!(matches!(
        p.reveal(sq("a8"), Role::Rook, Some(Role::Queen)),
        Err(RevealError::PromotionUnexpected { .. })
    ));
    assert!(matches!(
        p.reveal(sq("a8"), Role::Pawn, Some(Role::King)),
        Err(RevealError::InvalidPromotion { .. })
    ));
    p.reveal(sq("a8"), Role::Pawn, Some(Role::Queen)).unwrap();
    assert_eq!(
        p.piece_at(sq("a8")),
        Some(Piece::revealed(Color::White, Role::Queen))
    );
    // The promoted piece was revealed as a pawn (chess_gjq 8.6).
    assert_eq!(p.revealed(Color::White).to_string(), "1 pawn");
}

/// chess_gjq 4.1.3: the king goes two squares, the rook-square piece jumps over and is then
/// revealed; it may turn out a pawn, which then stands on the back rank.
#[test]
fn castling_with_the_hidden_rook_square_piece() {
    let mut p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXXK2X w KQkq - 0 1");
    assert!(targets(&p, "e1").contains(&"g1".to_string()));
    p.play(Move::new(sq("e1"), sq("g1")));
    assert_eq!(p.pending_reveal(), Some(sq("f1")));
    p.reveal(sq("f1"), Role::Pawn, None).unwrap();
    assert_eq!(
        p.to_fen(),
        "xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXX1PK1 b kq - 0 1"
    );
}

/// chess_gjq 4.1.2.3: once the rook-square piece has moved, castling on that side is gone,
/// even if it comes back.
#[test]
fn castling_is_gone_once_the_rook_square_piece_moved() {
    let mut p = pos("xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXX1/XXXXK2X w KQkq - 0 1");
    play(&mut p, "h1", "h3", Some(Role::Rook));
    play(&mut p, "a7", "a6", Some(Role::Pawn));
    play(&mut p, "h3", "h1", None);
    play(&mut p, "a6", "a5", None);
    let err = refusal(&p, "e1", "g1");
    assert_eq!(
        err.to_string(),
        "the rook-square piece h1 has moved, so white cannot castle king-side"
    );
    assert_eq!(err.article(), "chess_gjq 5.6");
    assert_eq!(p.castling_rights().fen(), "Qkq");
}

/// chess_gjq 4.1.4 (3)-(5), 5.2.
#[test]
fn castling_out_of_through_or_into_check() {
    let p = pos("4k3/8/8/4r3/8/8/8/X3K2X w KQ - 0 1");
    let err = refusal(&p, "e1", "g1");
    assert!(matches!(
        err,
        Illegal::Castling {
            side: CastlingSide::KingSide,
            reason: CastlingReason::InCheck { .. },
            ..
        }
    ));
    assert_eq!(err.article(), "chess_gjq 5.2");
    let through = pos("4k3/8/8/8/8/8/8/X3K2X w KQ - 0 1");
    assert!(through.check_move(sq("e1"), sq("c1"), None).is_ok());
    let through = pos("3rk3/8/8/8/8/8/8/X3K2X w KQ - 0 1");
    assert_eq!(
        refusal(&through, "e1", "c1").to_string(),
        "white cannot castle queen-side: the king would pass d1, attacked from d8"
    );
}

/// chess_gjq 4.1.2.1, 5.2: a move that leaves one's king attacked loses.
#[test]
fn exposing_the_king_names_the_attacker() {
    let p = pos("4k3/4q3/8/8/8/8/4R3/4K3 w - - 0 1");
    let err = refusal(&p, "e2", "d2");
    assert_eq!(
        err.to_string(),
        "after this move white's king on e1 is attacked by black's queen on e7"
    );
    assert_eq!(err.article(), "chess_gjq 5.2");
    let checked = pos("4k3/8/8/8/8/8/4q3/R3K3 w - - 0 1");
    assert_eq!(
        refusal(&checked, "a1", "a2").to_string(),
        "white is in check and this move does not answer it: after this move white's king on \
         e1 is attacked by black's queen on e2"
    );
}

/// chess_gjq 3.1.3: hidden pieces attack as their start square's piece.
#[test]
fn hidden_pieces_give_check() {
    let p = pos("xxxxkxxx/xxx1xxxx/8/8/8/8/8/3K4 w kq - 0 1");
    assert!(p.in_check());
    let err = refusal(&p, "d1", "d2");
    assert_eq!(
        err.to_string(),
        "white is in check and this move does not answer it: after this move white's king on \
         d2 is attacked by black's hidden piece (moving as a queen) on d8"
    );
}

#[test]
fn empty_and_opponent_squares() {
    let p = Position::startpos();
    assert_eq!(
        refusal(&p, "e4", "e5"),
        Illegal::EmptySquare { square: sq("e4") }
    );
    assert_eq!(
        refusal(&p, "e7", "e5").to_string(),
        "e7 holds a black hidden piece, but it is white's turn"
    );
    assert_eq!(
        refusal(&p, "a1", "a2").to_string(),
        "white's own piece stands on a2"
    );
    assert_eq!(
        refusal(&p, "d1", "d3").to_string(),
        "the white hidden piece (moving as a queen) cannot go from d1 to d3: the piece on d2 is \
         in the way"
    );
}

#[test]
fn pawn_refusals() {
    let p = pos("4k3/8/8/8/8/3p4/4P3/3K4 w - - 0 1");
    let reason = |from: &str, to: &str| match refusal(&p, from, to) {
        Illegal::Pawn { reason, .. } => reason,
        other => panic!("{other}"),
    };
    assert_eq!(reason("e2", "e1"), PawnReason::NotForward);
    assert_eq!(reason("e2", "f3"), PawnReason::DiagonalWithoutCapture);
    assert_eq!(reason("e2", "e5"), PawnReason::TooFar);
    let q = pos("4k3/8/8/8/8/4p3/4P3/4K3 w - - 0 1");
    assert!(matches!(
        refusal(&q, "e2", "e3"),
        Illegal::Pawn {
            reason: PawnReason::StraightOntoPiece,
            ..
        }
    ));
    let r = pos("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        refusal(&r, "a7", "a8"),
        Illegal::PromotionMissing {
            from: sq("a7"),
            to: sq("a8")
        }
    );
}

/// The half-move clock restarts on a move of a hidden piece: it is irreversible.
#[test]
fn counters() {
    let mut p = Position::startpos();
    play(&mut p, "g1", "f3", Some(Role::Knight));
    assert_eq!(p.halfmove_clock(), 0);
    play(&mut p, "g8", "f6", Some(Role::Knight));
    play(&mut p, "f3", "g1", None);
    assert_eq!((p.halfmove_clock(), p.fullmove_number()), (1, 2));
}

/// chess_gjq 6.4: positions repeat only with the same hidden squares.
#[test]
fn repetition_keys_follow_the_board() {
    let mut p = Position::startpos();
    play(&mut p, "g1", "f3", Some(Role::Knight));
    play(&mut p, "g8", "f6", Some(Role::Knight));
    let first = p.repetition_key();
    play(&mut p, "f3", "g1", None);
    play(&mut p, "f6", "g8", None);
    // Face up on g1 now: not the start position.
    assert_ne!(p.repetition_key(), Position::startpos().repetition_key());
    play(&mut p, "g1", "f3", None);
    play(&mut p, "g8", "f6", None);
    assert_eq!(p.repetition_key(), first);
}
