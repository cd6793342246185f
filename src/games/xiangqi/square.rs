//! Points of the xiangqi board in ICCS coordinates: files `a`..`i` from red's left,
//! ranks `0`..`9` from red's side (red's general starts on `e0`).

use std::fmt;

/// One of the 90 points of the board. Index = rank * 9 + file, so `a0` is 0 and `i9` is 89.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// All 90 points, `a0` first.
    pub const COUNT: usize = 90;

    /// The point on `file` (0 = a) and `rank` (0 = red's back rank), if it is on the board.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        (file < 9 && rank < 10).then_some(Square(rank * 9 + file))
    }

    /// The point with this index (0..90).
    pub fn from_index(index: usize) -> Option<Square> {
        u8::try_from(index).ok().filter(|&i| i < 90).map(Square)
    }

    /// Parses ICCS text such as `e0` or `h9` (lower case only).
    pub fn parse(text: &str) -> Option<Square> {
        let &[f, r] = text.as_bytes() else {
            return None;
        };
        if !(b'a'..=b'i').contains(&f) || !r.is_ascii_digit() {
            return None;
        }
        Square::new(f - b'a', r - b'0')
    }

    /// The index of this point: `rank * 9 + file`, `a0` = 0, `i9` = 89.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The point with this index, for the geometry tables built at compile time.
    /// Panics (at compile time, when used in a constant) if the index is off the board.
    pub(super) const fn at(index: u8) -> Square {
        assert!(index < 90, "square index off the board");
        Square(index)
    }

    /// The raw index, for tables and bit masks.
    pub(super) const fn raw(self) -> u8 {
        self.0
    }

    /// The point `df` files and `dr` ranks away, if it is on the board.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let file = self.file().checked_add_signed(df)?;
        let rank = self.rank().checked_add_signed(dr)?;
        Square::new(file, rank)
    }

    /// 0 = file a .. 8 = file i.
    pub fn file(self) -> u8 {
        self.0 % 9
    }

    /// 0 = red's back rank .. 9 = black's back rank.
    pub fn rank(self) -> u8 {
        self.0 / 9
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file()), self.rank())
    }
}

#[cfg(test)]
mod tests {
    use super::Square;

    #[test]
    fn iccs_round_trip() {
        for i in 0..Square::COUNT {
            let sq = Square::from_index(i).unwrap();
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(
            Square::parse("e0").map(|s| (s.file(), s.rank())),
            Some((4, 0))
        );
        for bad in ["j0", "a10", "e", "", "E0", "a-1"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }
}
