//! One line through a point, as black sees it after placing a stone there: the eleven points
//! from five before to five after, enough to see every five, four and three the stone takes
//! part in. Bit `k` of a mask is the point `k - 5` steps along the direction.

use super::board::{Board, Stone};
use super::point::{Direction, Point};

/// The bit of the point the stone is placed on.
const CENTRE: u32 = 5;
/// Bits of the eleven points.
const WIDTH: u32 = 11;

/// The points of one line around a black stone: which are black, which are empty (white
/// stones and the edge are neither: both block a line the same way).
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    black: u16,
    empty: u16,
    centre: Point,
    direction: Direction,
}

/// The fours on one line: the stones of each, as masks (a straight four `.xxxx.` is one
/// four with two points to make five; `x.xxx.x` is two fours).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Fours {
    stones: [u16; 9],
    len: usize,
}

impl Fours {
    fn add(&mut self, stones: u16) {
        if !self.stones[..self.len].contains(&stones) {
            self.stones[self.len] = stones;
            self.len += 1;
        }
    }

    pub fn count(&self) -> usize {
        self.len
    }

    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.stones[..self.len].iter().copied()
    }
}

fn bit(k: u32) -> u16 {
    1 << k
}

impl Window {
    /// The line through `centre` along `direction` with a black stone on `centre`.
    pub fn around(board: &Board, centre: Point, direction: Direction) -> Window {
        let mut window = Window {
            black: bit(CENTRE),
            empty: 0,
            centre,
            direction,
        };
        for (k, steps) in (0..WIDTH).zip(-5i8..=5) {
            match centre.step(direction, steps).map(|p| board.stone(p)) {
                Some(None) if k != CENTRE => window.empty |= bit(k),
                Some(Some(Stone::Black)) => window.black |= bit(k),
                _ => {}
            }
        }
        window
    }

    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The unbroken black run through `at` in `black`, as (first bit, last bit).
    fn run(black: u16, at: u32) -> (u32, u32) {
        let mut lo = at;
        while lo > 0 && black & bit(lo - 1) != 0 {
            lo -= 1;
        }
        let mut hi = at;
        while hi + 1 < WIDTH && black & bit(hi + 1) != 0 {
            hi += 1;
        }
        (lo, hi)
    }

    fn run_len(black: u16) -> u32 {
        let (lo, hi) = Window::run(black, CENTRE);
        hi - lo + 1
    }

    fn mask(lo: u32, hi: u32) -> u16 {
        (bit(hi + 1) - 1) & !(bit(lo) - 1)
    }

    /// Black's exact five through the stone (RIF 9.1: five and only five).
    pub fn is_five(&self) -> bool {
        Window::run_len(self.black) == 5
    }

    /// Six or more in a row through the stone: forbidden for black (RIF 9.3).
    pub fn is_overline(&self) -> bool {
        Window::run_len(self.black) >= 6
    }

    /// The stones of the five or overline through the stone.
    pub fn run_stones(&self) -> u16 {
        let (lo, hi) = Window::run(self.black, CENTRE);
        Window::mask(lo, hi)
    }

    /// Every four through the stone: a group of stones one black stone from an exact five.
    pub fn fours(&self) -> Fours {
        let mut fours = Fours::default();
        for k in (CENTRE - 4..=CENTRE + 4).filter(|&k| self.empty & bit(k) != 0) {
            let black = self.black | bit(k);
            if Window::run_len(black) == 5 {
                let (lo, hi) = Window::run(black, CENTRE);
                fours.add(Window::mask(lo, hi) & !bit(k));
            }
        }
        fours
    }

    /// The points where one black stone makes a straight four `.xxxx.` through the stone,
    /// both of whose ends make an exact five: what makes the stones here a three.
    pub fn straight_four_points(&self) -> u16 {
        let mut points = 0;
        for k in (CENTRE - 3..=CENTRE + 3).filter(|&k| self.empty & bit(k) != 0) {
            if self.is_straight_four(self.black | bit(k)) {
                points |= bit(k);
            }
        }
        points
    }

