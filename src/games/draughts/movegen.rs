//! Legal moves. Capturing is compulsory (draughts 6.1) and must take the most pieces (6.13);
//! only when nothing can be taken do men step forward (5.4) and kings fly (5.9).

use super::diagonal::{DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, ray};
use super::moves::Move;
use super::piece::Color;
use super::position::{ALL_SQUARES, Position, bit, indices};
use super::square::Square;

/// The longest capture: every one of the opponent's 20 pieces, plus the start square.
const MAX_PATH: usize = 21;

/// Two routes with the same start, end and captured set are one move (6.14, perft convention).
pub(super) type RouteKey = (u8, u8, u64);

/// A move as move generation builds it from a route.
pub(super) trait Route {
    /// The move for `path` (square indices, start first) taking `taken` (`mask` as a set).
    fn build(path: &[u8], taken: &[u8], mask: u64) -> Self;
    /// What makes two routes the same move.
    fn key(&self) -> RouteKey;
}

/// A move reduced to what playing it needs: the fast form for perft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Compact {
    pub from: u8,
    pub to: u8,
    pub taken: u64,
}

impl Route for Compact {
    fn build(path: &[u8], _taken: &[u8], mask: u64) -> Self {
        Compact {
            from: path[0],
            to: path[path.len() - 1],
            taken: mask,
        }
    }

    fn key(&self) -> RouteKey {
        (self.from, self.to, self.taken)
    }
}

impl Route for Move {
    fn build(path: &[u8], taken: &[u8], _mask: u64) -> Self {
        let squares = |indices: &[u8]| indices.iter().map(|&i| Square::of_index(i)).collect();
        Move {
            path: squares(path),
            captures: squares(taken),
        }
    }

    fn key(&self) -> RouteKey {
        let mask = self
            .captures
            .iter()
            .fold(0, |m, sq| m | bit(sq.bit_index()));
        (self.from().bit_index(), self.to().bit_index(), mask)
    }
}

/// Keeps the capture routes that take the most pieces (6.13: a king counts as one, so the
/// count is simply the number of pieces taken).
struct Majority<T> {
    best: usize,
    routes: Vec<T>,
    /// Whether routes with the same key are merged (false only to compare with other tools).
    distinct: bool,
}

impl<T: Route> Majority<T> {
    fn offer(&mut self, path: &[u8], taken: &[u8], mask: u64) {
        if taken.len() < self.best {
            return;
        }
        if taken.len() > self.best {
            self.best = taken.len();
            self.routes.clear();
        }
        let route = T::build(path, taken, mask);
        if !self.distinct || !self.routes.iter().any(|r| r.key() == route.key()) {
            self.routes.push(route);
        }
    }
}

impl Position {
    /// The legal moves: captures are compulsory and the majority rule applies (draughts 6.1,
    /// 6.13); each capture is one full route, and routes with the same start, end and captured
    /// set are listed once (6.14: the choice between them is free).
    pub fn legal_moves(&self) -> Vec<Move> {
        generate(self, true)
    }
}

/// Every legal move in the form `T`; `distinct` merges routes with the same key.
pub(super) fn generate<T: Route>(pos: &Position, distinct: bool) -> Vec<T> {
    let mut majority = Majority {
        best: 0,
        routes: Vec::new(),
        distinct,
    };
    let own = pos.of(pos.side_to_move());
    let enemy = pos.of(pos.side_to_move().opponent());
    for from in indices(own) {
        let mut search = CaptureSearch::new(pos, from, enemy, |path: &[u8], taken: &[u8], mask| {
            majority.offer(path, taken, mask)
        });
        search.run();
    }
    if majority.routes.is_empty() {
        steps(pos, &mut majority.routes);
    }
    majority.routes
}

/// The forward directions of a man of `color` (5.4).
pub(super) fn forward(color: Color) -> [usize; 2] {
    match color {
        Color::White => [UP_LEFT, UP_RIGHT],
        Color::Black => [DOWN_LEFT, DOWN_RIGHT],
    }
}

