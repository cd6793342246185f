//! Legal moves. Capturing is compulsory (draughts 6.1) and must take the most pieces (6.13);
//! only when nothing can be taken do men step forward (5.4) and kings fly (5.9).
//!
//! Whether anything can be taken at all is settled first for all men at once, with the board
//! laid out so that each diagonal step is one shift (see [`Padded`]); the route search then
//! runs only from the pieces that can take. The same layout counts the quiet moves without
//! building them, for the last ply of perft.

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
struct Majority<'a, T> {
    best: usize,
    routes: &'a mut Vec<T>,
    /// Whether routes with the same key are merged (false only to compare with other tools).
    distinct: bool,
}

impl<T: Route> Majority<'_, T> {
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

    /// Whether the side to move has any legal move (12.2: without one it loses), without
    /// listing them: a piece that can take, a man with an empty square diagonally ahead, or a
    /// king with an empty square next to it.
    pub fn has_legal_move(&self) -> bool {
        let board = Padded::new(self);
        board.takers() != 0 || board.can_step()
    }

    /// Whether nothing can be taken, so that the legal moves are the quiet ones (5.4, 5.9).
    pub(super) fn is_quiet(&self) -> bool {
        Padded::new(self).takers() == 0
    }
}

/// Every legal move in the form `T`; `distinct` merges routes with the same key.
pub(super) fn generate<T: Route>(pos: &Position, distinct: bool) -> Vec<T> {
    let mut moves = Vec::new();
    generate_into(pos, distinct, &mut moves);
    moves
}

/// Replaces the contents of `out` with every legal move in the form `T`.
pub(super) fn generate_into<T: Route>(pos: &Position, distinct: bool, out: &mut Vec<T>) {
    out.clear();
    let board = Padded::new(pos);
    let takers = board.takers();
    if takers == 0 {
        steps(pos, out);
        return;
    }
    captures(pos, takers, distinct, out);
}

/// The capture routes of the pieces in `takers` that take the most pieces.
fn captures<T: Route>(pos: &Position, takers: u64, distinct: bool, out: &mut Vec<T>) {
    let mut majority = Majority {
        best: 0,
        routes: out,
        distinct,
    };
    let enemy = pos.of(pos.side_to_move().opponent());
    for from in indices(takers) {
        let mut search = CaptureSearch::new(pos, from, enemy, |path: &[u8], taken: &[u8], mask| {
            majority.offer(path, taken, mask)
        });
        search.run();
    }
}

/// The number of legal moves, as [`generate_into`] would list them; quiet moves are counted
/// without being built, captures are listed in `scratch`.
pub(super) fn count_moves(pos: &Position, distinct: bool, scratch: &mut Vec<Compact>) -> u64 {
    let board = Padded::new(pos);
    let takers = board.takers();
    if takers == 0 {
        return board.quiet_count();
    }
    scratch.clear();
    captures(pos, takers, distinct, scratch);
    u64::try_from(scratch.len()).unwrap_or(u64::MAX)
}

/// The board in a padded layout: square index `i` is bit `i + i / 10`, which leaves a spare
/// (always empty) bit after every two rows, at 10, 21, 32 and 43. Every diagonal step is then
/// a shift of the whole set (5 or 6 bits, [`Padded::step`]), and a step off the left or right
/// edge lands on a spare bit or off the 54 bits, where nothing stands.
struct Padded {
    own_men: u64,
    own_kings: u64,
    enemy: u64,
    empty: u64,
    side: Color,
    /// The same position, for the kings' rays.
    kings: u64,
    own: u64,
    occupied: u64,
}

/// The 50 squares in the padded layout.
const PADDED_SQUARES: u64 = pad(ALL_SQUARES);

/// Square-index set to padded set.
const fn pad(mask: u64) -> u64 {
    let mut padded = 0;
    let mut pair = 0;
    while pair < 5 {
        padded |= ((mask >> (10 * pair)) & 0x3ff) << (11 * pair);
        pair += 1;
    }
    padded
}

