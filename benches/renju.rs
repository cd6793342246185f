//! Renju throughput (issue 19 item 5): `cargo bench --bench renju [-- forbidden|replay]`.
//!
//! Perft says little of a placement game, so this measures what the referee spends on renju:
//! - `forbidden`: black's forbidden points over the whole board (every empty point judged,
//!   the recursive live-three test included) for the 4,899 known-answer positions of
//!   tests/renju/piskvork.txt (random games, up to 120 stones), in boards and points a second;
//! - `replay`: 2,000 seeded random games (stones near the last ones, so threes, fours and
//!   forbidden shapes arise; each game runs until a five or a forbidden stone white claims)
//!   through the pure fold with every ruling, in stones a second, and the cost per stone by
//!   the game's length (it must not grow with the stones on the board).
//!
//! Each figure is the best and the median of seven runs.

use std::time::Instant;

use referee::event::{ClaimKind, Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::games::renju::{Board, Point, forbidden_points};
use referee::referee::replay;

const RUNS: usize = 7;

fn main() {
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let runs = |name: &str| chosen.is_empty() || chosen.iter().any(|c| c == name);
    if runs("forbidden") {
        forbidden();
    }
    if runs("replay") {
        replay_games();
    }
}

/// Seconds of `RUNS` runs of `f`, sorted.
fn timed(mut f: impl FnMut() -> usize) -> (Vec<f64>, usize) {
    let mut times = Vec::new();
    let mut out = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        out = std::hint::black_box(f());
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times, out)
}

fn known_positions() -> Vec<Board> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/renju/piskvork.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let rows = l.split_whitespace().next().expect("rows");
            Board::from_rows(rows).unwrap_or_else(|e| panic!("{rows}: {e}"))
        })
        .collect()
}

fn forbidden() {
    let boards = known_positions();
    let empty: usize = boards.iter().map(|b| Point::COUNT - b.count()).sum();
    let (times, found) = timed(|| boards.iter().map(|b| forbidden_points(b).len()).sum());
    let (best, median) = (times[0], times[RUNS / 2]);
    let n = boards.len() as f64;
    println!(
        "renju forbidden points: {} positions, {empty} empty points judged, {found} forbidden \
         found; best {best:.4} s = {:.0} boards/s = {:.0} points/s (median {median:.4} s = \
         {:.0} boards/s)",
        boards.len(),
        n / best,
        empty as f64 / best,
        n / median
    );
}

/// A small deterministic generator (xorshift64*), so every run replays the same games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n).expect("n")).expect("index")
    }
}

fn event(side: Side, kind: EventKind) -> Event {
    Event {
        side,
        ts_ms: None,
        kind,
    }
}

/// A random game from the empty board: black on h8, white on i9 (its side of the centre),
/// then each stone on an empty point within two of a stone already placed, until a five or a
/// full board; white claims each forbidden stone of black's on its next turn one time in two
/// (and plays on otherwise).
fn random_game(rng: &mut Rng) -> Vec<Event> {
    let mut board = Board::new();
    let mut events = Vec::new();
    let mut placed: Vec<Point> = Vec::new();
    let mut side = Side::First;
    for point in ["h8", "i9"].map(|p| Point::parse(p).expect("point")) {
        board.play(point).expect("empty");
        placed.push(point);
        let to = Square::Renju(point);
        events.push(event(side, EventKind::Place { to }));
        side = side.opponent();
    }
    while !board.is_full() {
        let near: Vec<Point> = Point::all()
            .filter(|&p| board.stone(p).is_none())
            .filter(|p| {
                placed
                    .iter()
                    .any(|q| p.file().abs_diff(q.file()) <= 2 && p.rank().abs_diff(q.rank()) <= 2)
            })
            .collect();
        let point = near[rng.below(near.len())];
        if side == Side::First
            && referee::games::renju::foul_kind(&board, point).is_some()
            && rng.below(2) == 0
        {
            events.push(event(
                side,
                EventKind::Place {
                    to: Square::Renju(point),
                },
            ));
            let claim = ClaimKind::Forbidden;
            events.push(event(Side::Second, EventKind::Claim { claim }));
            return events;
        }
        board.play(point).expect("empty");
        placed.push(point);
        events.push(event(
            side,
            EventKind::Place {
                to: Square::Renju(point),
            },
        ));
        if board.five(point).is_some() {
            return events;
        }
        side = side.opponent();
    }
    events
}

fn replay_games() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let games: Vec<Vec<Event>> = (0..2000).map(|_| random_game(&mut rng)).collect();
    let header = Header::new(Variant::Renju, "bench");
    let stones: usize = games
        .iter()
        .flatten()
        .filter(|e| matches!(e.kind, EventKind::Place { .. }))
        .count();
    let (times, rulings) = timed(|| {
        games
            .iter()
            .map(|events| replay(&header, events).expect("start").rulings().len())
            .sum()
    });
    let (best, median) = (times[0], times[RUNS / 2]);
    let longest = games.iter().map(Vec::len).max().unwrap_or(0);
    println!(
        "renju replay: {} random games, {stones} stones (longest game {longest} events), \
         {rulings} rulings; best {best:.4} s = {:.0} stones/s (median {median:.4} s = {:.0} \
         stones/s)",
        games.len(),
        stones as f64 / best,
        stones as f64 / median
    );
    // Cost per stone by length: the same games cut at 20, 40, 80 and 120 stones where they
    // are that long, best of the runs each.
    for length in [20, 40, 80, 120] {
        let cut: Vec<&[Event]> = games
            .iter()
            .filter(|g| g.len() >= length)
            .map(|g| &g[..length])
            .collect();
        if cut.is_empty() {
            continue;
        }
        let (times, _) = timed(|| {
            cut.iter()
                .map(|events| replay(&header, events).expect("start").rulings().len())
                .sum()
        });
        let per = times[0] / (cut.len() * length) as f64;
        println!(
            "  {length:>3} stones: {} games, {:.2} us per stone",
            cut.len(),
            per * 1e6
        );
    }
}