/// Non-capturing moves: a man one square diagonally forward (5.4), a king any distance along
/// an empty diagonal (5.9).
fn steps<T: Route>(pos: &Position, out: &mut Vec<T>) {
    let side = pos.side_to_move();
    let empty = ALL_SQUARES & !pos.occupied();
    let own = pos.of(side);
    for from in indices(own & !pos.kings()) {
        for direction in forward(side) {
            if let Some(&to) = ray(from, direction)
                .first()
                .filter(|&&to| empty & bit(to) != 0)
            {
                out.push(T::build(&[from, to], &[], 0));
            }
        }
    }
    for from in indices(own & pos.kings()) {
        for direction in 0..4 {
            for &to in ray(from, direction)
                .iter()
                .take_while(|&&to| empty & bit(to) != 0)
            {
                out.push(T::build(&[from, to], &[], 0));
            }
        }
    }
}

/// A depth-first walk over the capture routes of one piece. Jumped pieces stay on the board
/// until the capture ends (6.12), so they can be jumped only once and block any later jump
/// over them (6.9, the Turkish strike); empty squares may be crossed again.
pub(super) struct CaptureSearch<F> {
    /// The pieces that may be taken.
    jumpable: u64,
    /// The squares that may be crossed or landed on: empty ones and the start square.
    empty: u64,
    king: bool,
    /// Report every route with a capture, not only those that cannot go on (for judging
    /// irregular moves: a capture stopped early, 7.4).
    every_prefix: bool,
    path: [u8; MAX_PATH],
    path_len: usize,
    taken: [u8; MAX_PATH],
    taken_len: usize,
    mask: u64,
    sink: F,
}

impl<F: FnMut(&[u8], &[u8], u64)> CaptureSearch<F> {
    /// The search for the piece on `from` in `pos`, which may take the pieces in `jumpable`.
    pub(super) fn new(pos: &Position, from: u8, jumpable: u64, sink: F) -> Self {
        let mut path = [0; MAX_PATH];
        path[0] = from;
        CaptureSearch {
            jumpable,
            empty: (ALL_SQUARES & !pos.occupied()) | bit(from),
            king: pos.kings() & bit(from) != 0,
            every_prefix: false,
            path,
            path_len: 1,
            taken: [0; MAX_PATH],
            taken_len: 0,
            mask: 0,
            sink,
        }
    }

    /// Reports every route with at least one capture, finished or not.
    pub(super) fn every_prefix(mut self) -> Self {
        self.every_prefix = true;
        self
    }

    /// Walks all routes, handing each finished one to the sink.
    pub(super) fn run(&mut self) {
        self.extend(self.path[0]);
    }

    fn extend(&mut self, at: u8) {
        let mut went_on = false;
        for direction in 0..4 {
            went_on |= if self.king {
                self.fly_jump(at, direction)
            } else {
                self.short_jump(at, direction)
            };
        }
        // 6.6-6.7: a capture ends only when no further piece can be taken.
        if self.taken_len > 0 && (!went_on || self.every_prefix) {
            (self.sink)(
                &self.path[..self.path_len],
                &self.taken[..self.taken_len],
                self.mask,
            );
        }
    }

    /// A man takes the adjacent piece and lands right behind it (6.2), forwards or back (6.1).
    fn short_jump(&mut self, at: u8, direction: usize) -> bool {
        match *ray(at, direction) {
            [victim, landing, ..] if self.can_take(victim) && self.is_empty(landing) => {
                self.jump(victim, landing);
                true
            }
            _ => false,
        }
    }

    /// A king takes the first piece along an empty diagonal and lands on any empty square
    /// behind it (6.3).
    fn fly_jump(&mut self, at: u8, direction: usize) -> bool {
        let line = ray(at, direction);
        let Some(k) = line.iter().position(|&s| !self.is_empty(s)) else {
            return false;
        };
        if !self.can_take(line[k]) {
            return false;
        }
        let mut went_on = false;
        let empty = self.empty;
        for &landing in line[k + 1..].iter().take_while(|&&s| empty & bit(s) != 0) {
            self.jump(line[k], landing);
            went_on = true;
        }
        went_on
    }

    fn can_take(&self, victim: u8) -> bool {
        self.jumpable & !self.mask & bit(victim) != 0
    }

    fn is_empty(&self, index: u8) -> bool {
        self.empty & bit(index) != 0
    }

    fn jump(&mut self, victim: u8, landing: u8) {
        self.path[self.path_len] = landing;
        self.taken[self.taken_len] = victim;
        self.path_len += 1;
        self.taken_len += 1;
        self.mask |= bit(victim);
        self.extend(landing);
        self.mask &= !bit(victim);
        self.path_len -= 1;
        self.taken_len -= 1;
    }
}