/// Padded set to square-index set.
fn unpad(padded: u64) -> u64 {
    (0..5).fold(0, |mask, pair| {
        mask | (((padded >> (11 * pair)) & 0x3ff) << (10 * pair))
    })
}

impl Padded {
    fn new(pos: &Position) -> Padded {
        let side = pos.side_to_move();
        let own = pos.of(side);
        let kings = pos.kings();
        Padded {
            own_men: pad(own & !kings),
            own_kings: pad(own & kings),
            enemy: pad(pos.of(side.opponent())),
            empty: PADDED_SQUARES & !pad(pos.occupied()),
            side,
            kings,
            own,
            occupied: pos.occupied(),
        }
    }

    /// Each square of `set` moved one step in `direction` (up = toward row 0).
    fn step(set: u64, direction: usize) -> u64 {
        let moved = match direction {
            UP_LEFT => set >> 6,
            UP_RIGHT => set >> 5,
            DOWN_LEFT => set << 5,
            _ => set << 6,
        };
        moved & PADDED_SQUARES
    }

    /// The own pieces (square indices) that can take something now: a man with an enemy
    /// piece next to it and an empty square right behind (6.2), a king with an enemy piece
    /// first along an empty diagonal and an empty square right behind (6.3).
    fn takers(&self) -> u64 {
        let mut men = 0;
        for direction in 0..4 {
            let back = 3 - direction;
            let victims = Padded::step(self.empty, back) & self.enemy;
            men |= Padded::step(victims, back) & self.own_men;
        }
        let mut takers = unpad(men);
        for king in indices(self.own & self.kings) {
            if self.king_can_take(king) {
                takers |= bit(king);
            }
        }
        takers
    }

    fn king_can_take(&self, king: u8) -> bool {
        (0..4).any(|direction| {
            let line = ray(king, direction);
            let Some(k) = line.iter().position(|&s| self.occupied & bit(s) != 0) else {
                return false;
            };
            let enemy = self.occupied & !self.own;
            enemy & bit(line[k]) != 0
                && line
                    .get(k + 1)
                    .is_some_and(|&behind| self.occupied & bit(behind) == 0)
        })
    }

    /// Whether some piece has a quiet move: a man an empty square forward (5.4), a king an
    /// empty square next to it in any direction (5.9).
    fn can_step(&self) -> bool {
        let men = forward(self.side)
            .into_iter()
            .any(|direction| Padded::step(self.own_men, direction) & self.empty != 0);
        men || (0..4).any(|direction| Padded::step(self.own_kings, direction) & self.empty != 0)
    }

