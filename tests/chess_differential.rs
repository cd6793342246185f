//! Differential test: from positions without hidden pieces, chess_gjq is ordinary chess
//! (chess_gjq 第一章), so its legal moves must be exactly shakmaty's, position by position,
//! along thousands of random games from the standard test positions.

use std::collections::BTreeSet;

use referee::games::chess_gjq;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// The six standard perft positions (without hidden pieces).
const STARTS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

const GAMES_PER_START: u64 = 40;
const MAX_PLIES: usize = 120;

/// A small deterministic generator (64-bit LCG, high bits), so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let high = usize::try_from(self.0 >> 33).unwrap_or(0);
        high % n.max(1)
    }
}

fn shakmaty_moves(pos: &Chess) -> BTreeSet<String> {
    pos.legal_moves()
        .into_iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect()
}

fn gjq_moves(pos: &chess_gjq::Position) -> BTreeSet<String> {
    pos.legal_moves().iter().map(ToString::to_string).collect()
}

/// Plays one random game in both and compares the move sets at every position; the number
/// of positions compared.
fn random_game(start: &str, rng: &mut Lcg) -> usize {
    let fen: Fen = start.parse().expect("fen");
    let mut theirs: Chess = fen.into_position(CastlingMode::Standard).expect("position");
    let mut ours = chess_gjq::Position::from_fen(start).expect("chess_gjq position");
    for ply in 0..MAX_PLIES {
        let want = shakmaty_moves(&theirs);
        let got = gjq_moves(&ours);
        assert_eq!(got, want, "{start}, ply {ply}: chess_gjq {}", ours.to_fen());
        let board = ours.to_fen();
        let board = board.split(' ').next().unwrap_or_default().to_string();
        assert_eq!(board, theirs.board().to_string(), "{start}, ply {ply}");
        let list = theirs.legal_moves();
        if list.is_empty() {
            return ply + 1;
        }
        let m = list[rng.below(list.len())];
        let uci = m.to_uci(CastlingMode::Standard).to_string();
        let mv = ours
            .legal_moves()
            .into_iter()
            .find(|mv| mv.to_string() == uci)
            .expect("same move");
        ours.play(mv);
        theirs.play_unchecked(m);
    }
    MAX_PLIES
}

#[test]
fn legal_moves_equal_shakmatys_along_random_games() {
    let mut rng = Lcg(0x9e37_79b9_7f4a_7c15);
    let mut positions = 0;
    for start in STARTS {
        for _ in 0..GAMES_PER_START {
            positions += random_game(start, &mut rng);
        }
    }
    assert!(positions > 5_000, "only {positions} positions compared");
}

/// Positions where legality turns on one detail, perft-counted by both engines: en passant
/// that would expose the king along a rank or a diagonal, castling out of, through and into
/// check, promotions with and without capture (also as the answer to a check), pins along
/// every kind of line, and a check that a pinned piece cannot block.
const CORNER_CASES: [(&str, u32); 12] = [
    // En passant exposing the king along the rank (the two pawns leave it together).
    ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", 4),
    ("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", 4),
    // En passant by a pawn pinned on a diagonal, and en passant that removes the checker.
    ("8/8/1k6/2b5/3Pp3/8/8/6K1 b - d3 0 1", 4),
    ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 4),
    // Castling: rights everywhere, squares attacked on either wing, and in check.
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 3),
    ("r3k2r/8/8/8/8/8/2r3r1/R3K2R w KQkq - 0 1", 3),
    ("r3k2r/8/8/8/8/5b2/8/R3K2R w KQkq - 0 1", 3),
    ("r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1", 3),
    // Promotions, captures onto the last rank, and a promotion answering a check.
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 4),
    ("3k4/1P6/8/8/8/8/6p1/3K1R2 w - - 0 1", 4),
    // Pins along a file, a rank and both diagonals; a check the pinned knight cannot block.
    ("4k3/4r3/8/1b5b/8/3NRN2/4K1Br/8 w - - 0 1", 3),
    ("4k3/8/8/8/1b6/8/3N4/r3K2R w K - 0 1", 4),
];

#[test]
fn perft_equals_shakmatys_on_corner_cases() {
    for (fen, depth) in CORNER_CASES {
        let theirs: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        let ours = chess_gjq::Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for d in 1..=depth {
            assert_eq!(
                chess_gjq::perft(&ours, d),
                shakmaty::perft(&theirs, d),
                "{fen}, depth {d}"
            );
        }
    }
}
