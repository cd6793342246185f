//! Squares of the 8x8 board, `a1`..`h8`; white starts on ranks 1-2.

use std::fmt;

/// One of the 64 squares. Index = rank * 8 + file, so `a1` is 0 and `h8` is 63.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 64;

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if it is on the board.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8).then_some(Square(rank * 8 + file))
    }

    /// The square with this index (0..64).
    pub fn from_index(index: usize) -> Option<Square> {
        u8::try_from(index).ok().filter(|&i| i < 64).map(Square)
    }

    /// Parses algebraic text such as `e4` (lower case only).
    pub fn parse(text: &str) -> Option<Square> {
        let &[f, r] = text.as_bytes() else {
            return None;
        };
        if !(b'a'..=b'h').contains(&f) || !(b'1'..=b'8').contains(&r) {
            return None;
        }
        Square::new(f - b'a', r - b'1')
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// 0 = file a .. 7 = file h.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// 0 = rank 1 .. 7 = rank 8.
    pub fn rank(self) -> u8 {
        self.0 / 8
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file()), self.rank() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Square;

    #[test]
    fn algebraic_round_trip() {
        for i in 0..Square::COUNT {
            let sq = Square::from_index(i).unwrap();
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        for bad in ["i1", "a0", "a9", "e", "", "E4"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }
}