    /// The number of quiet moves: men one step forward (5.4), kings any distance along an
    /// empty diagonal (5.9).
    fn quiet_count(&self) -> u64 {
        let mut count = 0;
        for direction in forward(self.side) {
            count += (Padded::step(self.own_men, direction) & self.empty).count_ones();
        }
        for direction in 0..4 {
            let mut reach = self.own_kings;
            while reach != 0 {
                reach = Padded::step(reach, direction) & self.empty;
                count += reach.count_ones();
            }
        }
        u64::from(count)
    }
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

/// Whether `from`-`to` is one of the quiet moves [`steps`] lists: an own man one square
/// diagonally forward onto an empty square (5.4), or an own king along an empty diagonal
/// (5.9). Only the answer when nothing can be taken.
pub(super) fn is_step(pos: &Position, from: u8, to: u8) -> bool {
    let side = pos.side_to_move();
    if pos.of(side) & bit(from) == 0 {
        return false;
    }
    let empty = ALL_SQUARES & !pos.occupied();
    if pos.kings() & bit(from) == 0 {
        return forward(side)
            .into_iter()
            .any(|direction| ray(from, direction).first() == Some(&to))
            && empty & bit(to) != 0;
    }
    (0..4).any(|direction| {
        ray(from, direction)
            .iter()
            .take_while(|&&s| empty & bit(s) != 0)
            .any(|&s| s == to)
    })
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

#[cfg(test)]
mod tests {
    use super::super::position::{Position, indices};
    use super::{
        CaptureSearch, Compact, Majority, count_moves, generate, generate_into, is_step, steps,
    };

    /// The moves as the plain definition gives them: the route search from every own piece,
    /// quiet moves only if no route takes anything.
    fn reference(pos: &Position, distinct: bool) -> Vec<Compact> {
        let mut routes = Vec::new();
        let mut majority = Majority {
            best: 0,
            routes: &mut routes,
            distinct,
        };
        let enemy = pos.of(pos.side_to_move().opponent());
        for from in indices(pos.of(pos.side_to_move())) {
            CaptureSearch::new(pos, from, enemy, |p: &[u8], t: &[u8], m| {
                majority.offer(p, t, m);
            })
            .run();
        }
        if routes.is_empty() {
            steps(pos, &mut routes);
        }
        routes
    }

    /// Every node of the tree `depth` plies deep checks the fast paths against the
    /// reference: the same moves in the same order, and the same bulk count.
    fn check_tree(pos: &Position, depth: u32, nodes: &mut usize) {
        let mut scratch = Vec::new();
        for distinct in [true, false] {
            let want = reference(pos, distinct);
            let mut got: Vec<Compact> = Vec::new();
            generate_into(pos, distinct, &mut got);
            assert_eq!(got, want, "{}", pos.to_fen());
            let count = count_moves(pos, distinct, &mut scratch);
            assert_eq!(count, want.len() as u64, "{}", pos.to_fen());
        }
        check_shortcuts(pos);
        *nodes += 1;
        if depth == 0 {
            return;
        }
        for mv in generate::<Compact>(pos, true) {
            let mut next = pos.clone();
            next.play_indices(mv.from, mv.to, mv.taken);
            check_tree(&next, depth - 1, nodes);
        }
    }

    /// The shortcuts of the referee agree with the move list: whether any move exists, and
    /// which quiet moves are legal when nothing can be taken.
    fn check_shortcuts(pos: &Position) {
        let moves = generate::<Compact>(pos, true);
        assert_eq!(pos.has_legal_move(), !moves.is_empty(), "{}", pos.to_fen());
        let quiet = moves.iter().all(|m| m.taken == 0);
        assert_eq!(pos.is_quiet(), quiet, "{}", pos.to_fen());
        if !quiet {
            return;
        }
        for from in 0..50 {
            for to in 0..50 {
                let listed = moves.iter().any(|m| (m.from, m.to) == (from, to));
                assert_eq!(
                    is_step(pos, from, to),
                    listed,
                    "{from} {to} {}",
                    pos.to_fen()
                );
            }
        }
    }

    /// The positions of tests/perft/draughts.perft: men and kings, captures by both, the
    /// majority rule, crowning, and men on the edges.
    #[test]
    fn fast_paths_equal_the_plain_definition() {
        let fens = [
            ("W:W31-50:B1-20", 4),
            (
                "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
                6,
            ),
            (
                "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
                3,
            ),
            ("W:WK31-50:BK1-20", 3),
            ("W:W6,7,8,9,10:B41,42,43,44,45", 5),
            ("W:WK46,31,32,33,34,K50:B6,7,8,17,18,19,K3,K44", 3),
            (
                "B:W25,27,28,30,32,33,34,35,37,38,K45:B12,13,14,16,18,19,21,23,24,26,K5",
                4,
            ),
        ];
        let mut nodes = 0;
        for (fen, depth) in fens {
            let pos = Position::from_fen(fen).unwrap();
            check_tree(&pos, depth, &mut nodes);
        }
        assert!(nodes > 20_000, "only {nodes} positions checked");
    }
}