    fn is_straight_four(&self, black: u16) -> bool {
        let (lo, hi) = Window::run(black, CENTRE);
        // lo >= 2 and hi <= 8 here: the run of four holds the centre and a point at most 3
        // away, so both ends and the points beyond them are inside the window.
        let open = |k: u32| self.empty & bit(k) != 0;
        let not_black = |k: u32| black & bit(k) == 0;
        hi - lo == 3 && open(lo - 1) && open(hi + 1) && not_black(lo - 2) && not_black(hi + 2)
    }

    /// The black stones of the three whose straight-four points are `points`.
    pub fn three_stones(&self, points: u16) -> u16 {
        (0..WIDTH)
            .filter(|&k| points & bit(k) != 0)
            .map(|k| {
                let (lo, hi) = Window::run(self.black | bit(k), CENTRE);
                Window::mask(lo, hi) & !bit(k)
            })
            .fold(0, |all, stones| all | stones)
    }

    /// The board points of a mask, in order along the line.
    pub fn points(&self, mask: u16) -> Vec<Point> {
        (0..WIDTH)
            .zip(-5i8..=5)
            .filter(|&(k, _)| mask & bit(k) != 0)
            .filter_map(|(_, steps)| self.centre.step(self.direction, steps))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window from a line of text on rank 8, the stone to place marked `*`.
    fn window(line: &str) -> Window {
        let mut board = Board::new();
        for (file, c) in (0..15u8).zip(line.chars()) {
            let stone = match c {
                'x' => Some(Stone::Black),
                'o' => Some(Stone::White),
                _ => None,
            };
            board.put(Point::new(file, 7).unwrap(), stone);
        }
        let star = u8::try_from(line.find('*').unwrap()).unwrap();
        Window::around(&board, Point::new(star, 7).unwrap(), Direction::Horizontal)
    }

    #[test]
    fn five_and_overline() {
        assert!(window("..xx*xx..").is_five());
        assert!(!window("..xx*xx..").is_overline());
        assert!(window(".xxx*xx..").is_overline(), "six");
        assert!(!window(".xx*x....").is_five(), "four is no five");
        assert!(window(".xxx*x...").is_five());
    }

    #[test]
    fn fours_count_stone_groups_not_points() {
        assert_eq!(window("..xx*x...").fours().count(), 1, "straight four");
        assert_eq!(window("..xx*.x..").fours().count(), 1, "broken four");
        assert_eq!(window("x.xx*.x..").fours().count(), 2, "x.xxx.x");
        assert_eq!(window("xx.x*.xx.").fours().count(), 2, "xx.xx.xx");
        assert_eq!(window("oxx*x.o..").fours().count(), 1, "closed four");
        assert_eq!(
            window("x.xx*x...").fours().count(),
            1,
            "the other end is an overline"
        );
        assert_eq!(window(".x*x.....").fours().count(), 0);
    }

    #[test]
    fn straight_four_points_make_threes() {
        let w = window("...x*x....");
        assert_eq!(
            w.points(w.straight_four_points()).len(),
            2,
            "..xxx..: both ends"
        );
        assert_eq!(window("...x*.x....").straight_four_points().count_ones(), 1);
        assert_eq!(
            window("..ox*x.....").straight_four_points(),
            0,
            "blocked on one side"
        );
        assert_eq!(
            window("..ox*x.o...").straight_four_points(),
            0,
            "blocked both ways"
        );
        assert_eq!(
            window(".x.x*x.x...").straight_four_points(),
            0,
            "ends make overlines"
        );
        assert_eq!(window("ox*x.o.....").straight_four_points(), 0);
    }

    #[test]
    fn the_edge_blocks_like_a_white_stone() {
        let corner = window("*xx............");
        assert_eq!(corner.straight_four_points(), 0);
        let near = window(".*xx...........");
        assert_eq!(
            near.straight_four_points().count_ones(),
            1,
            ".xxx.. at the edge"
        );
    }
}
