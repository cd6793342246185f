//! The 225 points of the renju board, named as in the rule books' diagrams: files `a`..`o`
//! from black's left, ranks `1`..`15` from black's side, `h8` the centre (天元).

use std::fmt;

/// One intersection of the 15x15 board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(u8);

impl Point {
    /// Points per side of the board.
    pub const SIDE: u8 = 15;
    /// All points, `a1` first.
    pub const COUNT: usize = 225;
    /// `h8`, where black's first stone goes.
    pub const CENTRE: Point = Point(7 * 15 + 7);

    /// The point on `file` (0 = a) and `rank` (0 = rank 1), if it is on the board.
    pub fn new(file: u8, rank: u8) -> Option<Point> {
        (file < Self::SIDE && rank < Self::SIDE).then(|| Point(rank * Self::SIDE + file))
    }

    /// The point with this index (`rank * 15 + file`, `a1` = 0, `o15` = 224).
    pub fn from_index(index: usize) -> Option<Point> {
        u8::try_from(index)
            .ok()
            .filter(|&i| usize::from(i) < Self::COUNT)
            .map(Point)
    }

    /// Every point of the board, `a1` first, rank by rank.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..Self::COUNT).filter_map(Point::from_index)
    }

    /// Parses a name such as `h8` or `o15` (lower case, as the log writes them).
    pub fn parse(text: &str) -> Option<Point> {
        let (file, rank) = text.split_at_checked(1)?;
        let file = file.bytes().next().filter(u8::is_ascii_lowercase)? - b'a';
        if rank.starts_with('0') || !rank.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Point::new(file, rank.parse::<u8>().ok()?.checked_sub(1)?)
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    pub fn file(self) -> u8 {
        self.0 % Self::SIDE
    }

    pub fn rank(self) -> u8 {
        self.0 / Self::SIDE
    }

    /// The point `steps` away along `direction` (negative: the other way), if on the board.
    pub fn step(self, direction: Direction, steps: i8) -> Option<Point> {
        let (df, dr) = direction.delta();
        let file = i8::try_from(self.file()).ok()? + df * steps;
        let rank = i8::try_from(self.rank()).ok()? + dr * steps;
        Point::new(u8::try_from(file).ok()?, u8::try_from(rank).ok()?)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = char::from(b'a' + self.file());
        write!(f, "{file}{}", self.rank() + 1)
    }
}

/// The four lines through a point on which five can be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Along a rank (a8-o8).
    Horizontal,
    /// Along a file (h1-h15).
    Vertical,
    /// Rising to the right (a1-o15).
    Diagonal,
    /// Falling to the right (a15-o1).
    AntiDiagonal,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::Horizontal,
        Direction::Vertical,
        Direction::Diagonal,
        Direction::AntiDiagonal,
    ];

    /// One step along the line: (files, ranks).
    fn delta(self) -> (i8, i8) {
        match self {
            Direction::Horizontal => (1, 0),
            Direction::Vertical => (0, 1),
            Direction::Diagonal => (1, 1),
            Direction::AntiDiagonal => (1, -1),
        }
    }

    /// How a ruling names the line.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Horizontal => "horizontal",
            Direction::Vertical => "vertical",
            Direction::Diagonal => "diagonal a1-o15",
            Direction::AntiDiagonal => "diagonal a15-o1",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Point::all() {
            assert_eq!(Point::parse(&p.to_string()), Some(p));
        }
        assert_eq!(Point::parse("h8"), Some(Point::CENTRE));
        assert_eq!(Point::parse("a1").map(Point::index), Some(0));
        assert_eq!(Point::parse("o15").map(Point::index), Some(224));
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in ["", "h", "p1", "a0", "a16", "a01", "H8", "8h", "h8x", "h+8"] {
            assert_eq!(Point::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn steps_stop_at_the_edge() {
        let a1 = Point::parse("a1").unwrap();
        assert_eq!(a1.step(Direction::Diagonal, 14), Point::parse("o15"));
        assert_eq!(a1.step(Direction::Horizontal, -1), None);
        assert_eq!(a1.step(Direction::AntiDiagonal, 1), None);
        assert_eq!(
            Point::CENTRE.step(Direction::AntiDiagonal, 2),
            Point::parse("j6")
        );
    }
}
