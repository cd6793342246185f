#![allow(incomplete_features)]
#![feature(adt_const_params)]
//! Black's forbidden points as mintaka's rules library (rusty_renju) sees them, for the
//! referee's differential test (src/games/renju/known_answers.rs).
//!
//! renju-reference GAMES SEED      positions from GAMES random games, one line each:
//!                                 `ROWS POINT:KIND ...` (`-` for none), ROWS rank 15 first
//!                                 in `.xo`, KIND 3 double-three, 4 double-four, 6 overline
//! renju-reference rejudge         re-judges such lines from stdin on boards built from
//!                                 scratch (checks mintaka's incremental updates)
//! renju-reference probe ROWS P..  prints mintaka's board and its patterns at points P
//!
//! rusty_renju needs nightly features; renju-reference.sh builds it with RUSTC_BOOTSTRAP=1.
use rusty_renju::board::Board;
use rusty_renju::notation::color::Color;
use rusty_renju::notation::pos::Pos;
use rusty_renju::notation::rule::{ForbiddenKind, RuleKind};
use rusty_renju::utils::empty::Empty;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

type B = Board<{ RuleKind::Renju }>;

fn cell(board: &B, idx: u8) -> char {
    match board.stone_kind(Pos::from_index(idx)) {
        Some(Color::Black) => 'x',
        Some(Color::White) => 'o',
        None => '.',
    }
}

fn rows(board: &B) -> String {
    (0..15u8).rev().map(|r| (0..15u8).map(|c| cell(board, r * 15 + c)).collect::<String>()).collect::<Vec<_>>().join("/")
}

fn forbidden(board: &B) -> String {
    let mut out = Vec::new();
    for idx in 0..225u8 {
        let pos = Pos::from_index(idx);
        if !board.is_pos_empty(pos) { continue; }
        if let Some(kind) = board.patterns.forbidden_kind(pos) {
            let k = match kind { ForbiddenKind::DoubleThree => 3, ForbiddenKind::DoubleFour => 4, ForbiddenKind::Overline => 6 };
            out.push(format!("{pos}:{k}"));
        }
    }
    if out.is_empty() { "-".to_string() } else { out.join(" ") }
}

/// Empty points near stones (Chebyshev distance `reach`), where games are decided.
fn near(board: &B, reach: i32) -> Vec<Pos> {
    let mut v = Vec::new();
    for idx in 0..225u8 {
        let pos = Pos::from_index(idx);
        if !board.is_pos_empty(pos) { continue; }
        let (r, c) = (pos.row() as i32, pos.col() as i32);
        let hit = (-reach..=reach).any(|dr| (-reach..=reach).any(|dc| {
            let (rr, cc) = (r + dr, c + dc);
            (0..15).contains(&rr) && (0..15).contains(&cc)
                && !board.is_pos_empty(Pos::from_cartesian(rr as u8, cc as u8))
        }));
        if hit { v.push(pos); }
    }
    v
}

fn build(rows: &str) -> B {
    let (mut blacks, mut whites) = (Vec::new(), Vec::new());
    for (r, row) in rows.split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let pos = Pos::from_cartesian((14 - r) as u8, c as u8);
            match ch { 'x' => blacks.push(pos), 'o' => whites.push(pos), _ => {} }
        }
    }
    let player = if blacks.len() == whites.len() { Color::Black } else { Color::White };
    let mut board = B::empty();
    board.batch_set_each_color_mut(blacks.into_boxed_slice(), whites.into_boxed_slice(), player);
    board
}

fn probe(rows: &str, names: &[String]) {
    let board = build(rows);
    println!("{}", board.to_string());
    for name in names {
        let pos: Pos = name.parse().unwrap();
        let p = board.patterns.field[Color::Black][pos.idx_usize()];
        println!("{name}: open3 {} any4 {} five {} forbidden {}", p.count_open_threes(), p.count_any_fours(), p.has_five(), board.patterns.is_forbidden(pos));
    }
}

/// Re-judges positions read from stdin (`ROWS ...`) on a board built from scratch.
fn rejudge() {
    use std::io::BufRead;
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let rows = line.split(' ').next().unwrap();
        println!("{} {}", rows, forbidden(&build(rows)));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args[1] == "rejudge" { return rejudge(); }
    if args[1] == "probe" { return probe(&args[2], &args[3..]); }
    let games: usize = args[1].parse().unwrap();
    let mut rng = Rng(args[2].parse::<u64>().unwrap() | 1);
    for _ in 0..games {
        let mut board = B::empty();
        board.set_mut(Pos::from_cartesian(7, 7));
        // Games near the stones (reach 1) are dense with shapes; reach 2 loosens them.
        let reach = 1 + rng.below(2) as i32;
        let plies = 20 + rng.below(80);
        let sample = 8 + rng.below(12);
        for ply in 1..plies {
            let color = board.player_color;
            let mut cands: Vec<Pos> = near(&board, reach).into_iter()
                .filter(|p| color == Color::White || !board.patterns.is_forbidden(*p)).collect();
            if cands.is_empty() { break; }
            // Black never plays a point mintaka calls forbidden, so games go on past them.
            let pos = cands.swap_remove(rng.below(cands.len()));
            if board.patterns.field[color][pos.idx_usize()].has_five() { break; }
            board.set_mut(pos);
            // Every third position from a random ply on: consecutive ones differ by a stone.
            if ply >= sample && ply % 3 == 0 {
                println!("{} {}", rows(&board), forbidden(&board));
            }
        }
    }
}
